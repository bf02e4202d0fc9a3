#!/usr/bin/env python3
"""PyTorch peer of strand's reference experiment on the GPU, eager and torch.compile.

Reads the dataset written by `strand simulate --out DIR` ({train,valid}.{fa,tsv}), then trains
Conv1d(4, 16, 15) -> ReLU -> global max pool -> Linear(16, 1) with BCEWithLogitsLoss and
Adam(lr 1e-3, eps 1e-7), batch 128, shuffled every epoch, a validation pass per epoch, for a
fixed number of epochs (as `strand train --no-early-stopping --epochs N`). The data is one-hot
float32 on the GPU before timing. Every batch is trained, the last partial one too (as strand
does); compiled modes mark the batch dimension dynamic so it does not recompile. The timed
region is the epochs' steps and validation passes, up to the last validation loss on the host:
the same work strand's `train_seconds` times. Prints one line per mode (median of --rounds):
    eager: training 1.234 s, 5678 samples/s (10 epochs, final val_loss 0.1234)
    compile: training 0.789 s, ... ; compile+warm-up 12.3 s (not in training)

Usage: peer_pytorch_gpu.py --data DIR [--epochs N] [--batch N] [--rounds N]
                           [--modes eager,compile,max-autotune]
"""
import argparse
import os
import statistics
import time

import torch


def read_split(directory, split):
    sequences, name = {}, None
    with open(os.path.join(directory, f"{split}.fa")) as fasta:
        for line in fasta:
            line = line.strip()
            if line.startswith(">"):
                name = line[1:].split()[0]
                sequences[name] = []
            elif name is not None:
                sequences[name].append(line)
    names, labels = [], []
    with open(os.path.join(directory, f"{split}.tsv")) as tsv:
        for line in tsv:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 2 or fields[0] not in sequences:
                continue  # header or unknown record
            names.append(fields[0])
            labels.append([float(v) for v in fields[1:]])
    lookup = torch.full((256,), 4, dtype=torch.long)
    for i, base in enumerate("ACGT"):
        lookup[ord(base)] = i
        lookup[ord(base.lower())] = i
    codes = torch.stack([
        lookup[torch.frombuffer(bytearray("".join(sequences[n]).encode()), dtype=torch.uint8).long()]
        for n in names])
    one_hot = torch.nn.functional.one_hot(codes, 5)[..., :4].permute(0, 2, 1).contiguous().float()
    return one_hot, torch.tensor(labels)


def make_model():
    return torch.nn.Sequential(
        torch.nn.Conv1d(4, 16, 15), torch.nn.ReLU(), torch.nn.AdaptiveMaxPool1d(1),
        torch.nn.Flatten(), torch.nn.Linear(16, 1))


def run(mode, data, args, device):
    x_train, y_train, x_valid, y_valid = data
    torch.manual_seed(0)
    model = make_model().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def train_step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    def valid_loss():
        with torch.no_grad():
            total = torch.zeros((), device=device)
            for i in range(0, len(x_valid), args.batch):
                xb, yb = x_valid[i:i + args.batch], y_valid[i:i + args.batch]
                total += loss_fn(model(xb), yb) * len(xb)
            return total / len(x_valid)

    warmup = 0.0
    n = len(x_train)
    tail = n % args.batch
    if mode in ("compile", "max-autotune"):
        options = {"mode": "max-autotune"} if mode == "max-autotune" else {}
        train_step = torch.compile(train_step, **options)
        start = time.perf_counter()
        for _ in range(3):  # compile + autotune outside the timed region, then reset
            train_step(x_train[:args.batch], y_train[:args.batch])
            if tail:
                train_step(x_train[:tail], y_train[:tail])
        torch.cuda.synchronize()
        warmup = time.perf_counter() - start
        torch.manual_seed(0)
        fresh = make_model().to(device)
        model.load_state_dict(fresh.state_dict())
        optimizer.state.clear()
    generator = torch.Generator(device=device).manual_seed(0)
    torch.cuda.synchronize()
    start = time.perf_counter()
    last = None
    for _ in range(args.epochs):
        order = torch.randperm(n, device=device, generator=generator)
        for i in range(0, n, args.batch):
            index = order[i:i + args.batch]
            train_step(x_train[index], y_train[index])
        last = valid_loss()
    last = float(last)  # synchronises
    return time.perf_counter() - start, last, warmup


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", default="eager,compile,max-autotune")
    args = parser.parse_args()
    assert torch.cuda.is_available(), "needs a CUDA GPU"
    device = torch.device("cuda")
    x_train, y_train = read_split(args.data, "train")
    x_valid, y_valid = read_split(args.data, "valid")
    data = tuple(t.to(device) for t in (x_train, y_train, x_valid, y_valid))
    print(f"pytorch {torch.__version__} on {torch.cuda.get_device_name()}: train {len(x_train)}, "
          f"valid {len(x_valid)}, batch {args.batch}, epochs {args.epochs}")
    for mode in args.modes.split(","):
        torch._dynamo.reset()
        results = [run(mode, data, args, device) for _ in range(args.rounds)]
        wall = statistics.median(r[0] for r in results)
        last, warmup = results[-1][1], results[0][2]
        rate = args.epochs * len(x_train) / wall
        extra = f"; compile+warm-up {warmup:.1f} s (not in training)" if warmup else ""
        print(f"{mode}: training {wall:.3f} s, {rate:.0f} samples/s ({args.epochs} epochs, "
              f"final val_loss {last:.4f}){extra}", flush=True)


if __name__ == "__main__":
    main()
