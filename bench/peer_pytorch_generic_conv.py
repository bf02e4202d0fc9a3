#!/usr/bin/env python3
"""PyTorch peer of bench/e2e_generic_conv.cpp: the same generic three-conv network.

Conv1d(4, 32, 19, padding="same") -> ReLU -> Conv1d(32, 32, 11, stride 4) -> ReLU
-> Conv1d(32, 32, 7, stride 4, dilation 2) -> ReLU -> Flatten -> Linear(896, 64) -> ReLU
-> Linear(64, 1), BCEWithLogitsLoss, Adam(lr 1e-3), batch 64, 500 bp one-hot float32 input
prepared before timing.

Usage: peer_pytorch_generic_conv.py [--epochs N] [--threads N] [--samples N] [--batch N]
                                    [--length N] [--compile]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_harness  # noqa: E402


def build_model(args):
    convs = torch.nn.Sequential(
        torch.nn.Conv1d(4, 32, 19, padding="same"),
        torch.nn.ReLU(),
        torch.nn.Conv1d(32, 32, 11, stride=4),
        torch.nn.ReLU(),
        torch.nn.Conv1d(32, 32, 7, stride=4, dilation=2),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
    )
    features = convs(torch.zeros(1, 4, args.length)).shape[1]
    return torch.nn.Sequential(
        convs,
        torch.nn.Linear(features, 64),
        torch.nn.ReLU(),
        torch.nn.Linear(64, 1),
    )


if __name__ == "__main__":
    peer_harness.run("generic_conv", __doc__.splitlines()[0], build_model,
                     {"epochs": 3, "samples": 6400, "batch": 64})
