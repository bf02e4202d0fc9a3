"""PyTorch peer of `strand train --model bpnet` on a profile dataset (`strand simulate
--simulation chip_nexus_profile` output: genome.fa, stranded <motif>.{plus,minus}.bw,
{train,valid,test}.narrowPeak): the same architecture as configs/bpnet.json, initialisation,
loss, optimizer, batch, epochs, early stopping and jitter / reverse-complement augmentation,
read from strand's resolved config, on the same files and splits (bigWigs through pyBigWig).
Prints and writes (--out) the test profile Pearson and counts Spearman.

    python bench/quality/peer_bpnet_quality.py --data D --recipe recipe.json --seed 1 --out r.json
    python bench/quality/peer_bpnet_quality.py --data D --recipe recipe.json \
        --evaluate-strand RUN_DIR --out s.json

--evaluate-strand loads a strand run's best checkpoint (same parameter names) into this model
and scores it with the same evaluation code, because `strand train`'s report.json has no test
profile figures and `strand predict` writes no profile: strand's own figures on the validation
split at its best epoch (--strand-log: strand train's output) are printed beside this script's for the same weights, and
--strand-counts (strand predict's TSV on test) is compared with the counts this model computes
from those weights, as checks that the weights mean the same in both programs.

Windows follow data/window.h and data/signals/interval_signals.h: a window of L bases centred on the
narrowPeak summit (start + column 10), moved by the jitter shift and kept inside the contig; the
profile covers its centred Lp bases; reverse complement reverses the profile and swaps the plus
and minus tracks of each pair. Tracks: for each motif its plus then its minus bigWig.
"""
import argparse
import csv
import time

import numpy as np
import torch

import quality_common as q


class BPNet(torch.nn.Module):
    """configs/bpnet.json: Conv1D(64, 21, same) -> ReLU, 8 residual blocks x + ReLU(Conv1D(64, 3,
    dilation 2^i, same)), centre crop to Lp + 74; profile head Conv1D(S, 75) (softmax over
    positions, left to the loss); counts head GlobalAvgPool1D over the crop -> Dense(1).
    Attribute names are strand's node names, so a strand checkpoint loads by name."""

    def __init__(self, tracks, profile_length, filters=64, layers=8):
        super().__init__()
        nn = torch.nn
        self.profile_length = profile_length
        self.conv = nn.Conv1d(4, filters, 21, padding=10)
        self.blocks = layers
        for i in range(1, layers + 1):
            setattr(self, f"block{i}_conv",
                    nn.Conv1d(filters, filters, 3, dilation=2 ** i, padding=2 ** i))
        self.profile_conv = nn.Conv1d(filters, tracks, 75)
        self.counts = nn.Linear(filters, 1)

    def forward(self, x):
        h = torch.relu(self.conv(x))
        for i in range(1, self.blocks + 1):
            h = h + torch.relu(getattr(self, f"block{i}_conv")(h))
        keep = self.profile_length + 74
        start = (h.shape[-1] - keep) // 2
        crop = h[..., start:start + keep]
        return self.profile_conv(crop), self.counts(crop.mean(dim=-1))


def check_recipe(recipe, layers=8):
    nodes = recipe["model"]["nodes"]
    convs = [(n["name"], n["filters"], n["kernel_size"], n["dilation"], n["padding"])
             for n in nodes if n["type"] == "Conv1D"]
    expected = [("conv", 64, 21, 1, "same")] + \
        [(f"block{i}_conv", 64, 3, 2 ** i, "same") for i in range(1, layers + 1)] + \
        [("profile_conv", "profile_tracks", 75, 1, "valid")]
    if convs != expected:
        raise SystemExit(f"strand's model is not the BPNet this peer builds: {convs}")
    types = {n["name"]: n["type"] for n in nodes}
    assert types["profile"] == "Softmax" and types["pool"] == "GlobalAvgPool1D"
    assert types["counts"] == "Dense" and types["crop"] == "Crop1D"
    outputs = {o["name"]: (o["loss"], o["target"]) for o in recipe["model"]["outputs"]}
    assert outputs == {"profile": ("multinomial_nll", "profile"),
                       "counts": ("mse", "log_total_counts")}, outputs
    assert recipe["lr_schedule"]["name"] == "none" and recipe["clip_grad_norm"] == 0.0
    assert recipe["max_weight_norm"] == 0.0


class ProfileData:
    """One split: windows around narrowPeak summits of genome.fa, profiles from the bigWigs."""

    def __init__(self, genome, tracks, peaks, window, profile_length):
        self.genome, self.tracks = genome, tracks
        self.window, self.profile_length = window, profile_length
        self.contigs, self.centres = [], []
        with open(peaks) as handle:
            for row in csv.reader(handle, delimiter="\t"):
                start, end, summit = int(row[1]), int(row[2]), int(row[9])
                self.contigs.append(row[0])
                self.centres.append(start + summit if summit >= 0 else (start + end) // 2)

    def __len__(self):
        return len(self.centres)

    def window_start(self, i, shift):
        total = len(self.genome[self.contigs[i]])
        start = self.centres[i] - self.window // 2 + shift
        return min(max(start, 0), max(0, total - self.window))

    def batch(self, indices, shifts, reverse):
        """One-hot (B, 4, L), profiles (B, S, Lp)."""
        codes, profiles = [], []
        offset = (self.window - self.profile_length) // 2
        for i, shift, rc in zip(indices, shifts, reverse):
            contig = self.contigs[i]
            start = self.window_start(i, shift)
            c = self.genome[contig][start:start + self.window]
            p = np.stack([t[contig][start + offset:start + offset + self.profile_length]
                          for t in self.tracks])
            if rc:
                c = q.reverse_complement_codes(c)
                p = p.reshape(-1, 2, self.profile_length)[:, ::-1, ::-1].reshape(p.shape)
            codes.append(c)
            profiles.append(p)
        return (torch.from_numpy(q.one_hot(np.stack(codes))),
                torch.from_numpy(np.ascontiguousarray(np.stack(profiles), dtype=np.float32)))

    def total_counts(self):
        """Each unshifted window's profile total (strand's median_total_counts input)."""
        _, profiles = self.batch(range(len(self)), [0] * len(self), [False] * len(self))
        return profiles.sum(dim=(1, 2)).numpy()


def read_tracks(data, motifs):
    import pyBigWig  # here, so that the GPU peer imports this module on a host without it
    tracks = []
    for motif in motifs:
        for strand in ("plus", "minus"):
            bw = pyBigWig.open(f"{data}/{motif}.{strand}.bw")
            tracks.append({name: np.nan_to_num(np.asarray(bw.values(name, 0, length, numpy=True),
                                                          dtype=np.float32))
                           for name, length in bw.chroms().items()})
            bw.close()
    return tracks


def multinomial_nll(logits, counts):
    """strand's multinomial_nll (ops/loss.h): per profile -(lgamma(N + 1) - sum lgamma(c + 1) +
    sum c log_softmax(logits)), the mean over (window, track) profiles."""
    log_p = torch.log_softmax(logits, dim=-1)
    constant = torch.lgamma(counts.sum(-1) + 1) - torch.lgamma(counts + 1).sum(-1)
    return -(constant + (counts * log_p).sum(-1)).mean()


def log_total_counts(profiles):
    return torch.log1p(profiles.sum(dim=(1, 2))).unsqueeze(1)


@torch.no_grad()
def evaluate(model, split, batch, weight):
    """Loss (as strand's val_loss: NLL + weight x MSE), profile Pearson, counts Spearman."""
    model.eval()
    probabilities, observed, predicted_counts, target_counts = [], [], [], []
    nll_sum = mse_sum = 0.0
    for i in range(0, len(split), batch):
        index = list(range(i, min(i + batch, len(split))))
        x, profiles = split.batch(index, [0] * len(index), [False] * len(index))
        logits, counts = model(x)
        target = log_total_counts(profiles)
        nll_sum += multinomial_nll(logits, profiles).item() * len(index)
        mse_sum += torch.mean((counts - target) ** 2).item() * len(index)
        probabilities.append(torch.softmax(logits, dim=-1).numpy())
        observed.append(profiles.numpy())
        predicted_counts.append(counts[:, 0].numpy())
        target_counts.append(target[:, 0].numpy())
    n = len(split)
    predicted_counts = np.concatenate(predicted_counts)
    return {"loss": nll_sum / n + weight * mse_sum / n, "profile_loss": nll_sum / n,
            "counts_loss": mse_sum / n,
            "profile_pearson": q.mean_profile_pearson(np.concatenate(probabilities),
                                                      np.concatenate(observed)),
            "counts_spearman": q.spearman(predicted_counts, np.concatenate(target_counts)),
            "counts_pearson": q.pearson(predicted_counts, np.concatenate(target_counts)),
            "counts": predicted_counts.tolist()}


def strand_epoch_figures(log, epoch):
    """The figures `strand train` printed for `epoch` ("epoch 3/15: loss ... | val_loss ... |"):
    metrics.csv has fixed columns without the profile figures."""
    for line in open(log):
        if line.startswith(f"epoch {epoch}/"):
            words = " ".join(line.split("|")[:2]).split(":", 1)[1].split()
            return {k: float(v) for k, v in zip(words[::2], words[1::2])}
    raise SystemExit(f"{log} has no line for epoch {epoch}")


def strand_checks(args, figures, valid):
    """Strand's own validation figures at its best epoch, and its predicted counts on test."""
    report = q.load_recipe(f"{args.evaluate_strand}/report.json")
    checks = {"best_epoch": report["best_epoch"], "epochs_run": report["epochs_run"]}
    if args.strand_log:
        best = strand_epoch_figures(args.strand_log, report["best_epoch"])
        for key in ("profile_pearson", "counts_spearman", "loss"):
            checks[f"valid_{key}"] = {"strand": best[f"val_{key}"], "here": valid[key]}
            print(f"check: valid {key} at strand's best epoch: strand printed "
                  f"{best[f'val_{key}']:.4f}, its weights here give {valid[key]:.4f}")
    if args.strand_counts:
        rows = list(csv.DictReader(open(args.strand_counts), delimiter="\t"))
        strand_counts = np.array([float(r[list(r)[-1]]) for r in rows])
        difference = float(np.max(np.abs(strand_counts - np.array(figures["counts"]))))
        checks["test_counts_max_abs_difference"] = difference
        print(f"check: test counts, strand predict vs its weights here: max |difference| "
              f"{difference:.2e} over {len(rows)} windows")
    return checks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="strand simulate's output directory")
    parser.add_argument("--motifs", default="POU5F1_known1,SOX2_1", help="the tracks' motifs")
    parser.add_argument("--recipe", required=True, help="strand's resolved config (JSON)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init", choices=["glorot", "torch"], default="glorot")
    parser.add_argument("--evaluate-strand", metavar="RUN_DIR")
    parser.add_argument("--strand-counts", help="strand predict's TSV of counts on test")
    parser.add_argument("--strand-log", help="strand train's output (its per-epoch figures)")
    parser.add_argument("--out", help="JSON with the figures")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    recipe = q.load_recipe(args.recipe)
    check_recipe(recipe)
    d = recipe["data"]
    window, profile_length, batch = d["window"], d["profile_length"], recipe["batch_size"]
    genome = {name: q.codes_of(seq) for name, seq in q.read_fasta(f"{args.data}/genome.fa").items()}
    tracks = read_tracks(args.data, args.motifs.split(","))
    split = {name: ProfileData(genome, tracks, f"{args.data}/{name}.narrowPeak", window,
                               profile_length) for name in ("train", "valid", "test")}
    train = split["train"]
    # lambda: the median total counts of the training windows / 10 (cli/train_command.cpp).
    median = float(np.median(train.total_counts()))
    weight = max(median / 10.0, 1e-3)

    torch.manual_seed(args.seed)
    model = BPNet(len(tracks), profile_length)
    if args.init == "glorot":
        q.glorot_init(model)
    if args.evaluate_strand:
        tensors = q.read_safetensors(f"{args.evaluate_strand}/checkpoints/best.safetensors")
        model.load_state_dict(tensors, strict=True)
        valid = evaluate(model, split["valid"], batch, weight)
        figures = evaluate(model, split["test"], batch, weight)
        checks = strand_checks(args, figures, valid)
        print(f"strand (its best checkpoint): test profile Pearson {figures['profile_pearson']:.4f}"
              f" counts Spearman {figures['counts_spearman']:.4f}")
        if args.out:
            q.write_json(args.out, {"program": "strand", "seed": args.seed,
                                    "test_profile_pearson": figures["profile_pearson"],
                                    "test_counts_spearman": figures["counts_spearman"],
                                    "test_counts_pearson": figures["counts_pearson"],
                                    "test_loss": figures["loss"], **checks})
        return

    optimizer = q.make_optimizer(recipe, model.parameters())
    es = recipe["early_stopping"]
    assert es["enabled"] and es["monitor"] == "val_loss" and es["restore_best_weights"]
    stopper = q.EarlyStopping(es["patience"], es["min_delta"])
    rng = np.random.default_rng(args.seed)
    jitter, rc_probability = d["jitter"], d["rc_probability"]
    print(f"pytorch {torch.__version__} bpnet: {len(train)} train windows of {window} bp, "
          f"{len(tracks)} profile tracks of {profile_length}, counts weight {weight:g} "
          f"(median total counts {median:g}), init {args.init}, {recipe['optimizer']}, batch "
          f"{batch}, jitter {jitter}, rc {rc_probability}, up to {recipe['epochs']} epochs "
          f"(patience {es['patience']}), seed {args.seed}, {torch.get_num_threads()} threads",
          flush=True)
    history = []
    start = time.perf_counter()
    for epoch in range(1, recipe["epochs"] + 1):
        model.train()
        order = rng.permutation(len(train))
        loss_sum = 0.0
        for i in range(0, len(order), batch):
            index = order[i:i + batch]
            shifts = rng.integers(-jitter, jitter + 1, size=len(index))
            reverse = rng.random(len(index)) < rc_probability
            x, profiles = train.batch(index, shifts, reverse)
            optimizer.zero_grad()
            logits, counts = model(x)
            loss = multinomial_nll(logits, profiles) + \
                weight * torch.mean((counts - log_total_counts(profiles)) ** 2)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * len(index)
        valid = evaluate(model, split["valid"], batch, weight)
        history.append({"epoch": epoch, "loss": loss_sum / len(train),
                        **{f"val_{k}": v for k, v in valid.items() if k != "counts"}})
        print(f"epoch {epoch}: loss {loss_sum / len(train):.4f} val_loss {valid['loss']:.4f} "
              f"val_profile_pearson {valid['profile_pearson']:.4f} val_counts_spearman "
              f"{valid['counts_spearman']:.4f} ({time.perf_counter() - start:.0f} s)", flush=True)
        if stopper.update(model, epoch, valid["loss"]):
            break
    stopper.restore(model)
    figures = evaluate(model, split["test"], batch, weight)
    print(f"test: profile Pearson {figures['profile_pearson']:.4f} counts Spearman "
          f"{figures['counts_spearman']:.4f}; best epoch {stopper.best_epoch} of {len(history)}")
    if args.out:
        q.write_json(args.out, {
            "program": f"pytorch {torch.__version__}", "seed": args.seed, "init": args.init,
            "test_profile_pearson": figures["profile_pearson"],
            "test_counts_spearman": figures["counts_spearman"],
            "test_counts_pearson": figures["counts_pearson"], "test_loss": figures["loss"],
            "counts_weight": weight, "best_epoch": stopper.best_epoch,
            "epochs_run": len(history), "history": history,
            "train_seconds": time.perf_counter() - start})


if __name__ == "__main__":
    main()
