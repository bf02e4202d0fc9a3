#!/usr/bin/env python3
"""Checks a `strand train` run directory with the Python ecosystem's own readers.

- TensorBoard events (tensorboard/ loaded with tensorboard's EventAccumulator): every column of
  metrics.csv appears as "epoch/<column>" with one point per epoch (step = epoch number) whose
  value equals the CSV's (float32 precision); step scalars ("step/loss", ...) are present.
- Checkpoints (checkpoints/{best,last}.safetensors loaded with safetensors.numpy): the parameter
  names and shapes of the model in config.json (reference model: 0.weight (16, 4, 15),
  0.bias (16,), 3.weight (1, 16), 3.bias (1,)); last also holds optimizer.* state; metadata
  has epochs_completed, global_step, seed and early_stopping.* and matches metrics.csv/steps.csv.
- report.json: test metrics present and epochs_run equal to the rows of metrics.csv.

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


def expected_parameters(config):
    """Parameter names and shapes of the Sequential described by config["model"]."""
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
            params[f"{i}.weight"] = (layer["units"], shape[0])
            if layer["use_bias"]:
                params[f"{i}.bias"] = (layer["units"],)
            shape = [layer["units"]]
        elif kind == "GlobalMaxPool1D":
            shape = [shape[0]]
        elif kind == "Flatten":
            shape = [math.prod(shape)]
    return params


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

    # ---- TensorBoard ----
    accumulator = event_accumulator.EventAccumulator(
        str(run / "tensorboard"), size_guidance={event_accumulator.SCALARS: 0})
    accumulator.Reload()
    tags = set(accumulator.Tags()["scalars"])
    print(f"tensorboard tags: {sorted(tags)}")
    for column in metrics[0].keys():
        if column == "epoch":
            continue
        tag = f"epoch/{column}"
        if tag not in tags:
            check(False, f"tag {tag} is in the event files")
            continue
        # A resumed run may repeat an epoch it redid; the last value written is the one kept.
        points = {e.step: e.value for e in accumulator.Scalars(tag)}
        csv_points = {int(row["epoch"]): float(row[column]) for row in metrics}
        same_steps = sorted(points) == sorted(csv_points)
        close = same_steps and all(
            (math.isnan(v) and math.isnan(points[s])) or
            math.isclose(points[s], v, rel_tol=1e-6, abs_tol=1e-6)
            for s, v in csv_points.items())
        check(close, f"{tag}: {len(points)} points equal metrics.csv column '{column}'")
    every = config["tensorboard_every_steps"]
    if every > 0 and int(steps[-1]["step"]) >= every:
        check("step/loss" in tags, "step/loss is logged")
        if "step/loss" in tags:
            step_losses = {int(r["step"]): float(r["loss"]) for r in steps}
            points = accumulator.Scalars("step/loss")
            check(all(p.step % every == 0 for p in points),
                  f"step/loss logged every {every} steps")
            check(all(math.isclose(p.value, step_losses[p.step], rel_tol=1e-6) for p in points),
                  "step/loss values equal steps.csv")

    # ---- Checkpoints ----
    expected = expected_parameters(config)
    print("expected parameters: " + ", ".join(f"{k} {v}" for k, v in expected.items()))
    for name in ("best", "last"):
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
            monitor = config["early_stopping"]["monitor"]
            values = [float(r[monitor]) for r in metrics]
            best = (min if "loss" in monitor else max)(values)
            check(math.isclose(float(metrics[best_epoch - 1][monitor]), best, rel_tol=1e-12),
                  f"best: epoch {best_epoch} has the best {monitor} {best:.6f}")

    # ---- Report ----
    report = json.loads((run / "report.json").read_text())
    check(report["epochs_run"] == len(metrics), f"report: epochs_run {report['epochs_run']}")
    if report.get("test"):
        t = report["test"]
        print(f"report: test loss {t['loss']:.4f} accuracy {t['accuracy']:.4f} "
              f"auROC {t['auroc']:.4f} auPRC {t['auprc']:.4f}; best epoch {report['best_epoch']}"
              f"; {report['wall_seconds']:.1f} s; {report['samples_per_second']:.0f} samples/s")

    print("all checks passed" if not failures else f"{len(failures)} check(s) FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
