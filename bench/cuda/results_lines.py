#!/usr/bin/env python3
"""Markdown lines for bench/RESULTS.md from one gpu_checks.sh record, citing its folder:

    python3 bench/cuda/results_lines.py bench/results/gpu/2026-12-01-0123456789ab

The folder is what bench/cuda/gpu_checks.sh wrote (summary.tsv, summary.txt, the logs), copied
into the repository as it came back. Prints a heading naming the folder, the machine and the
commit (summary.txt's first lines), the targets of issue 36 with their figures and verdicts, a
table of the epoch timings (bench/cuda/run_epochs_gpu.sh), and every other figure of
summary.tsv. Every number is read from the folder: none is typed by hand. A rehearsal's record
(no GPU) is printed with a warning line, never as a GPU result.
"""
import csv
import os
import sys

# (figure, what it is, target, higher is better)
TARGETS = [
    ("basset_fp32_steady_vs_eager", "Basset FP32, steady-state epochs, PyTorch eager / strand",
     1.5, True),
    ("basset_fp32_run_vs_eager", "Basset FP32, whole run (5 epochs' training), eager / strand",
     1.2, True),
    ("basset_bf16_vs_amp", "Basset bf16, whole run, PyTorch autocast / strand --precision bf16",
     1.2, True),
    ("basset_bf16_auroc_delta", "Basset test mean auROC, strand bf16 - fp32", 0.005, None),
    ("bpnet_fp32_vs_eager", "BPNet FP32, steady-state epochs, PyTorch eager / strand", 1.5, True),
    ("reference_train_seconds", "reference run, training seconds (GPU)", 1.0, False),
    ("memcheck_errors", "compute-sanitizer memcheck, memory errors (both runs)", 0, False),
    ("racecheck_hazards", "compute-sanitizer racecheck, hazards", 0, False),
    ("cuda_tests_failed", "test_cuda cases failed", 0, False),
    ("cuda_tests_skipped", "test_cuda cases skipped", 0, False),
    ("ism_gpu_vs_pytorch", "brute-force ISM on the GPU, PyTorch / strand", 1.0, True),
]
# A count read from a sanitizer is a verdict only when its check was complete (CLEAN).
STATUS_OF = {"memcheck_errors": "memcheck_status", "racecheck_hazards": "racecheck_status"}
SIDES = [("strand", "strand"), ("eager", "PyTorch eager"), ("amp", "PyTorch eager + autocast"),
         ("compile", "torch.compile")]


def verdict(value, target, higher):
    try:
        number = float(value)
    except ValueError:
        return "not measured"
    if higher is None:
        return "met" if abs(number) <= target + 1e-9 else "missed"
    met = number >= target if higher else number <= target
    return "met" if met else "missed"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1].rstrip("/")
    with open(os.path.join(folder, "summary.tsv")) as f:
        figures = {row["figure"]: row["value"] for row in csv.DictReader(f, delimiter="\t")}
    header = open(os.path.join(folder, "summary.txt")).read().splitlines()
    name = os.path.basename(folder)
    relative = os.path.relpath(folder, os.path.join(os.path.dirname(__file__), ".."))
    print(f"### GPU record {name}")
    print()
    if figures.get("rehearsal") == "1":
        print("**REHEARSAL without a GPU: these are CPU figures of the script's plumbing, not "
              "GPU results.**")
        print()
    print(f"Record: [`bench/results/gpu/{name}/`]({relative}/) (summary.tsv, summary.txt and "
          "the raw logs, as `bench/cuda/gpu_checks.sh` wrote them).")
    for line in header:
        if line.startswith("check "):
            break
        print(f"{line.lstrip('= ')}  ")
    print()
    print("| Figure | Value | Target |")
    print("|---|---|---|")
    for key, label, target, higher in TARGETS:
        value = figures.get(key, "NA")
        if higher is None:
            goal = f"within ±{target}"
        else:
            goal = f"{'>=' if higher else '<='} {target}{'x' if 'vs' in key else ''}"
        judged = verdict(value, target, higher)
        status = figures.get(STATUS_OF.get(key, ""), "CLEAN")
        if status != "CLEAN":
            judged = f"not met: the check is {status}"
        print(f"| {label} (`{key}`) | {value} | {goal}: {judged} |")
    print()
    groups = sorted({k.rsplit("_", 3)[0] for k in figures if k.endswith("_steady_s")})
    if groups:
        print("| Model, math | Side | First epoch (steps) | Steady epoch (steps) | Training | "
              "Process | Rounds |")
        print("|---|---|---|---|---|---|---|")
        for group in groups:
            model, _, precision = group.partition("_")
            for side, label in SIDES:
                if f"{group}_{side}_train_s" not in figures:
                    continue
                cells = [figures.get(f"{group}_{side}_{k}_s", "NA") for k in
                         ("epoch1", "steady", "train", "process")]
                print(f"| {model} {precision} | {label} | " + " | ".join(f"{c} s" for c in cells)
                      + f" | {figures.get(f'{group}_{side}_rounds', '')} |")
        print()
    shown = {t[0] for t in TARGETS} | {"rehearsal"}
    others = [k for k in figures if k not in shown and not k.endswith(("_s", "_rounds"))]
    rounds = [f"{k[:-len('_rounds')]}: {figures[k]}" for k in figures
              if k.endswith("_rounds") and k.count("_") == 2]
    if rounds:
        print("Rounds (fresh processes; failed ones in brackets): " + "; ".join(rounds) + ".")
        print()
    if others:
        print("Other figures: " + "; ".join(f"`{k}` {figures[k]}" for k in others) + ".")


if __name__ == "__main__":
    main()
