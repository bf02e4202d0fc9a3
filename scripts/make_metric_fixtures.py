#!/usr/bin/env python3
"""Writes tests/train/fixtures/metrics.json: expected accuracy/auROC/auPRC from scikit-learn.

Needs numpy and scikit-learn (the Debian system python /usr/bin/python3 has both).
Run from anywhere:  /usr/bin/python3 scripts/make_metric_fixtures.py

Conventions shared with train/metrics.h:
  * accuracy predicts positive when score > 0.5;
  * auROC is NaN (JSON null) when only one class is present (sklearn raises);
  * auPRC is NaN (JSON null) when there are no positives; all-positive gives 1.0 (as sklearn).
"""
import json
import pathlib

import numpy as np
import sklearn
from sklearn.metrics import average_precision_score, roc_auc_score

THRESHOLD = 0.5


def expected(scores, labels):
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    acc = float(np.mean((scores > THRESHOLD) == (labels == 1))) if len(labels) else None
    both = 0 < labels.sum() < len(labels)
    auroc = float(roc_auc_score(labels, scores)) if both else None
    if labels.sum() == 0:
        auprc = None
    else:
        auprc = float(average_precision_score(labels, scores))
    return acc, auroc, auprc


def case(name, scores, labels):
    acc, auroc, auprc = expected(scores, labels)
    return {
        "name": name,
        # repr-exact doubles: json writes the shortest round-tripping form.
        "scores": [float(s) for s in scores],
        "labels": [float(v) for v in labels],
        "accuracy": acc,
        "auroc": auroc,
        "auprc": auprc,
    }


def main():
    cases = []
    rng = np.random.default_rng(0)
    n = 1000
    y = (rng.random(n) < 0.3).astype(float)
    s = rng.random(n) * 0.6 + 0.4 * y
    cases.append(case("continuous_seed0", s, y))

    rng = np.random.default_rng(1)
    n = 800
    y = (rng.random(n) < 0.5).astype(float)
    s = np.round(rng.random(n) * 0.5 + 0.3 * y, 1)  # ~9 distinct values: heavy ties
    cases.append(case("heavy_ties_seed1", s, y))

    rng = np.random.default_rng(2)
    n = 600
    y = (rng.random(n) < 0.1).astype(float)
    s = rng.integers(0, 3, n) / 2.0  # only 0, 0.5, 1 (0.5 sits on the threshold)
    cases.append(case("three_levels_imbalanced_seed2", s, y))

    rng = np.random.default_rng(3)
    n = 2000
    y = (rng.random(n) < 0.5).astype(float)
    logits = rng.normal(size=n) + 1.5 * y
    s = (1.0 / (1.0 + np.exp(-logits))).astype(np.float32).astype(np.float64)  # float32 outputs
    cases.append(case("float32_sigmoid_seed3", s, y))

    cases.append(case("all_tied", [0.5] * 10, [0, 1, 0, 1, 1, 0, 0, 0, 1, 0]))
    cases.append(case("hand_example", [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]))
    cases.append(case("perfect", [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0, 0, 0, 1, 1, 1]))
    cases.append(case("inverted", [0.9, 0.8, 0.7, 0.3, 0.2, 0.1], [0, 0, 0, 1, 1, 1]))
    cases.append(case("all_positive", [0.2, 0.6, 0.6, 0.9], [1, 1, 1, 1]))
    cases.append(case("all_negative", [0.2, 0.6, 0.6, 0.9], [0, 0, 0, 0]))

    # Accumulator case: two tasks, NaN labels and a mask. Expected values are computed per task on
    # the kept entries only; the C++ test feeds it in uneven batches.
    rng = np.random.default_rng(4)
    n, tasks = 300, 2
    y = (rng.random((n, tasks)) < 0.4).astype(float)
    s = np.round(rng.random((n, tasks)) * 0.7 + 0.3 * y, 2)
    y_with_nan = y.copy()
    y_with_nan[rng.random((n, tasks)) < 0.1] = np.nan
    mask = (rng.random((n, tasks)) >= 0.15).astype(float)
    per_task = []
    for t in range(tasks):
        keep = (mask[:, t] != 0) & ~np.isnan(y_with_nan[:, t])
        acc, auroc, auprc = expected(s[keep, t], y[keep, t])
        per_task.append({"count": int(keep.sum()), "accuracy": acc, "auroc": auroc,
                         "auprc": auprc})
    accumulator = {
        "num_tasks": tasks,
        "scores": [float(v) for v in s.reshape(-1)],
        # NaN labels are written as null (JSON has no NaN).
        "labels": [None if np.isnan(v) else float(v) for v in y_with_nan.reshape(-1)],
        "mask": [float(v) for v in mask.reshape(-1)],
        "expected": per_task,
    }

    out = {
        "generator": "scripts/make_metric_fixtures.py",
        "sklearn_version": sklearn.__version__,
        "threshold": THRESHOLD,
        "cases": cases,
        "accumulator": accumulator,
    }
    path = pathlib.Path(__file__).resolve().parent.parent / "tests/train/fixtures/metrics.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out) + "\n")
    print(f"wrote {path} ({len(cases)} cases, sklearn {sklearn.__version__})")


if __name__ == "__main__":
    main()
