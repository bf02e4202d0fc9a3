#!/usr/bin/env python3
"""Compares two strand runs of the same config (e.g. CPU and GPU): test metrics and per-epoch
losses. Usage: compare_runs.py REPORT_A REPORT_B METRICS_A METRICS_B. Prints the largest
differences; exits 1 when a test metric differs by more than 1e-3."""
import csv
import json
import sys


def flat(prefix, value, out):
    if isinstance(value, dict):
        for key, inner in value.items():
            flat(f"{prefix}.{key}" if prefix else key, inner, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out[prefix] = float(value)
    return out


def main():
    report_a, report_b = (json.load(open(p)) for p in sys.argv[1:3])
    rows_a, rows_b = (list(csv.DictReader(open(p))) for p in sys.argv[3:5])
    tests_a = flat("", report_a.get("test", {}), {})
    tests_b = flat("", report_b.get("test", {}), {})
    worst = 0.0
    for key in sorted(set(tests_a) & set(tests_b)):
        diff = abs(tests_a[key] - tests_b[key])
        worst = max(worst, diff)
        print(f"test {key:24s} {tests_a[key]:.6f} {tests_b[key]:.6f} diff {diff:.2e}")
    print(f"epochs: {len(rows_a)} vs {len(rows_b)}")
    for column in ("loss", "val_loss"):
        diffs = [abs(float(a[column]) - float(b[column])) for a, b in zip(rows_a, rows_b)
                 if column in a and column in b]
        if diffs:
            print(f"per-epoch {column}: max |diff| {max(diffs):.2e} over {len(diffs)} epochs")
    print(f"largest test-metric difference {worst:.2e} ({'within' if worst <= 1e-3 else 'OVER'} 1e-3)")
    return 0 if worst <= 1e-3 and tests_a else 1


if __name__ == "__main__":
    sys.exit(main())
