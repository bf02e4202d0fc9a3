#!/usr/bin/env python3
"""PyTorch peer of `strand train --device cuda` on the same files, eager and torch.compile.

Trains, for a fixed number of epochs (as `strand train --no-early-stopping --epochs N`):
- --model reference: Conv1d(4, 16, 15) -> ReLU -> global max pool -> Linear(16, 1), BCE with
  logits, Adam(lr 1e-3, eps 1e-7), batch 128 (strand's reference experiment), on a records
  dataset written by `strand simulate --out DIR` ({train,valid}.{fa,tsv}; --data DIR);
- --model basset: strand's `--model basset` preset layer for layer (bench/quality's peer model),
  with the optimizer, batch and max-norm of strand's resolved config (--recipe, the output of
  `strand train --model basset ... --print-config`), on a records dataset (--data DIR);
- --model bpnet: strand's `--model bpnet` preset (bench/quality/peer_bpnet_quality.py's model,
  loss and counts weight) on the files of its resolved config (--recipe: genome FASTA,
  narrowPeaks, stranded profile bigWigs, read with bench/cuda/bigwig_values.py), with the
  recipe's jitter and reverse-complement augmentation done on the GPU for every batch.
BatchNorm trains in training mode and validates in evaluation mode. The data is on the device
before timing (one-hot float32; BPNet's codes and profiles with the jitter margin). Every batch
is trained, the last partial one too (as strand does); compiled modes mark the batch dimension
dynamic so it does not recompile. The timed region is the epochs' steps and validation passes up
to the last validation loss on the host: the same work strand's `train_seconds` times. Each
epoch's steps and its validation pass are timed apart (the device synchronised between them), so
the first epoch (one-off work: cuDNN's heuristics, cuBLAS handles, lazy kernel loading) and the
later ones can be compared with strand's metrics.csv `epoch_seconds` (steps only).

Math mode: by default both cuDNN and cuBLAS run strict float32 (TF32 off, as strand's default);
--tf32 lets them use TF32 (PyTorch's own default is TF32 in cuDNN only); --amp bf16 runs the
forward pass and the loss under torch.autocast(device_type, dtype=torch.bfloat16) (matmuls and
convolutions in bfloat16 on the tensor cores, the rest float32, no gradient scaler: bfloat16 has
float32's exponent), the strand side being `--precision bf16`. cudnn.benchmark stays at
PyTorch's default (off). The line printed says which.
Prints one line per mode (median of --rounds):
    eager: training 1.234 s, 5678 samples/s (10 epochs, final val_loss 0.1234)
    compile: training 0.789 s, ... ; compile+warm-up 12.3 s (not in training)
and with --json FILE writes every round's figures: per epoch its steps' and validation's
seconds, the training total, the set-up before it (interpreter start to the first step), the
compile warm-up.

--profile instead times nothing: it trains one eager epoch under torch.profiler (after one
epoch of warm-up) and prints the GPU kernels by total time, to set beside strand's ncu ranking
(run_basset_gpu.sh with PROFILE_NCU).

Usage: peer_pytorch_gpu.py [--data DIR] [--model reference|basset|bpnet] [--recipe FILE]
                           [--epochs N] [--batch N] [--rounds N]
                           [--modes eager,compile,max-autotune] [--tf32 | --amp bf16]
                           [--device cuda|cpu] [--json FILE] [--profile]
(--device cpu only rehearses the script on a machine without a GPU: bench/cuda/gpu_checks.sh.)
"""
import time

_PROCESS_START = time.perf_counter()  # before the imports: the set-up a user waits for

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "quality"))
sys.path.insert(0, _HERE)


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


class RecordsTask:
    """reference or basset: records with 0/1 labels, BCE with logits."""

    def __init__(self, args, device):
        x_train, y_train = read_split(args.data, "train")
        x_valid, y_valid = read_split(args.data, "valid")
        self.length, self.tasks = x_train.shape[-1], y_train.shape[1]
        self.x_train, self.y_train, self.x_valid, self.y_valid = (
            t.to(device) for t in (x_train, y_train, x_valid, y_valid))
        self.n, self.n_valid = len(x_train), len(x_valid)
        self.loss_fn = torch.nn.BCEWithLogitsLoss()
        self.max_norm = 0.0
        if args.model == "reference":
            self.build = lambda: torch.nn.Sequential(
                torch.nn.Conv1d(4, 16, 15), torch.nn.ReLU(), torch.nn.AdaptiveMaxPool1d(1),
                torch.nn.Flatten(), torch.nn.Linear(16, 1))
            self.optimizer = lambda p: torch.optim.Adam(p, lr=1e-3, eps=1e-7)
            return
        import peer_basset_quality as basset  # bench/quality
        import quality_common as q
        recipe = load_checked_recipe(args)
        basset.check_recipe(recipe)
        self.max_norm = recipe["max_weight_norm"]
        self.apply_max_norm = q.apply_max_norm

        def build():
            model = basset.basset(self.length, self.tasks)
            q.glorot_init(model)
            return model
        self.build = build
        self.optimizer = lambda p: q.make_optimizer(recipe, p)

    def describe(self):
        return (f"train {self.n} x {self.length} bp, {self.tasks} tasks, valid {self.n_valid}")

    def train_batch(self, index, generator):
        return self.x_train[index], self.y_train[index]

    def valid_batches(self, batch):
        for i in range(0, self.n_valid, batch):
            yield self.x_valid[i:i + batch], self.y_valid[i:i + batch]

    def loss(self, outputs, targets):
        return self.loss_fn(outputs, targets)


class ProfileTask:
    """bpnet: windows around narrowPeak summits, stranded profiles and their log total counts;
    multinomial NLL + weight x MSE (bench/quality/peer_bpnet_quality.py)."""

    def __init__(self, args, device):
        import numpy as np
        import peer_bpnet_quality as bpnet  # bench/quality (no pyBigWig needed to import)
        import quality_common as q
        from bigwig_values import read_bigwig
        recipe = load_checked_recipe(args)
        bpnet.check_recipe(recipe)
        d = recipe["data"]
        self.window, self.profile_length = d["window"], d["profile_length"]
        self.jitter, self.rc_probability = d["jitter"], d["rc_probability"]
        pairs = [entry.split(",") for entry in d["profile_bigwigs"]]
        if any(len(pair) != 2 for pair in pairs):
            raise SystemExit("the bpnet peer reads stranded tracks only (plus.bw,minus.bw pairs)")
        genome = {name: q.codes_of(seq) for name, seq in q.read_fasta(d["fasta"]).items()}
        tracks = [read_bigwig(path) for pair in pairs for path in pair]
        self.tracks = len(tracks)
        extended = self.window + 2 * self.jitter
        offset = (self.window - self.profile_length) // 2

        def windows(peaks, margin):
            """codes (N, window + 2 margin), profiles (N, S, profile_length + 2 margin)."""
            codes, profiles = [], []
            for line in open(peaks):
                row = line.rstrip("\n").split("\t")
                start, end, summit = int(row[1]), int(row[2]), int(row[9])
                centre = start + summit if summit >= 0 else (start + end) // 2
                contig = genome[row[0]]
                size = self.window + 2 * margin
                first = min(max(centre - self.window // 2 - margin, 0), max(0, len(contig) - size))
                codes.append(contig[first:first + size])
                p = first + offset
                profiles.append(np.stack([t[row[0]][p:p + self.profile_length + 2 * margin]
                                          for t in tracks]))
            return np.stack(codes), np.stack(profiles).astype(np.float32)

        codes, profiles = windows(d["intervals"], self.jitter)
        j, lp = self.jitter, self.profile_length
        # lambda: the median total counts of the unshifted training windows / 10, as strand.
        median = float(np.median(profiles[:, :, j:j + lp].sum(axis=(1, 2))))
        self.weight = max(median / 10.0, 1e-3)
        self.codes = torch.from_numpy(codes).to(device)
        self.profiles = torch.from_numpy(profiles).to(device)
        valid_codes, valid_profiles = windows(d["valid_intervals"], 0)
        self.x_valid = torch.from_numpy(np.ascontiguousarray(q.one_hot(valid_codes))).to(device)
        self.p_valid = torch.from_numpy(valid_profiles).to(device)
        self.n, self.n_valid = len(codes), len(valid_codes)
        self.eye = torch.cat([torch.eye(4), torch.zeros(1, 4)]).to(device)
        self.window_positions = torch.arange(self.window, device=device)
        self.profile_positions = torch.arange(lp, device=device)
        self.device, self.extended = device, extended
        self.max_norm = 0.0
        self.nll, self.log_total_counts = bpnet.multinomial_nll, bpnet.log_total_counts

        def build():
            model = bpnet.BPNet(self.tracks, lp)
            q.glorot_init(model)
            return model
        self.build = build
        self.optimizer = lambda p: q.make_optimizer(recipe, p)

    def describe(self):
        return (f"train {self.n} windows x {self.window} bp (jitter {self.jitter}, rc "
                f"{self.rc_probability}), {self.tracks} profile tracks x {self.profile_length}, "
                f"counts weight {self.weight:g}, valid {self.n_valid}")

    def train_batch(self, index, generator):
        """One-hot (B, 4, L) and profiles (B, S, Lp), shifted by the jitter and reverse-
        complemented at random, gathered on the device."""
        b = len(index)
        shift = torch.randint(0, 2 * self.jitter + 1, (b, 1), device=self.device,
                              generator=generator)
        reverse = torch.rand(b, device=self.device, generator=generator) < self.rc_probability
        codes = self.codes[index].gather(1, shift + self.window_positions).long()
        x = self.eye[codes].permute(0, 2, 1)  # (B, 4, L)
        x = torch.where(reverse[:, None, None], x.flip(1, 2), x).contiguous()  # A<->T, C<->G
        p = self.profiles[index]
        p = p.gather(2, (shift[:, :, None] + self.profile_positions).expand(-1, p.shape[1], -1))
        # Reverse complement: positions reversed, each track's plus and minus swapped.
        swapped = p.view(b, -1, 2, self.profile_length).flip(2, 3).reshape(p.shape)
        return x, torch.where(reverse[:, None, None], swapped, p)

    def valid_batches(self, batch):
        for i in range(0, self.n_valid, batch):
            yield self.x_valid[i:i + batch], self.p_valid[i:i + batch]

    def loss(self, outputs, profiles):
        logits, counts = outputs
        return self.nll(logits, profiles) + \
            self.weight * torch.mean((counts - self.log_total_counts(profiles)) ** 2)


def load_checked_recipe(args):
    import quality_common as q
    if not args.recipe:
        raise SystemExit(f"--model {args.model} needs --recipe (strand train --model "
                         f"{args.model} --print-config)")
    recipe = q.load_recipe(args.recipe)
    if recipe["batch_size"] != args.batch:
        raise SystemExit(f"--batch {args.batch} but strand's recipe trains batch "
                         f"{recipe['batch_size']}")
    return recipe


def run(mode, task, args, device):
    """One training run: {"epochs": [{"steps_s", "valid_s"}], "train_seconds", ...}."""
    torch.manual_seed(0)
    model = task.build().to(device)
    optimizer = task.optimizer(model.parameters())
    amp = (lambda: torch.autocast(device_type=device.type, dtype=torch.bfloat16)) \
        if args.amp == "bf16" else contextlib.nullcontext

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    def train_step(x, y):
        optimizer.zero_grad(set_to_none=True)
        with amp():
            loss = task.loss(model(x), y)
        loss.backward()
        optimizer.step()
        if task.max_norm > 0:
            task.apply_max_norm(model, task.max_norm)
        return loss

    def valid_loss():
        model.eval()
        with torch.no_grad(), amp():
            total = torch.zeros((), device=device)
            for xb, yb in task.valid_batches(args.batch):
                total += task.loss(model(xb), yb).float() * len(xb)
        model.train()
        return total / task.n_valid

    warmup = 0.0
    n = task.n
    tail = n % args.batch
    generator = torch.Generator(device=device).manual_seed(0)
    if mode in ("compile", "max-autotune"):
        options = {"mode": "max-autotune"} if mode == "max-autotune" else {}
        train_step = torch.compile(train_step, **options)
        start = time.perf_counter()
        for _ in range(3):  # compile + autotune outside the timed region, then reset
            full = min(args.batch, n)
            train_step(*task.train_batch(torch.arange(full, device=device), generator))
            if tail:
                train_step(*task.train_batch(torch.arange(tail, device=device), generator))
        sync()
        warmup = time.perf_counter() - start
        torch.manual_seed(0)
        fresh = task.build().to(device)
        model.load_state_dict(fresh.state_dict())
        optimizer.state.clear()
        generator.manual_seed(0)
    model.train()
    sync()
    start = time.perf_counter()
    setup = start - _PROCESS_START
    epochs, last = [], None
    for _ in range(args.epochs):
        epoch_start = time.perf_counter()
        order = torch.randperm(n, device=device, generator=generator)
        for i in range(0, n, args.batch):
            train_step(*task.train_batch(order[i:i + args.batch], generator))
        sync()
        steps_end = time.perf_counter()
        last = float(valid_loss())  # synchronises
        epochs.append({"steps_s": steps_end - epoch_start,
                       "valid_s": time.perf_counter() - steps_end})
    return {"mode": mode, "train_seconds": time.perf_counter() - start, "epochs": epochs,
            "final_val_loss": last, "setup_seconds": setup, "compile_warmup_seconds": warmup}


def profile(task, args, device, top=15):
    """One eager epoch (and its validation pass) under torch.profiler, after one of warm-up."""
    from torch.profiler import ProfilerActivity
    one_epoch = argparse.Namespace(**{**vars(args), "epochs": 1})
    run("eager", task, one_epoch, device)  # warm-up: cuDNN's algorithm search, allocator
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with torch.profiler.profile(activities=activities) as prof:
        wall = run("eager", task, one_epoch, device)["train_seconds"]
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


def math_mode(device, args):
    if args.amp == "bf16":
        return (f"bf16 autocast (torch.autocast(device_type={device.type!r}, "
                f"dtype=torch.bfloat16)), TF32 off")
    if device.type != "cuda":
        return "fp32 (cpu)"
    if args.tf32:
        return "tf32 (cuDNN and cuBLAS allow TF32)"
    return "fp32 (TF32 off in cuDNN and cuBLAS)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="records dataset (reference, basset)")
    parser.add_argument("--model", choices=["reference", "basset", "bpnet"], default="reference")
    parser.add_argument("--recipe", help="strand's resolved config (--model basset, bpnet)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", default="eager,compile,max-autotune")
    precision = parser.add_mutually_exclusive_group()
    precision.add_argument("--tf32", action="store_true", help="allow TF32 in cuDNN and cuBLAS")
    precision.add_argument("--amp", choices=["bf16"], help="forward and loss under autocast")
    parser.add_argument("--device", default="cuda", help="cuda (cpu: rehearsal only)")
    parser.add_argument("--json", help="write every round's figures here")
    parser.add_argument("--profile", action="store_true",
                        help="print one eager epoch's GPU kernels by time instead of timing")
    args = parser.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda":
        assert torch.cuda.is_available(), "needs a CUDA GPU (--device cpu rehearses on the CPU)"
        torch.backends.cuda.matmul.allow_tf32 = args.tf32
        torch.backends.cudnn.allow_tf32 = args.tf32
    if args.model != "bpnet" and not args.data:
        raise SystemExit(f"--model {args.model} needs --data (strand simulate's output)")
    task = ProfileTask(args, device) if args.model == "bpnet" else RecordsTask(args, device)
    name = torch.cuda.get_device_name() if device.type == "cuda" else "cpu"
    print(f"pytorch {torch.__version__} on {name}: {args.model}, {task.describe()}, batch "
          f"{args.batch}, epochs {args.epochs}; math {math_mode(device, args)}", flush=True)
    if args.profile:
        profile(task, args, device)
        return
    rounds = []
    for mode in args.modes.split(","):
        torch._dynamo.reset()
        results = [run(mode, task, args, device) for _ in range(args.rounds)]
        rounds += results
        wall = statistics.median(r["train_seconds"] for r in results)
        last, warmup = results[-1]["final_val_loss"], results[0]["compile_warmup_seconds"]
        rate = args.epochs * task.n / wall
        steps = [e["steps_s"] for e in results[-1]["epochs"]]
        later = f", then {statistics.median(steps[1:]):.3f} s" if len(steps) > 1 else ""
        extra = f"; compile+warm-up {warmup:.1f} s (not in training)" if warmup else ""
        print(f"{mode}: training {wall:.3f} s, {rate:.0f} samples/s ({args.epochs} epochs, "
              f"final val_loss {last:.4f}); steps {steps[0]:.3f} s in epoch 1{later}{extra}",
              flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"model": args.model, "device": name, "torch": torch.__version__,
                       "math": math_mode(device, args), "amp": args.amp or "",
                       "batch": args.batch, "train_samples": task.n, "rounds": rounds}, out,
                      indent=1)


if __name__ == "__main__":
    main()
