#!/usr/bin/env python3
"""PyTorch peer of bench/e2e_basset.cpp: the same Basset-class network.

Three Conv1d -> BatchNorm1d -> ReLU -> MaxPool1d blocks (300x19 pool 3, 200x11 pool 4,
200x7 pool 4), Flatten, two Linear(1000) -> BatchNorm1d -> ReLU -> Dropout(0.3) blocks,
Linear(164); BCEWithLogitsLoss over 164 tasks, RMSprop(lr 2e-3), 600 bp one-hot float32 input
prepared before timing, batch 64.

Usage: peer_pytorch_basset.py [--epochs N] [--threads N] [--samples N] [--batch N]
                              [--length N] [--compile]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_harness  # noqa: E402

TASKS = 164


def build_model(args):
    layers, channels = [], 4
    for filters, width, pool in ((300, 19, 3), (200, 11, 4), (200, 7, 4)):
        layers += [torch.nn.Conv1d(channels, filters, width), torch.nn.BatchNorm1d(filters),
                   torch.nn.ReLU(), torch.nn.MaxPool1d(pool)]
        channels = filters
    layers.append(torch.nn.Flatten())
    features = torch.nn.Sequential(*layers)(torch.zeros(2, 4, args.length)).shape[1]
    for _ in range(2):
        layers += [torch.nn.Linear(features, 1000), torch.nn.BatchNorm1d(1000), torch.nn.ReLU(),
                   torch.nn.Dropout(0.3)]
        features = 1000
    layers.append(torch.nn.Linear(features, TASKS))
    return torch.nn.Sequential(*layers)


if __name__ == "__main__":
    peer_harness.run("basset", __doc__.splitlines()[0], build_model,
                     {"epochs": 3, "samples": 1280, "batch": 64, "length": 600},
                     make_optimizer=lambda p: torch.optim.RMSprop(p, lr=2e-3), tasks=TASKS)
