#!/usr/bin/env python3
"""Compares two strand run directories of the same config.

    compare_runs.py RUN_A RUN_B               (e.g. the reference run on the CPU and the GPU)
Prints every test metric of report.json side by side and the per-epoch loss differences; the
verdict line reads 'test auROC: ...'. Exits 1 when a test auROC differs by more than 1e-3 (or
none is found).

    compare_runs.py --identical RUN_A RUN_B   (two --deterministic runs on one device)
Byte for byte: every checkpoint's tensor data and tensor table, and its metadata but for the
timings; steps.csv; metrics.csv but for its timing columns; report.json's test and validation
sections and epochs run. Timings (seconds, samples/s) are the only things allowed to differ.
The verdict line reads 'identical: ...' or 'DIFFER: ...'; exits 1 when anything differs.
"""
import csv
import json
import pathlib
import struct
import sys

TOLERANCE = 1e-3
# Metadata keys and CSV columns that hold timings, which differ between identical runs.
TIMING_WORDS = ("seconds", "samples_per_second", "time", "eta")


def is_timing(name):
    return any(word in name for word in TIMING_WORDS)


def flat(prefix, value, out):
    if isinstance(value, dict):
        for key, inner in value.items():
            flat(f"{prefix}.{key}" if prefix else key, inner, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out[prefix] = float(value)
    return out


def read_rows(path):
    if not path.exists():
        return None
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def compare_metrics(run_a, run_b):
    report_a, report_b = (json.loads((r / "report.json").read_text()) for r in (run_a, run_b))
    print(f"devices: {report_a.get('device')} vs {report_b.get('device')}; epochs run "
          f"{report_a.get('epochs_run')} vs {report_b.get('epochs_run')}; best epoch "
          f"{report_a.get('best_epoch')} vs {report_b.get('best_epoch')}")
    tests_a = flat("", report_a.get("test", {}), {})
    tests_b = flat("", report_b.get("test", {}), {})
    worst, worst_key = -1.0, None
    for key in sorted(set(tests_a) & set(tests_b)):
        diff = abs(tests_a[key] - tests_b[key])
        print(f"test {key:24s} {tests_a[key]:.6f} {tests_b[key]:.6f} diff {diff:.2e}")
        if "auroc" in key.lower() and diff > worst:
            worst, worst_key = diff, key
    rows_a = read_rows(run_a / "metrics.csv") or []
    rows_b = read_rows(run_b / "metrics.csv") or []
    for column in ("loss", "val_loss"):
        diffs = [abs(float(a[column]) - float(b[column])) for a, b in zip(rows_a, rows_b)
                 if a.get(column) and b.get(column)]
        if diffs:
            print(f"per-epoch {column}: max |diff| {max(diffs):.2e} over {len(diffs)} epochs")
    if worst_key is None:
        print("test auROC: none in both reports (did both runs finish their test evaluation?)")
        return 1
    verdict = "within" if worst <= TOLERANCE else "OVER"
    print(f"test auROC: {tests_a[worst_key]:.6f} vs {tests_b[worst_key]:.6f}, largest difference "
          f"{worst:.2e} ({worst_key}; {verdict} {TOLERANCE:g})")
    return 0 if worst <= TOLERANCE else 1


def read_safetensors(path):
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    metadata = header.pop("__metadata__", {})
    return header, metadata, data[8 + size:]


def compare_identical(run_a, run_b):
    differences, checked = [], []
    checkpoints_a = sorted(p.name for p in (run_a / "checkpoints").glob("*.safetensors"))
    checkpoints_b = sorted(p.name for p in (run_b / "checkpoints").glob("*.safetensors"))
    if checkpoints_a != checkpoints_b or not checkpoints_a:
        differences.append(f"checkpoint files {checkpoints_a} vs {checkpoints_b}")
    tensor_bytes = 0
    for name in sorted(set(checkpoints_a) & set(checkpoints_b)):
        table_a, meta_a, data_a = read_safetensors(run_a / "checkpoints" / name)
        table_b, meta_b, data_b = read_safetensors(run_b / "checkpoints" / name)
        if table_a != table_b:
            differences.append(f"{name}: tensor tables differ")
        if data_a != data_b:
            first = next(i for i, (x, y) in enumerate(zip(data_a, data_b)) if x != y) \
                if len(data_a) == len(data_b) else min(len(data_a), len(data_b))
            owner = next((t for t, e in table_a.items()
                          if e["data_offsets"][0] <= first < e["data_offsets"][1]), "?")
            differences.append(f"{name}: tensor data differs from byte {first} (tensor {owner})")
        meta_a = {k: v for k, v in meta_a.items() if not is_timing(k)}
        meta_b = {k: v for k, v in meta_b.items() if not is_timing(k)}
        if meta_a != meta_b:
            keys = sorted(k for k in set(meta_a) | set(meta_b) if meta_a.get(k) != meta_b.get(k))
            differences.append(f"{name}: metadata differs in {keys}")
        tensor_bytes += len(data_a)
    checked.append(f"{len(checkpoints_a)} checkpoints ({tensor_bytes} tensor bytes)")
    for csv_name in ("steps.csv", "metrics.csv"):
        rows_a, rows_b = read_rows(run_a / csv_name), read_rows(run_b / csv_name)
        if rows_a is None or rows_b is None:
            differences.append(f"{csv_name} missing")
            continue
        columns = [c for c in (rows_a[0].keys() if rows_a else []) if not is_timing(c)]
        strip = [[row.get(c) for c in columns] for row in rows_a]
        if strip != [[row.get(c) for c in columns] for row in rows_b]:
            differences.append(f"{csv_name} differs")
        checked.append(f"{csv_name} ({len(rows_a)} rows)")
    report_a, report_b = (json.loads((r / "report.json").read_text()) for r in (run_a, run_b))
    for key in ("test", "validation", "epochs_run", "best_epoch"):
        if report_a.get(key) != report_b.get(key):
            differences.append(f"report.json {key} differs")
    checked.append("report.json")
    for line in differences:
        print(f"DIFFER: {line}")
    if not differences:
        print(f"identical: {', '.join(checked)} (timings aside)")
    return 1 if differences else 0


def main():
    args = sys.argv[1:]
    identical = args[:1] == ["--identical"]
    if identical:
        args = args[1:]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    run_a, run_b = (pathlib.Path(a) for a in args)
    for run in (run_a, run_b):
        if not (run / "report.json").exists():
            print(f"{'DIFFER: ' if identical else 'test auROC: '}no report.json in {run} "
                  "(the run did not finish)")
            return 1
    return compare_identical(run_a, run_b) if identical else compare_metrics(run_a, run_b)


if __name__ == "__main__":
    sys.exit(main())
