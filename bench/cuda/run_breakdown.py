#!/usr/bin/env python3
"""Where a `strand train` run's training time went, from its run directory: the steps of the
first epoch (which carries the one-off work: cuDNN plans, the conv engine's timed choices, the
CUDA graph's warm-up and capture) against the later epochs', and the rest of train_seconds (the
validation passes and the epochs' ends), with the steps replayed from a CUDA graph.

    breakdown: steps 0.412 s in epoch 1, then 0.301 s an epoch (median of 2); validation and
    the rest 0.214 s of train_seconds 1.228; 156 steps replayed from the CUDA graph

Usage: run_breakdown.py RUN_DIR
"""
import csv
import json
import os
import statistics
import sys


def breakdown(run_dir):
    report = json.load(open(os.path.join(run_dir, "report.json")))
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        epochs = [float(row["epoch_seconds"]) for row in csv.DictReader(f)]
    if not epochs:
        return "breakdown: no epoch in metrics.csv"
    steps_total = sum(epochs)
    later = (f", then {statistics.median(epochs[1:]):.3f} s an epoch (median of "
             f"{len(epochs) - 1})" if len(epochs) > 1 else "")
    rest = report["train_seconds"] - steps_total
    replays = report.get("cuda_graph_replays")
    graph = "" if replays is None else f"; {replays} steps replayed from the CUDA graph"
    return (f"breakdown: steps {epochs[0]:.3f} s in epoch 1{later}; validation and the rest "
            f"{rest:.3f} s of train_seconds {report['train_seconds']:.3f}{graph}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(breakdown(sys.argv[1]))
