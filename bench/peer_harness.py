"""The shared part of the PyTorch peers (bench/peer_pytorch_*.py): flags, random one-hot DNA
batches made before timing, the timed training loop, and the summary lines that
bench/run_model_comparison.sh parses (the same as bench/e2e_harness.h prints).

A peer calls run(name, build_model, defaults): build_model() returns the torch.nn.Module
(ending in logits) and the optimizer is Adam(lr 1e-3), as in the strand benchmark; a model
with several outputs passes its own loss and, for profile targets, their shape.
--compile trains the torch.compile'd model instead of the eager one.
"""
import argparse
import os
import statistics
import time

import torch


def parse(description, defaults):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--epochs", type=int, default=defaults.get("epochs", 5))
    parser.add_argument("--threads", type=int,
                        default=int(os.environ.get("OMP_NUM_THREADS", "0")),
                        help="torch.set_num_threads (default: OMP_NUM_THREADS, else torch's)")
    parser.add_argument("--samples", type=int, default=defaults.get("samples", 12800))
    parser.add_argument("--batch", type=int, default=defaults.get("batch", 128))
    parser.add_argument("--length", type=int, default=defaults.get("length", 500))
    parser.add_argument("--compile", action="store_true", help="train torch.compile(model)")
    return parser.parse_args()


def random_batches(args, tasks, profile=None):
    """Random bases as one-hot float32 (B, 4, L) and targets, made up front: 0/1 labels
    (B, tasks), or with profile = (tracks, length) per-position counts 0..2 (B, tracks, length)."""
    generator = torch.Generator().manual_seed(1234)
    inputs, targets = [], []
    for _ in range(args.samples // args.batch):
        codes = torch.randint(0, 4, (args.batch, args.length), generator=generator)
        one_hot = torch.nn.functional.one_hot(codes, 4).permute(0, 2, 1).contiguous().float()
        inputs.append(one_hot)
        if profile is None:
            targets.append(torch.randint(0, 2, (args.batch, tasks), generator=generator).float())
        else:
            targets.append(torch.randint(0, 3, (args.batch, *profile), generator=generator).float())
    return inputs, targets


def run(name, description, build_model, defaults, make_optimizer=None, tasks=1, profile=None,
        loss=None):
    """make_optimizer(parameters) -> optimizer; default Adam(lr 1e-3). profile = (tracks, length)
    trains on per-position counts instead of labels; loss(outputs, targets) defaults to BCE of
    logits."""
    args = parse(description, defaults)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    inputs, labels = random_batches(args, tasks, profile)
    torch.manual_seed(0)
    model = build_model(args)
    optimizer = (make_optimizer or (lambda p: torch.optim.Adam(p, lr=1e-3)))(model.parameters())
    loss_fn = loss or torch.nn.BCEWithLogitsLoss()
    step_model = torch.compile(model) if args.compile else model
    mode = "compile" if args.compile else "eager"
    print(f"pytorch {torch.__version__} {name} ({mode}): threads={torch.get_num_threads()} "
          f"batch={args.batch} samples/epoch={len(inputs) * args.batch} length={args.length} "
          f"epochs={args.epochs}")
    if args.compile:  # compilation happens on the first steps: not timed
        for x, y in zip(inputs[:2], labels[:2]):
            optimizer.zero_grad()
            loss_fn(step_model(x), y).backward()
    rates = []
    for epoch in range(1, args.epochs + 1):
        loss_total = 0.0
        start = time.perf_counter()
        for x, y in zip(inputs, labels):
            optimizer.zero_grad()
            loss = loss_fn(step_model(x), y)
            loss.backward()
            optimizer.step()
            loss_total += loss.item()
        seconds = time.perf_counter() - start
        rate = len(inputs) * args.batch / seconds
        rates.append(rate)
        print(f"epoch {epoch}: {rate:.0f} samples/s ({seconds:.3f} s, "
              f"mean loss {loss_total / len(inputs):.4f})")
    print(f"best: {max(rates):.0f} samples/s")
    print(f"median: {statistics.median(rates):.0f} samples/s")
