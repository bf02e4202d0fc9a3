#!/usr/bin/env python3
"""PyTorch peer of `strand train --device cuda` on the same files, eager and torch.compile.

Reads a records dataset written by `strand simulate --out DIR` ({train,valid}.{fa,tsv}) and
trains, for a fixed number of epochs (as `strand train --no-early-stopping --epochs N`):
- --model reference: Conv1d(4, 16, 15) -> ReLU -> global max pool -> Linear(16, 1), BCE with
  logits, Adam(lr 1e-3, eps 1e-7), batch 128 (strand's reference experiment);
- --model basset: strand's `--model basset` preset layer for layer (bench/quality's peer model),
  with the optimizer, batch and max-norm of strand's resolved config (--recipe, the output of
  `strand train --model basset ... --print-config`), BatchNorm in training mode for the steps
  and in evaluation mode for the validation passes.
The data is one-hot float32 on the device before timing. Every batch is trained, the last
partial one too (as strand does); compiled modes mark the batch dimension dynamic so it does not
recompile. The timed region is the epochs' steps and validation passes up to the last
validation loss on the host: the same work strand's `train_seconds` times.

Math mode: --tf32 lets cuDNN and cuBLAS use TF32 (PyTorch's own default is TF32 in cuDNN only);
without it both run strict float32, as strand does by default. The line printed says which.
Prints one line per mode (median of --rounds):
    eager: training 1.234 s, 5678 samples/s (10 epochs, final val_loss 0.1234)
    compile: training 0.789 s, ... ; compile+warm-up 12.3 s (not in training)

--profile instead times nothing: it trains one eager epoch under torch.profiler (after one
epoch of warm-up) and prints the GPU kernels by total time, to set beside strand's ncu ranking
(run_basset_gpu.sh with PROFILE_NCU).

Usage: peer_pytorch_gpu.py --data DIR [--model reference|basset] [--recipe FILE] [--epochs N]
                           [--batch N] [--rounds N] [--modes eager,compile,max-autotune]
                           [--tf32] [--device cuda|cpu] [--profile]
(--device cpu only rehearses the script on a machine without a GPU: bench/cuda/gpu_checks.sh.)
"""
import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "quality"))


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


class Recipe:
    """What differs between the models: the network, the optimizer, the max-norm cap."""

    def __init__(self, args, length, tasks):
        self.max_norm = 0.0
        if args.model == "reference":
            self.build = lambda: torch.nn.Sequential(
                torch.nn.Conv1d(4, 16, 15), torch.nn.ReLU(), torch.nn.AdaptiveMaxPool1d(1),
                torch.nn.Flatten(), torch.nn.Linear(16, 1))
            self.optimizer = lambda p: torch.optim.Adam(p, lr=1e-3, eps=1e-7)
            return
        import peer_basset_quality as basset  # noqa: E402 (bench/quality)
        import quality_common as q  # noqa: E402
        if not args.recipe:
            raise SystemExit("--model basset needs --recipe (strand train --model basset "
                             "--print-config)")
        recipe = q.load_recipe(args.recipe)
        basset.check_recipe(recipe)
        if recipe["batch_size"] != args.batch:
            raise SystemExit(f"--batch {args.batch} but strand's recipe trains batch "
                             f"{recipe['batch_size']}")
        self.max_norm = recipe["max_weight_norm"]
        self.apply_max_norm = q.apply_max_norm

        def build():
            model = basset.basset(length, tasks)
            q.glorot_init(model)
            return model
        self.build = build
        self.optimizer = lambda p: q.make_optimizer(recipe, p)


def run(mode, data, args, device, recipe):
    x_train, y_train, x_valid, y_valid = data
    torch.manual_seed(0)
    model = recipe.build().to(device)
    optimizer = recipe.optimizer(model.parameters())
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    def train_step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        if recipe.max_norm > 0:
            recipe.apply_max_norm(model, recipe.max_norm)
        return loss

    def valid_loss():
        model.eval()
        with torch.no_grad():
            total = torch.zeros((), device=device)
            for i in range(0, len(x_valid), args.batch):
                xb, yb = x_valid[i:i + args.batch], y_valid[i:i + args.batch]
                total += loss_fn(model(xb), yb) * len(xb)
        model.train()
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
        sync()
        warmup = time.perf_counter() - start
        torch.manual_seed(0)
        fresh = recipe.build().to(device)
        model.load_state_dict(fresh.state_dict())
        optimizer.state.clear()
    model.train()
    generator = torch.Generator(device=device).manual_seed(0)
    sync()
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


def profile(data, args, device, recipe, top=15):
    """One eager epoch (and its validation pass) under torch.profiler, after one of warm-up."""
    from torch.profiler import ProfilerActivity
    one_epoch = argparse.Namespace(**{**vars(args), "epochs": 1})
    run("eager", data, one_epoch, device, recipe)  # warm-up: cuDNN's algorithm search, allocator
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with torch.profiler.profile(activities=activities) as prof:
        wall = run("eager", data, one_epoch, device, recipe)[0]
    kernels = [e for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
    kernels.sort(key=lambda e: e.device_time_total, reverse=True)
    grand = sum(e.device_time_total for e in kernels) or 1.0
    print(f"pytorch eager profile: 1 epoch, wall {wall:.3f} s under the profiler")
    for i, e in enumerate(kernels[:top], 1):
        print(f"{i} {e.device_time_total / 1e3:8.3f} ms {100 * e.device_time_total / grand:5.1f}% "
              f"{e.count:6d} launches {e.device_time_total / max(e.count, 1):9.2f} us  "
              f"{e.key[:160]}")
    print(f"all kernels: {grand / 1e3:.3f} ms in {sum(e.count for e in kernels)} launches of "
          f"{len(kernels)} kernels")


def math_mode(device, tf32):
    if device.type != "cuda":
        return "fp32 (cpu)"
    if tf32:
        return "tf32 (cuDNN and cuBLAS allow TF32)"
    return "fp32 (TF32 off in cuDNN and cuBLAS)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--model", choices=["reference", "basset"], default="reference")
    parser.add_argument("--recipe", help="strand's resolved config (--model basset)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", default="eager,compile,max-autotune")
    parser.add_argument("--tf32", action="store_true", help="allow TF32 in cuDNN and cuBLAS")
    parser.add_argument("--device", default="cuda", help="cuda (cpu: rehearsal only)")
    parser.add_argument("--profile", action="store_true",
                        help="print one eager epoch's GPU kernels by time instead of timing")
    args = parser.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda":
        assert torch.cuda.is_available(), "needs a CUDA GPU (--device cpu rehearses on the CPU)"
        torch.backends.cuda.matmul.allow_tf32 = args.tf32
        torch.backends.cudnn.allow_tf32 = args.tf32
    x_train, y_train = read_split(args.data, "train")
    x_valid, y_valid = read_split(args.data, "valid")
    recipe = Recipe(args, x_train.shape[-1], y_train.shape[1])
    data = tuple(t.to(device) for t in (x_train, y_train, x_valid, y_valid))
    name = torch.cuda.get_device_name() if device.type == "cuda" else "cpu"
    print(f"pytorch {torch.__version__} on {name}: {args.model}, train {len(x_train)} x "
          f"{x_train.shape[-1]} bp, {y_train.shape[1]} tasks, valid {len(x_valid)}, batch "
          f"{args.batch}, epochs {args.epochs}; math {math_mode(device, args.tf32)}", flush=True)
    if args.profile:
        profile(data, args, device, recipe)
        return
    for mode in args.modes.split(","):
        torch._dynamo.reset()
        results = [run(mode, data, args, device, recipe) for _ in range(args.rounds)]
        wall = statistics.median(r[0] for r in results)
        last, warmup = results[-1][1], results[0][2]
        rate = args.epochs * len(x_train) / wall
        extra = f"; compile+warm-up {warmup:.1f} s (not in training)" if warmup else ""
        print(f"{mode}: training {wall:.3f} s, {rate:.0f} samples/s ({args.epochs} epochs, "
              f"final val_loss {last:.4f}){extra}", flush=True)


if __name__ == "__main__":
    main()
