"""The shared part of the quality peers (bench/quality/peer_*.py): reading strand's data files
with plain Python, one-hot encoding, strand's Glorot initialisation, strand's resolved config
(the recipe), checkpoints, and the metrics strand's evaluation reports, computed the same way
for both programs.

Metric definitions follow train/metrics.cpp and train/regression_metrics.cpp:
- auROC: the Mann-Whitney statistic with ties counted one half, per task; the mean over tasks
  with both classes present (strand's mean_auroc).
- profile Pearson: the Pearson correlation of each (window, track) profile of predicted
  probabilities against the observed counts, averaged over profiles whose correlation is
  defined (a profile with no reads is skipped), as strand's profile_pearson.
- Spearman: the Pearson correlation of average ranks (ties share their mean rank).
"""
import json
import pathlib
import sys

import numpy as np
import torch

# The repository's one safetensors reader for Python (the checkpoint-in-PyTorch check's).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import check_checkpoint_in_pytorch as checkpoint_reader  # noqa: E402

# strand's base codes (data/encoding.h): A C G T = 0 1 2 3, anything else N (an all-zero column).
_CODES = np.full(256, 4, dtype=np.uint8)
for _code, _bases in enumerate(("Aa", "Cc", "Gg", "Tt")):
    for _base in _bases:
        _CODES[ord(_base)] = _code


def read_fasta(path):
    """{name: sequence} in file order (a record's name is its header up to the first space)."""
    records, name, parts = {}, None, []
    with open(path) as handle:
        for line in handle:
            line = line.rstrip("\n")
            if line.startswith(">"):
                if name is not None:
                    records[name] = "".join(parts)
                name, parts = line[1:].split()[0], []
            elif line:
                parts.append(line.strip())
    if name is not None:
        records[name] = "".join(parts)
    return records


def codes_of(sequence):
    return _CODES[np.frombuffer(sequence.encode(), dtype=np.uint8)]


def one_hot(codes):
    """uint8 codes (..., L) -> float32 one-hot (..., 4, L); N is all zeros."""
    eye = np.concatenate([np.eye(4, dtype=np.float32), np.zeros((1, 4), np.float32)])
    return np.moveaxis(eye[codes], -1, -2)


def reverse_complement_codes(codes):
    """Reverses along the last axis and complements (A<->T, C<->G; N stays N)."""
    complement = np.array([3, 2, 1, 0, 4], dtype=np.uint8)
    return complement[codes[..., ::-1]]


def read_records(fasta, tsv):
    """A records split as strand reads it: the TSV's rows (name, label...) in order, each with
    its FASTA record. Returns (codes (N, L) uint8, labels (N, T) float32, task names, names)."""
    sequences = read_fasta(fasta)
    with open(tsv) as handle:
        header = handle.readline().rstrip("\n").split("\t")
        rows = [line.rstrip("\n").split("\t") for line in handle if line.strip()]
    names = [row[0] for row in rows]
    codes = np.stack([codes_of(sequences[name]) for name in names])
    labels = np.array([[float(v) for v in row[1:]] for row in rows], dtype=np.float32)
    return codes, labels, header[1:], names


def glorot_init(model):
    """strand's initialisation (layers/conv1d.cpp, layers/dense.cpp): Glorot uniform weights
    (fans counting the kernel taps, as torch's xavier_uniform_) and zero biases for every
    Conv1d and Linear; BatchNorm keeps weight 1, bias 0."""
    for module in model.modules():
        if isinstance(module, (torch.nn.Conv1d, torch.nn.Linear)):
            torch.nn.init.xavier_uniform_(module.weight)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)


@torch.no_grad()
def apply_max_norm(model, max_norm):
    """strand's max_weight_norm (train/fit.cpp, optim/clipping.cpp): after every step, each
    parameter with 2 or more dimensions (Conv1d and Linear weights, output unit first) has
    every output unit's L2 norm capped at max_norm: w *= max_norm / max(norm, max_norm)."""
    for parameter in model.parameters():
        if parameter.dim() >= 2:
            norms = parameter.flatten(1).norm(dim=1).clamp(min=max_norm)
            shape = (-1,) + (1,) * (parameter.dim() - 1)
            parameter.mul_((max_norm / norms).view(shape))


def load_recipe(path):
    """strand's resolved config (`strand train ... --print-config`, or a run's config.json)."""
    return json.loads(pathlib.Path(path).read_text())


def make_optimizer(recipe, parameters):
    """The optimizer of strand's config, with strand's resolved hyper-parameters."""
    o = recipe["optimizer"]
    if o["name"] == "rmsprop":
        return torch.optim.RMSprop(parameters, lr=o["learning_rate"], alpha=o["alpha"],
                                   eps=o["eps"], weight_decay=o["weight_decay"],
                                   momentum=o["momentum"], centered=o.get("centered", False))
    if o["name"] == "adam":
        return torch.optim.Adam(parameters, lr=o["learning_rate"], betas=(o["beta1"], o["beta2"]),
                                eps=o["eps"], weight_decay=o["weight_decay"])
    raise SystemExit(f"unsupported optimizer {o['name']!r}")


class EarlyStopping:
    """strand's EarlyStopping (train/callbacks.cpp): monitor val_loss; an improvement is a value
    below best - min_delta; stop after `patience` epochs without one; at the end restore the best
    epoch's parameters and buffers (strand's parameters() includes BatchNorm's running
    statistics)."""

    def __init__(self, patience, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.best_epoch, self.wait, self.state = float("inf"), 0, 0, None

    def update(self, model, epoch, value):
        """Returns True when training should stop."""
        if value < self.best - self.min_delta:
            self.best, self.best_epoch, self.wait = value, epoch, 0
            self.state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            return False
        self.wait += 1
        return self.wait >= self.patience

    def restore(self, model):
        if self.state is not None:
            model.load_state_dict(self.state)


def read_safetensors(path):
    """A strand checkpoint as {name: tensor}: the reader of scripts/check_checkpoint_in_pytorch.py
    (numpy only), without the metadata."""
    return checkpoint_reader.read_safetensors(path)[0]


# ---- metrics -----------------------------------------------------------------------------------

def average_ranks(values):
    """1-based ranks, ties sharing their mean rank."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    ranks = np.empty(len(values), dtype=np.float64)
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        ranks[order[i:j + 1]] = 0.5 * (i + j) + 1.0
        i = j + 1
    return ranks


def auroc(scores, labels):
    """Area under the ROC curve (ties count one half); NaN without both classes."""
    labels = np.asarray(labels) > 0.5
    positives, negatives = labels.sum(), (~labels).sum()
    if positives == 0 or negatives == 0:
        return float("nan")
    ranks = average_ranks(scores)
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def task_aurocs(scores, labels):
    """Per-task auROC of (N, T) scores and labels, and their mean over defined tasks."""
    per_task = [auroc(scores[:, t], labels[:, t]) for t in range(labels.shape[1])]
    defined = [a for a in per_task if np.isfinite(a)]
    return per_task, float(np.mean(defined)) if defined else float("nan")


def pearson(x, y):
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    x, y = x - x.mean(), y - y.mean()
    denominator = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / denominator) if denominator > 0 else float("nan")


def spearman(x, y):
    return pearson(average_ranks(x), average_ranks(y))


def mean_profile_pearson(predicted, observed):
    """Mean over (window, track) profiles of the Pearson correlation along positions of
    (N, S, L) arrays; profiles whose correlation is undefined are skipped."""
    p = predicted.reshape(-1, predicted.shape[-1]).astype(np.float64)
    o = observed.reshape(-1, observed.shape[-1]).astype(np.float64)
    p = p - p.mean(axis=1, keepdims=True)
    o = o - o.mean(axis=1, keepdims=True)
    denominator = np.sqrt((p * p).sum(axis=1) * (o * o).sum(axis=1))
    defined = denominator > 0
    r = (p * o).sum(axis=1)[defined] / denominator[defined]
    return float(r.mean()) if r.size else float("nan")


def write_json(path, value):
    pathlib.Path(path).write_text(json.dumps(value, indent=2) + "\n")
