#!/usr/bin/env python3
"""Checks a `strand train` run directory with the Python ecosystem's own readers.

- TensorBoard events (each run directory of tensorboard/ loaded with tensorboard's
  EventAccumulator), laid out as Keras writes them: every column of metrics.csv appears as
  "epoch_<column>" in tensorboard/train, or for a "val_<name>" column as "epoch_<name>" in
  tensorboard/validation (the same tag, so TensorBoard overlays the two curves), with one point
  per epoch that has a value (step = epoch number) equal to the CSV's (float32 precision);
  "batch_loss" in train every tensorboard_every_steps steps equals steps.csv; and
  tensorboard/test holds every test figure of report.json as "epoch_<key>" at step epochs_run.
- Checkpoints (checkpoints/{best,last}.safetensors loaded with safetensors.numpy): the parameter
  names and shapes of the model in config.json (reference model: 0.weight (16, 4, 15),
  0.bias (16,), 3.weight (1, 16), 3.bias (1,)); last also holds optimizer.* state; metadata
  has epochs_completed, global_step, seed and early_stopping.* and matches metrics.csv/steps.csv.
- Best checkpoint: its epoch has the best value of report.json's monitor in metrics.csv (losses
  minimised, everything else maximised).
- report.json: epochs_run equal to the rows of metrics.csv; its per-task figures name the tasks
  of "task_names".

Needs: pip install tensorboard safetensors numpy (the pyenv python3 has them).
Usage: python3 scripts/check_run_outputs.py RUN_DIR
Exits 1 listing every failed check.
"""
import csv
import json
import math
import pathlib
import sys

from safetensors import safe_open
from safetensors.numpy import load_file
from tensorboard.backend.event_processing import event_accumulator

failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)


def is_loss(key):
    """strand's rule (train/metric_names.h): the name before any "/<task>" ends in "loss"."""
    return key.split("/", 1)[0].endswith("loss")


def flat_figures(split):
    """A split of report.json back as Evaluation::values keys: "auroc", "auroc/CTCF", and with
    several outputs "counts_pearson", "counts_pearson/CTCF"; null (undefined) as NaN."""
    def figures(node, prefix):
        out = {}
        for key, value in node.items():
            if key == "tasks":
                for task, per_task in value.items():
                    for metric, v in per_task.items():
                        out[f"{prefix}{metric}/{task}"] = math.nan if v is None else v
            elif key not in ("count", "labels", "outputs"):
                out[prefix + key] = math.nan if value is None else value
        return out
    flat = figures(split, "")
    for output, node in split.get("outputs", {}).items():
        flat.update(figures(node, output + "_"))
    return flat


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)


def load_run(path):
    """The scalars of one TensorBoard run directory: {tag: {step: value}} (the last value
    written at a step wins: a resumed run may repeat an epoch it redid)."""
    if not path.is_dir():
        return {}
    accumulator = event_accumulator.EventAccumulator(
        str(path), size_guidance={event_accumulator.SCALARS: 0})
    accumulator.Reload()
    return {tag: {e.step: e.value for e in accumulator.Scalars(tag)}
            for tag in accumulator.Tags()["scalars"]}


def expected_parameters(config, task_count):
    """Parameter names and shapes of the Sequential described by config["model"]. A Dense
    layer's units may be "tasks": as many as the data has (report.json's task_names)."""
    data = config["data"]
    length = data["length"] if data["source"] == "simulated" else data["window"]
    shape = [length]  # per-sample shape; base codes are (L)
    params = {}
    for i, layer in enumerate(config["model"]):
        kind = layer["type"]
        if kind == "Conv1D":
            channels = 4 if len(shape) == 1 else shape[0]
            k, stride, dilation = layer["kernel_size"], layer["stride"], layer["dilation"]
            params[f"{i}.weight"] = (layer["filters"], channels, k)
            if layer["use_bias"]:
                params[f"{i}.bias"] = (layer["filters"],)
            span = dilation * (k - 1) + 1
            out = shape[-1] if layer["padding"] == "same" else (shape[-1] - span) // stride + 1
            shape = [layer["filters"], out]
        elif kind == "Dense":
            units = task_count if layer["units"] == "tasks" else layer["units"]
            params[f"{i}.weight"] = (units, shape[0])
            if layer["use_bias"]:
                params[f"{i}.bias"] = (units,)
            shape = [units]
        elif kind == "GlobalMaxPool1D":
            shape = [shape[0]]
        elif kind == "Flatten":
            shape = [math.prod(shape)]
    return params


def check_tensorboard(run, config, metrics, steps, report):
    """TensorBoard's event files against metrics.csv, steps.csv and report.json."""
    runs = {name: load_run(run / "tensorboard" / name) for name in ("train", "validation", "test")}
    for name, scalars in runs.items():
        print(f"tensorboard/{name} tags: {sorted(scalars)}")
    for column in metrics[0].keys():
        if column == "epoch":
            continue
        validation = column.startswith("val_")
        name = "validation" if validation else "train"
        tag = "epoch_" + (column[4:] if validation else column)
        # An empty cell is a figure that epoch did not log: no point either.
        csv_points = {int(row["epoch"]): float(row[column]) for row in metrics if row[column] != ""}
        points = runs[name].get(tag)
        if points is None:
            check(not csv_points, f"{name}/{tag} is in the event files")
            continue
        close = sorted(points) == sorted(csv_points) and all(
            same(points[s], v) for s, v in csv_points.items())
        check(close, f"{name}/{tag}: {len(points)} points equal metrics.csv column '{column}'")
    every = config["tensorboard_every_steps"]
    if every > 0 and int(steps[-1]["step"]) >= every:
        points = runs["train"].get("batch_loss")
        check(points is not None, "train/batch_loss is logged")
        if points is not None:
            step_losses = {int(r["step"]): float(r["loss"]) for r in steps}
            check(all(s % every == 0 for s in points), f"batch_loss logged every {every} steps")
            check(all(math.isclose(v, step_losses[s], rel_tol=1e-6) for s, v in points.items()),
                  "batch_loss values equal steps.csv")
    if report.get("test"):
        test = flat_figures(report["test"])
        step = report["epochs_run"]
        missing = [k for k in test if step not in runs["test"].get("epoch_" + k, {})]
        check(not missing, f"test/epoch_<key> at step {step} for every test figure"
              + (f" (missing: {missing})" if missing else ""))
        check(all(same(runs["test"]["epoch_" + k][step], v) for k, v in test.items()
                  if k not in missing), "test figures in TensorBoard equal report.json's")


def check_checkpoint(run, name, expected, config, metrics, steps, report):
    """checkpoints/<name>.safetensors: the model's parameters and the metadata of a resume."""
    path = run / "checkpoints" / f"{name}.safetensors"
    tensors = load_file(str(path))
    with safe_open(str(path), framework="numpy") as f:
        metadata = f.metadata() or {}
    weights = {k: tuple(v.shape) for k, v in tensors.items() if not k.startswith("optimizer.")}
    check(weights == expected, f"{name}: parameters {weights}")
    check(all(t.dtype.name == "float32" for k, t in tensors.items() if k in expected),
          f"{name}: parameters are float32")
    for key in ("epochs_completed", "global_step", "seed", "early_stopping.best",
                "early_stopping.best_epoch", "early_stopping.wait"):
        check(key in metadata, f"{name}: metadata has {key}")
    if name == "last":
        check(any(k.startswith("optimizer.") for k in tensors), "last: holds optimizer state")
        check(int(metadata.get("epochs_completed", -1)) == len(metrics),
              f"last: epochs_completed {metadata.get('epochs_completed')} = metrics rows")
        check(int(metadata.get("global_step", -1)) == int(steps[-1]["step"]),
              f"last: global_step {metadata.get('global_step')} = last step in steps.csv")
        check(metadata.get("seed") == str(config["seed"]), "last: seed matches config.json")
    else:
        best_epoch = int(metadata.get("epoch", -1)) + 1
        # The monitored figure (without validation data a val_ monitor follows a training
        # figure: report.json says which).
        monitor = report["monitor"]
        values = [float(r[monitor]) for r in metrics if r[monitor] != ""]
        values = [v for v in values if not math.isnan(v)]
        best = (min if is_loss(monitor) else max)(values)
        check(math.isclose(float(metrics[best_epoch - 1][monitor]), best, rel_tol=1e-12),
              f"best: epoch {best_epoch} has the best {monitor} {best:.6f}")


def check_report(metrics, report):
    """report.json: its epochs and the task names of its per-task figures."""
    check(report["epochs_run"] == len(metrics), f"report: epochs_run {report['epochs_run']}")
    tasks = set(report.get("task_names", []))
    for split in ("validation", "test"):
        if not report.get(split):
            continue
        figures = flat_figures(report[split])
        named = {k.split("/", 1)[1] for k in figures if "/" in k}
        # Per-task figures of a label term name its tasks; other terms number their columns.
        check(named <= tasks or all(t.isdigit() for t in named - tasks),
              f"report: {split} per-task figures name the tasks {sorted(named)}")
        main = ", ".join(f"{k} {v:.4f}" for k, v in figures.items() if "/" not in k)
        print(f"report: {split} ({report[split]['count']} examples): {main}")
    print(f"report: best epoch {report['best_epoch']} ({report['monitor']}); "
          f"{report['wall_seconds']:.1f} s; {report['samples_per_second']:.0f} samples/s")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    run = pathlib.Path(sys.argv[1])
    config = json.loads((run / "config.json").read_text())
    with open(run / "metrics.csv", newline="") as f:
        metrics = list(csv.DictReader(f))
    with open(run / "steps.csv", newline="") as f:
        steps = list(csv.DictReader(f))
    print(f"run {run}: {len(metrics)} epochs in metrics.csv, {len(steps)} steps in steps.csv")
    report = json.loads((run / "report.json").read_text())
    check_tensorboard(run, config, metrics, steps, report)
    # A single-task run (the simulated reference) names no tasks.
    expected = expected_parameters(config, len(report.get("task_names", [])) or 1)
    print("expected parameters: " + ", ".join(f"{k} {v}" for k, v in expected.items()))
    for name in ("best", "last"):
        check_checkpoint(run, name, expected, config, metrics, steps, report)
    check_report(metrics, report)
    print("all checks passed" if not failures else f"{len(failures)} check(s) FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
