#!/usr/bin/env python3
"""PyTorch peer of bench/e2e_bpnet.cpp: the same BPNet-class network (as bpnet-lite builds it).

Conv1d(4, 64, 21, padding 10) -> ReLU; 8 residual blocks x + ReLU(Conv1d(64, 64, 3, dilation
2^i, padding 2^i)); the trunk cropped to 1074 positions; profile head Conv1d(64, 2, 75) ->
(B, 2, 1000) logits; counts head mean over positions -> Linear(64, 1). Loss: multinomial NLL
per strand profile (log-softmax over positions, with the lgamma terms) + 10 x MSE of
log(1 + total counts); Adam(lr 1e-3), 2114 bp one-hot float32 input prepared before timing,
batch 64.

Usage: peer_pytorch_bpnet.py [--epochs N] [--threads N] [--samples N] [--batch N]
                             [--length N] [--compile]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_harness  # noqa: E402

FILTERS, LAYERS, STRANDS, PROFILE_LENGTH, PROFILE_WIDTH = 64, 8, 2, 1000, 75
COUNTS_WEIGHT = 10.0


class BPNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.iconv = torch.nn.Conv1d(4, FILTERS, 21, padding=10)
        self.rconvs = torch.nn.ModuleList(
            [torch.nn.Conv1d(FILTERS, FILTERS, 3, padding=2**i, dilation=2**i)
             for i in range(1, LAYERS + 1)])
        self.fconv = torch.nn.Conv1d(FILTERS, STRANDS, PROFILE_WIDTH)
        self.linear = torch.nn.Linear(FILTERS, 1)

    def forward(self, x):
        x = torch.relu(self.iconv(x))
        for conv in self.rconvs:
            x = x + torch.relu(conv(x))
        keep = PROFILE_LENGTH + PROFILE_WIDTH - 1
        start = (x.shape[2] - keep) // 2
        x = x[:, :, start:start + keep]
        return self.fconv(x), self.linear(x.mean(dim=2))


def multinomial_nll(logits, counts):
    """Mean over profiles of -log P(counts | softmax(logits)), positions last."""
    total = counts.sum(-1)
    log_likelihood = (torch.lgamma(total + 1) - torch.lgamma(counts + 1).sum(-1)
                      + (counts * torch.log_softmax(logits, -1)).sum(-1))
    return -log_likelihood.mean()


def loss_fn(outputs, counts):
    profile_logits, log_counts = outputs
    target = torch.log1p(counts.sum(dim=(1, 2))).unsqueeze(1)
    return (multinomial_nll(profile_logits, counts)
            + COUNTS_WEIGHT * torch.nn.functional.mse_loss(log_counts, target))


if __name__ == "__main__":
    peer_harness.run("bpnet", __doc__.splitlines()[0], lambda args: BPNet(),
                     {"epochs": 3, "samples": 640, "batch": 64, "length": 2114},
                     profile=(STRANDS, PROFILE_LENGTH), loss=loss_fn)
