"""The presets of `strand train --model reference|basset|bpnet` in PyTorch, loaded from a strand
checkpoint, in the form tangermeme's attribution methods take: every nonlinearity an nn.Module
(tangermeme's DeepLIFT rules attach to modules: nn.ReLU, nn.Sigmoid, nn.MaxPool1d), global max
pooling as nn.MaxPool1d over the whole length, and wrappers that return the one number per
sequence that `strand explain` explains (explain/target.h):

  Column(model, t)        the logit (or, predictions=True, the sigmoid) of task t
  Counts(bpnet)           BPNet's counts head
  Profile(bpnet, track)   sum_l softmax(z)_l (z_l - mean z), the softmax held constant (detached),
                          per track, or summed over tracks (track=None): bpnet-lite's and
                          chrombpnet's profile wrapper with strand's per-track softmax

Shared by compare_with_tangermeme.py (equality) and speed_explain.py (timing).
"""
import json
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from check_checkpoint_in_pytorch import read_safetensors  # noqa: E402

nn = torch.nn


class Reference(nn.Module):
    """configs/reference.json: Conv1D(16, 15) - ReLU - GlobalMaxPool1D - Dense(tasks)."""

    def __init__(self, length, tasks, filters=16, kernel=15):
        super().__init__()
        self.conv = nn.Conv1d(4, filters, kernel)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool1d(length - kernel + 1)
        self.dense = nn.Linear(filters, tasks)

    def forward(self, x):
        return self.dense(self.pool(self.relu(self.conv(x))).squeeze(-1))

    def load(self, weights):
        self.load_state_dict({"conv.weight": weights["0.weight"], "conv.bias": weights["0.bias"],
                              "dense.weight": weights["3.weight"],
                              "dense.bias": weights["3.bias"]})


def basset(length, tasks):
    """configs/basset.json, layer for layer (indices = strand's, so a checkpoint loads by name);
    the final Sigmoid left out (Column applies it for predictions)."""
    flat = ((((length - 18) // 3 - 10) // 4 - 6) // 4) * 200
    return nn.Sequential(
        nn.Conv1d(4, 300, 19), nn.BatchNorm1d(300), nn.ReLU(), nn.MaxPool1d(3),
        nn.Conv1d(300, 200, 11), nn.BatchNorm1d(200), nn.ReLU(), nn.MaxPool1d(4),
        nn.Conv1d(200, 200, 7), nn.BatchNorm1d(200), nn.ReLU(), nn.MaxPool1d(4),
        nn.Flatten(),
        nn.Linear(flat, 1000), nn.BatchNorm1d(1000), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(1000, 1000), nn.BatchNorm1d(1000), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(1000, tasks))


class BPNet(nn.Module):
    """configs/bpnet.json: Conv1D(64, 21, same) - ReLU, 8 residual blocks x + ReLU(Conv1D(64, 3,
    dilation 2^i, same)), the centre crop to Lp + 74, the profile head Conv1D(S, 75) and the
    counts head GlobalAvgPool1D - Dense(1). Attribute names are strand's node names."""

    def __init__(self, tracks, profile_length, filters=64, layers=8):
        super().__init__()
        self.profile_length = profile_length
        self.conv = nn.Conv1d(4, filters, 21, padding=10)
        self.relu = nn.ReLU()
        self.blocks = layers
        for i in range(1, layers + 1):
            setattr(self, f"block{i}_conv",
                    nn.Conv1d(filters, filters, 3, dilation=2 ** i, padding=2 ** i))
            setattr(self, f"block{i}_relu", nn.ReLU())
        self.profile_conv = nn.Conv1d(filters, tracks, 75)
        self.counts = nn.Linear(filters, 1)

    def forward(self, x):
        h = self.relu(self.conv(x))
        for i in range(1, self.blocks + 1):
            h = h + getattr(self, f"block{i}_relu")(getattr(self, f"block{i}_conv")(h))
        keep = self.profile_length + 74
        start = (h.shape[-1] - keep) // 2
        crop = h[..., start:start + keep]
        return self.profile_conv(crop), self.counts(crop.mean(dim=-1))


class Column(nn.Module):
    def __init__(self, model, task, predictions=False):
        super().__init__()
        self.model, self.task = model, task
        self.sigmoid = nn.Sigmoid() if predictions else None

    def forward(self, x):
        y = self.model(x)[:, self.task:self.task + 1]
        return self.sigmoid(y) if self.sigmoid is not None else y


class Counts(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)[1]


class Profile(nn.Module):
    def __init__(self, model, track=None):
        super().__init__()
        self.model, self.track = model, track

    def forward(self, x):
        z = self.model(x)[0]
        weights = torch.softmax(z, dim=-1).detach()
        values = ((z - z.mean(dim=-1, keepdim=True)) * weights).sum(dim=-1)
        if self.track is None:
            return values.sum(dim=-1, keepdim=True)
        return values[:, self.track:self.track + 1]


def load_run(run_dir):
    """(model, dimensions) of a strand run: the preset its config.json describes, with the
    weights of its best (else last) checkpoint, in evaluation mode."""
    run_dir = pathlib.Path(run_dir)
    config = json.loads((run_dir / "config.json").read_text())
    checkpoint = run_dir / "checkpoints" / "best.safetensors"
    if not checkpoint.exists():
        checkpoint = run_dir / "checkpoints" / "last.safetensors"
    weights, metadata = read_safetensors(checkpoint)
    length = int(metadata["model.data.length"])
    tasks = int(metadata["model.data.tasks"])
    model_spec = config["model"]
    if isinstance(model_spec, dict):
        model = BPNet(int(metadata["model.data.profile_tracks"]),
                      int(metadata["model.data.profile_length"]))
        model.load_state_dict(weights, strict=True)
    elif len(model_spec) == 5:
        model = Reference(length, tasks, model_spec[0]["filters"], model_spec[0]["kernel_size"])
        model.load(weights)
    else:
        model = basset(length, tasks)
        model.load_state_dict(weights, strict=True)
    model.eval()
    return model, {"length": length, "tasks": tasks}


def read_fasta(path):
    records, name = {}, None
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith(">"):
            name = line[1:].split()[0]
            records[name] = []
        elif name is not None:
            records[name].append(line.strip())
    return {k: "".join(v) for k, v in records.items()}


def one_hot(sequences):
    """(N, 4, L) float32 of equal-length sequences; N (or any other letter) an all-zero column."""
    out = np.zeros((len(sequences), 4, len(sequences[0])), dtype=np.float32)
    for i, sequence in enumerate(sequences):
        codes = np.frombuffer(sequence.upper().encode(), dtype=np.uint8)
        for row, base in enumerate(b"ACGT"):
            out[i, row, codes == base] = 1.0
    return torch.from_numpy(out)


def read_npz(path):
    return np.load(path)["arr_0"]
