#!/usr/bin/env python3
"""PyTorch peer of bench/e2e_reference_model.cpp: trains the same reference model.

Conv1d(4, 16, 15) -> ReLU -> global max pool -> Linear(16, 1), BCEWithLogitsLoss, Adam(lr 1e-3),
batch 128, 500 bp. The input is one-hot float32 (B, 4, 500), prepared before timing, as a
PyTorch user would feed it. Prints samples/s in the same format as the strand program so
bench/run_reference_comparison.sh can parse both.

Usage: peer_pytorch_reference.py [--epochs N] [--threads N] [--samples N] [--batch N]
                                 [--length N]
"""
import argparse
import os
import statistics
import time

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--threads", type=int,
                        default=int(os.environ.get("OMP_NUM_THREADS", "0")),
                        help="torch.set_num_threads (default: OMP_NUM_THREADS, else torch's)")
    parser.add_argument("--samples", type=int, default=12800)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--length", type=int, default=500)
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)

    # Data up front, not timed: random bases as one-hot float32, random 0/1 labels.
    generator = torch.Generator().manual_seed(1234)
    batches = args.samples // args.batch
    inputs, labels = [], []
    for _ in range(batches):
        codes = torch.randint(0, 4, (args.batch, args.length), generator=generator)
        one_hot = torch.nn.functional.one_hot(codes, 4).permute(0, 2, 1).contiguous().float()
        inputs.append(one_hot)
        labels.append(torch.randint(0, 2, (args.batch, 1), generator=generator).float())

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv1d(4, 16, 15),
        torch.nn.ReLU(),
        torch.nn.AdaptiveMaxPool1d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(16, 1),
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.BCEWithLogitsLoss()

    print(f"pytorch {torch.__version__}: threads={torch.get_num_threads()} batch={args.batch} "
          f"samples/epoch={batches * args.batch} length={args.length} epochs={args.epochs}")
    rates = []
    for epoch in range(1, args.epochs + 1):
        loss_total = 0.0
        start = time.perf_counter()
        for x, y in zip(inputs, labels):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            loss_total += loss.item()
        seconds = time.perf_counter() - start
        rate = batches * args.batch / seconds
        rates.append(rate)
        print(f"epoch {epoch}: {rate:.0f} samples/s ({seconds:.3f} s, "
              f"mean loss {loss_total / batches:.4f})")
    print(f"best: {max(rates):.0f} samples/s")
    print(f"median: {statistics.median(rates):.0f} samples/s")


if __name__ == "__main__":
    main()
