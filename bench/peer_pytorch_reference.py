#!/usr/bin/env python3
"""PyTorch peer of bench/e2e_reference_model.cpp: trains the same reference model.

Conv1d(4, 16, 15) -> ReLU -> global max pool -> Linear(16, 1), BCEWithLogitsLoss, Adam(lr 1e-3),
batch 128, 500 bp. The input is one-hot float32 (B, 4, 500), prepared before timing, as a
PyTorch user would feed it. Prints samples/s in the same format as the strand program so
bench/run_reference_comparison.sh and bench/run_model_comparison.sh can parse both.

Usage: peer_pytorch_reference.py [--epochs N] [--threads N] [--samples N] [--batch N]
                                 [--length N] [--compile]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_harness  # noqa: E402


def build_model(args):
    return torch.nn.Sequential(
        torch.nn.Conv1d(4, 16, 15),
        torch.nn.ReLU(),
        torch.nn.AdaptiveMaxPool1d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(16, 1),
    )


if __name__ == "__main__":
    peer_harness.run("reference", __doc__.splitlines()[0], build_model, {})
