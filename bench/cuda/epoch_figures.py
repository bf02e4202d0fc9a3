#!/usr/bin/env python3
"""The figures of bench/cuda/run_epochs_gpu.sh: one row per training process in RUNS.tsv, and
from them the ratios strand / PyTorch that a user would see.

    epoch_figures.py strand RUNS.tsv MODEL PRECISION RUN_DIR EXIT PROCESS_SECONDS
    epoch_figures.py peer RUNS.tsv MODEL PRECISION SIDE JSON EXIT PROCESS_SECONDS
    epoch_figures.py summary RUNS.tsv [--figures FIGURES.tsv]
    epoch_figures.py --self-test      (the figures of a made-up runs.tsv; no GPU needed)

The first two append a row (a run that failed is recorded with its exit code and no figures).
`summary` prints one RESULT line per comparison and writes FIGURES.tsv (figure<TAB>value) for
gpu_checks.sh's summary.tsv. Per run: `epoch1` is the first epoch's training steps (the one-off
work: cuDNN plans, timed choices, CUDA graph capture, lazy loading), `steady` the median of the
later epochs' steps, `train` the whole training (every epoch's steps and validation passes:
strand's train_seconds, the peer's timed loop), `process` the whole process's wall-clock time
(start-up, data reading, training, strand's test pass). Each figure is the median over the
rounds (each round a fresh process). Sides: strand; eager and compile (PyTorch; in bf16, eager
runs under autocast: `amp`).

Figures (MODEL basset|bpnet, PRECISION fp32|bf16, PEER eager|compile, or amp for bf16 eager):
  MODEL_PRECISION_SIDE_{epoch1,steady,train,process}_s   seconds
  MODEL_PRECISION_{first,steady,run,process}_vs_PEER     PyTorch's time / strand's (>1: faster)
  MODEL_PRECISION_SIDE_rounds, MODEL_PRECISION_rounds     rounds per side (those that failed)
  basset_bf16_auroc_delta     strand's test mean auROC, bf16 minus fp32 (medians)
and the issue's named ones: basset_bf16_vs_amp (= basset_bf16_run_vs_amp, the whole run) and
bpnet_fp32_vs_eager (= bpnet_fp32_steady_vs_eager, the steady-state epochs).
"""
import csv
import json
import os
import statistics
import sys

COLUMNS = ["model", "precision", "side", "exit", "process_s", "train_s", "epoch1_s", "steady_s",
           "validation_s", "test_auroc", "setup_s", "compile_s"]
# Targets of issue 36 (strand / PyTorch, same GPU, same math mode).
TARGETS = {("basset", "fp32", "steady", "eager"): 1.5, ("basset", "fp32", "run", "eager"): 1.2,
           ("basset", "bf16", "run", "amp"): 1.2, ("bpnet", "fp32", "steady", "eager"): 1.5}
ALIASES = {"basset_bf16_vs_amp": "basset_bf16_run_vs_amp",
           "bpnet_fp32_vs_eager": "bpnet_fp32_steady_vs_eager"}


def append(path, row):
    new = not os.path.exists(path)
    with open(path, "a", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS, delimiter="\t", extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow({k: row.get(k, "") for k in COLUMNS})


def fmt(value):
    return "" if value is None else f"{value:.4f}"


def strand_row(model, precision, run_dir, code, process):
    row = {"model": model, "precision": precision, "side": "strand", "exit": code,
           "process_s": process}
    if code != "0":
        return row
    report = json.load(open(os.path.join(run_dir, "report.json")))
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        epochs = [float(r["epoch_seconds"]) for r in csv.DictReader(f)]
    row.update(train_s=fmt(report["train_seconds"]), epoch1_s=fmt(epochs[0]),
               steady_s=fmt(statistics.median(epochs[1:]) if len(epochs) > 1 else None),
               validation_s=fmt(report["train_seconds"] - sum(epochs)))
    auroc = (report.get("test") or {}).get("mean_auroc")
    row["test_auroc"] = fmt(auroc)
    return row


def peer_row(model, precision, side, path, code, process):
    row = {"model": model, "precision": precision, "side": side, "exit": code,
           "process_s": process}
    if code != "0":
        return row
    result = json.load(open(path))["rounds"][0]
    steps = [e["steps_s"] for e in result["epochs"]]
    row.update(train_s=fmt(result["train_seconds"]), epoch1_s=fmt(steps[0]),
               steady_s=fmt(statistics.median(steps[1:]) if len(steps) > 1 else None),
               validation_s=fmt(sum(e["valid_s"] for e in result["epochs"])),
               setup_s=fmt(result["setup_seconds"]),
               compile_s=fmt(result["compile_warmup_seconds"] or None))
    return row


def read_runs(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def median_of(runs, key):
    values = [float(r[key]) for r in runs if r["exit"] == "0" and r.get(key)]
    return statistics.median(values) if values else None


def summary(path, figures_path=None):
    runs = read_runs(path) if os.path.exists(path) else []
    figures, lines = {}, []
    groups = sorted({(r["model"], r["precision"]) for r in runs},
                    key=lambda g: (g[0], g[1] != "fp32"))
    for model, precision in groups:
        prefix = f"{model}_{precision}"
        sides = {}
        for side in ("strand", "eager", "compile"):
            chosen = [r for r in runs if (r["model"], r["precision"], r["side"]) ==
                      (model, precision, side)]
            if not chosen:
                continue
            name = "amp" if (side == "eager" and precision == "bf16") else side
            sides[name] = {k: median_of(chosen, f"{k}_s")
                           for k in ("epoch1", "steady", "train", "process")}
            sides[name]["rounds"] = sum(r["exit"] == "0" for r in chosen)
            sides[name]["failed"] = sum(r["exit"] != "0" for r in chosen)
            for k in ("epoch1", "steady", "train", "process"):
                if sides[name][k] is not None:
                    figures[f"{prefix}_{name}_{k}_s"] = f"{sides[name][k]:.3f}"
            figures[f"{prefix}_{name}_rounds"] = str(sides[name]["rounds"])
        figures[f"{prefix}_rounds"] = ", ".join(
            f"{name} {s['rounds']}" + (f" (+{s['failed']} failed)" if s["failed"] else "")
            for name, s in sides.items())
        strand = sides.get("strand")
        for peer in ("eager", "amp", "compile"):
            if strand is None or peer not in sides:
                continue
            parts = []
            for figure, key in (("first", "epoch1"), ("steady", "steady"), ("run", "train"),
                                ("process", "process")):
                mine, theirs = strand[key], sides[peer][key]
                if not mine or not theirs:
                    continue
                ratio = theirs / mine
                figures[f"{prefix}_{figure}_vs_{peer}"] = f"{ratio:.3f}"
                target = TARGETS.get((model, precision, figure, peer))
                verdict = (f" (target >= {target}x: {'met' if ratio >= target else 'MISSED'})"
                           if target else "")
                parts.append(f"{figure} {mine:.3f} vs {theirs:.3f} s = {ratio:.2f}x{verdict}")
            if parts:
                lines.append(f"RESULT {model} {precision} strand vs pytorch {peer}: "
                             + "; ".join(parts))
    deltas = {}
    for precision in ("fp32", "bf16"):
        chosen = [r for r in runs if (r["model"], r["precision"], r["side"]) ==
                  ("basset", precision, "strand")]
        deltas[precision] = median_of(chosen, "test_auroc")
    if deltas["fp32"] is not None and deltas["bf16"] is not None:
        delta = deltas["bf16"] - deltas["fp32"]
        figures["basset_bf16_auroc_delta"] = f"{delta:+.4f}"
        lines.append(f"RESULT basset test mean auROC: fp32 {deltas['fp32']:.4f}, bf16 "
                     f"{deltas['bf16']:.4f}: bf16 - fp32 {delta:+.4f} (target within 0.005: "
                     f"{'met' if abs(delta) <= 0.005 + 1e-9 else 'MISSED'})")
    for alias, source in ALIASES.items():
        if source in figures:
            figures[alias] = figures[source]
    for line in lines:
        print(line)
    if figures_path:
        with open(figures_path, "w") as out:
            for name, value in figures.items():
                out.write(f"{name}\t{value}\n")
    return figures


def self_test():
    """Made-up rounds with known medians: every ratio, alias and the auROC delta."""
    import tempfile
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "runs.tsv")
        rows = [("basset", "fp32", "strand", "0", 10, 8, 3, 1, 0.90),
                ("basset", "fp32", "strand", "0", 12, 10, 3, 1, 0.92),
                ("basset", "fp32", "eager", "0", 20, 15, 4, 3, None),
                ("basset", "fp32", "eager", "124", 50, None, None, None, None),
                ("basset", "bf16", "strand", "0", 8, 6, 2, 1, 0.905),
                ("basset", "bf16", "eager", "0", 9, 9, 2, 2, None),
                ("bpnet", "fp32", "strand", "0", 10, 8, 4, 2, None),
                ("bpnet", "fp32", "eager", "0", 30, 24, 8, 5, None)]
        for model, precision, side, code, process, train, first, steady, auroc in rows:
            append(path, {"model": model, "precision": precision, "side": side, "exit": code,
                          "process_s": process, "train_s": train, "epoch1_s": first,
                          "steady_s": steady, "test_auroc": auroc})
        figures = summary(path)
    expected = {"basset_fp32_strand_train_s": "9.000", "basset_fp32_eager_train_s": "15.000",
                "basset_fp32_rounds": "strand 2, eager 1 (+1 failed)",
                "basset_fp32_steady_vs_eager": "3.000", "basset_fp32_run_vs_eager": "1.667",
                "basset_fp32_first_vs_eager": "1.333", "basset_fp32_process_vs_eager": "1.818",
                "basset_bf16_run_vs_amp": "1.500", "basset_bf16_vs_amp": "1.500",
                "basset_bf16_steady_vs_amp": "2.000", "bpnet_fp32_steady_vs_eager": "2.500",
                "bpnet_fp32_vs_eager": "2.500", "basset_bf16_auroc_delta": "-0.0050"}
    wrong = {k: (figures.get(k), v) for k, v in expected.items() if figures.get(k) != v}
    if wrong:
        sys.exit(f"self-test FAILED: (got, expected) {wrong}")
    print(f"self-test passed: {len(expected)} figures")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    command, path = sys.argv[1], sys.argv[2]
    if command in ("strand", "peer") and len(sys.argv) == (8 if command == "strand" else 9):
        make = strand_row if command == "strand" else peer_row
        try:
            row = make(*sys.argv[3:])
        except (OSError, KeyError, IndexError, ValueError) as error:  # exit 0, output unreadable
            row = make(*sys.argv[3:-2], f"unreadable ({error!r})"[:80], sys.argv[-1])
        append(path, row)
    elif command == "summary":
        figures = None
        if "--figures" in sys.argv:
            figures = sys.argv[sys.argv.index("--figures") + 1]
        summary(path, figures)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
