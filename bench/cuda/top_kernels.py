#!/usr/bin/env python3
"""Ranks the kernels of an Nsight Compute CSV by their summed duration and prints the top N:
    rank total_ms launches mean_us base_name | full name
where base_name is the kernel's function name without namespaces, template arguments or
parameters (what `ncu --kernel-name-base function` matches). The CSV is what
`ncu --csv --metrics gpu__time_duration.sum --log-file FILE ...` writes (bench/cuda/gpu_checks.sh).

Usage: top_kernels.py NCU_CSV [--top 3] [--names-only]
       top_kernels.py --self-test      (checks the parsing on a built-in sample; no GPU needed)
"""
import argparse
import csv
import io
import sys
from collections import defaultdict


def base_name(demangled):
    """'void ns::(anonymous namespace)::kernel<float, 4>(const float *, int)' -> 'kernel'."""
    name = demangled.replace("(anonymous namespace)", "anonymous_namespace")
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):  # the parameter list: the first '(' outside template brackets
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            cut = i
            break
    name = name[:cut]
    stripped, depth = [], 0
    for ch in name:  # drop template arguments
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            stripped.append(ch)
    name = "".join(stripped).strip().split(" ")[-1]  # drop a return type
    return name.split("::")[-1]


def rank(text):
    """[(total_ns, launches, full_name)] from ncu's CSV text, largest total first."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise ValueError("no CSV header (a line starting with \"ID\") in the ncu output")
    totals, counts = defaultdict(float), defaultdict(int)
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "ns")
        scale = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6,
                 "msecond": 1e6}.get(unit, 1.0)
        totals[row["Kernel Name"]] += value * scale
        counts[row["Kernel Name"]] += 1
    return sorted(((t, counts[k], k) for k, t in totals.items()), reverse=True)


SAMPLE = '''==PROF== Connected to process 1 (strand)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","1","strand","127.0.0.1","void strand::cuda::(anonymous namespace)::conv1d_relu_max_kernel<float>(const float *, int)","1","13","(256, 1, 1)","(128, 16, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","12,000"
"1","1","strand","127.0.0.1","adam_update_multi_kernel","1","13","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","3,000"
"2","1","strand","127.0.0.1","void strand::cuda::(anonymous namespace)::conv1d_relu_max_kernel<float>(const float *, int)","1","13","(256, 1, 1)","(128, 16, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","us","10"
"3","1","strand","127.0.0.1","sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32","1","13","(128, 1, 1)","(8, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","5,500"
'''


def self_test():
    ranked = rank(SAMPLE)
    assert [base_name(k) for _, _, k in ranked] == [
        "conv1d_relu_max_kernel", "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32",
        "adam_update_multi_kernel"], ranked
    assert ranked[0][:2] == (22000.0, 2), ranked[0]
    assert base_name("cutlass::Kernel2<cutlass_80_tensorop_s1688gemm>(Params)") == "Kernel2"
    print("top_kernels self-test: ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="?")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--names-only", action="store_true", help="print base names, one a line")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    if not args.csv:
        parser.error("NCU_CSV is required")
    ranked = rank(open(args.csv, errors="replace").read())
    if not ranked:
        print("no kernel durations in the ncu output", file=sys.stderr)
        return 1
    grand = sum(t for t, _, _ in ranked)
    for i, (total, launches, name) in enumerate(ranked[:args.top], 1):
        if args.names_only:
            print(base_name(name))
        else:
            print(f"{i} {total / 1e6:8.3f} ms {100 * total / grand:5.1f}% {launches:6d} launches "
                  f"{total / launches / 1e3:9.2f} us  {base_name(name)} | {name[:160]}")
    if not args.names_only:
        print(f"all kernels: {grand / 1e6:.3f} ms in {sum(n for _, n, _ in ranked)} launches of "
              f"{len(ranked)} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
