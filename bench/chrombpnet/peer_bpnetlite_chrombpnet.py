"""bpnet-lite's ChromBPNet on strand's ATAC simulation, and the scoring of strand's run with it.

The peer builds bpnet-lite's own modules (bpnetlite.BPNet for the bias and accessibility models,
bpnetlite.ChromBPNet joining them: profile logits added, counts by log-sum-exp) and losses
(bpnetlite.losses.MNLLLoss, log1pMSELoss), and trains them with ChromBPNet's recipe: the bias
model on non-peaks whose counts are below bias_threshold_factor x the peaks' 1% quantile, then
the accessibility model with the bias frozen on peaks and non-peaks; Adam, early stopping on the
validation loss. bpnet-lite's own fit() loops are not used: ChromBPNet.fit predicts the bias on
device='cuda' whatever it is given, so on the CPU the loop is written out here (the same steps).
Sizes, epochs, batch, jitter, learning rate, patience and the counts weight come from strand's
resolved configs (--bias-recipe, --recipe), so both programs train the same recipe.

With --evaluate-strand RUN the same ChromBPNet object is loaded with strand's checkpoint (strand's
node names map onto bpnet-lite's modules) and scored on the test peaks, so both programs'
figures come from one evaluation: median profile Jensen-Shannon distance (scipy's jensenshannon,
natural log, as chrombpnet reports) and the Pearson correlation of log(1 + counts).
"""
import argparse
import csv
import json
import math
import pathlib
import sys
import time

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "quality"))
import quality_common as q  # noqa: E402

from bpnetlite import BPNet, ChromBPNet  # noqa: E402
from bpnetlite.losses import MNLLLoss, log1pMSELoss  # noqa: E402


class Windows:
    """Windows of `window` bases centred on BED/narrowPeak rows (summit if given) of the given
    contigs, with the cut track over the centred `profile_length` bases."""

    def __init__(self, genome, cuts, paths, contigs, window, profile_length):
        self.genome, self.cuts = genome, cuts
        self.window, self.profile_length = window, profile_length
        self.rows = []
        for path in paths:
            with open(path) as handle:
                for row in csv.reader(handle, delimiter="\t"):
                    if row[0] not in contigs:
                        continue
                    start, end = int(row[1]), int(row[2])
                    has_summit = len(row) > 9 and int(row[9]) >= 0
                    summit = int(row[9]) if has_summit else (end - start) // 2
                    self.rows.append((row[0], start + summit))

    def keep(self, mask):
        self.rows = [r for r, k in zip(self.rows, mask) if k]

    def __len__(self):
        return len(self.rows)

    def batch(self, indices, shifts, reverse):
        """One-hot (B, 4, W) and cuts (B, 1, Lp)."""
        codes, profiles = [], []
        offset = (self.window - self.profile_length) // 2
        for i, shift, rc in zip(indices, shifts, reverse):
            contig, centre = self.rows[i]
            total = len(self.genome[contig])
            start = min(max(centre - self.window // 2 + int(shift), 0), total - self.window)
            c = self.genome[contig][start:start + self.window]
            p = self.cuts[contig][start + offset:start + offset + self.profile_length]
            if rc:
                c, p = q.reverse_complement_codes(c), p[::-1]
            codes.append(c)
            profiles.append(p[None, :])
        return (torch.from_numpy(q.one_hot(np.stack(codes))),
                torch.from_numpy(np.ascontiguousarray(np.stack(profiles), dtype=np.float32)))

    def totals(self):
        _, p = self.batch(range(len(self)), [0] * len(self), [False] * len(self))
        return p.sum(dim=(1, 2)).numpy()


def read_cuts(path):
    import pyBigWig
    bw = pyBigWig.open(path)
    cuts = {name: np.nan_to_num(np.asarray(bw.values(name, 0, length, numpy=True), np.float32))
            for name, length in bw.chroms().items()}
    bw.close()
    return cuts


def bpnet(recipe, window, profile_length):
    convs = [n for n in recipe["model"]["nodes"] if n["type"] == "Conv1D"]
    filters, layers = convs[0]["filters"], len(convs) - 2
    return BPNet(n_filters=filters, n_layers=layers, n_outputs=1, n_control_tracks=0,
                 trimming=(window - profile_length) // 2, verbose=False)


def loss_of(model, x, y, weight):
    logits, log_counts = model(x)
    log_p = torch.log_softmax(logits.reshape(logits.shape[0], -1), dim=-1)
    profile = MNLLLoss(log_p, y.reshape(y.shape[0], -1)).mean()
    counts = log1pMSELoss(log_counts, y.sum(dim=-1)).mean()
    return profile + weight * counts


@torch.no_grad()
def valid_loss(model, data, batch, weight):
    model.eval()
    total = 0.0
    for i in range(0, len(data), batch):
        index = list(range(i, min(i + batch, len(data))))
        x, y = data.batch(index, [0] * len(index), [False] * len(index))
        total += loss_of(model, x, y, weight).item() * len(index)
    return total / len(data)


def fit(model, parameters, train, valid, recipe, seed, label):
    """Adam on MNLL + weight x log1p MSE, jitter and reverse complement as the recipe; early
    stopping on the validation loss, best weights restored. Returns seconds spent."""
    d, batch = recipe["data"], recipe["batch_size"]
    weight = max(float(np.median(train.totals())) / 10.0, 1e-3)  # strand's "auto" (chrombpnet's)
    optimizer = torch.optim.Adam(parameters, lr=recipe["optimizer"]["learning_rate"],
                                 eps=recipe["optimizer"]["eps"])
    rng = np.random.default_rng(seed)
    best, best_state, waited, start = math.inf, None, 0, time.perf_counter()
    for epoch in range(1, recipe["epochs"] + 1):
        model.train()
        order = rng.permutation(len(train))
        for i in range(0, len(order), batch):
            index = order[i:i + batch]
            shifts = rng.integers(-d["jitter"], d["jitter"] + 1, size=len(index))
            x, y = train.batch(index, shifts, rng.random(len(index)) < d["rc_probability"])
            optimizer.zero_grad()
            loss_of(model, x, y, weight).backward()
            optimizer.step()
        loss = valid_loss(model, valid, batch, weight)
        print(f"{label} epoch {epoch}: val_loss {loss:.4f} ({time.perf_counter() - start:.0f} s)",
              flush=True)
        if loss < best:
            best, waited = loss, 0
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            waited += 1
            if waited >= recipe["early_stopping"]["patience"]:
                break
    model.load_state_dict(best_state)
    return time.perf_counter() - start


def load_strand(model, tensors):
    """strand's node names -> bpnet-lite's modules, for the bias ("bias_" prefix) and the
    accessibility model."""
    for prefix, part in (("bias_", model.bias), ("", model.accessibility)):
        mapped = {"iconv": f"{prefix}conv", "fconv": f"{prefix}profile_conv",
                  "linear": f"{prefix}counts"}
        mapped.update({f"rconvs.{i}": f"{prefix}block{i + 1}_conv" for i in range(part.n_layers)})
        state = {}
        for ours, theirs in mapped.items():
            for kind in ("weight", "bias"):
                state[f"{ours}.{kind}"] = torch.as_tensor(np.asarray(tensors[f"{theirs}.{kind}"]))
        part.load_state_dict(state, strict=True)


@torch.no_grad()
def score(model, test, batch):
    model.eval()
    jsd, predicted, observed = [], [], []
    for i in range(0, len(test), batch):
        index = list(range(i, min(i + batch, len(test))))
        x, y = test.batch(index, [0] * len(index), [False] * len(index))
        logits, log_counts = model(x)
        p = torch.softmax(logits.reshape(len(index), -1), dim=-1).numpy().astype(np.float64)
        o = y.reshape(len(index), -1).numpy().astype(np.float64)
        o = o / np.maximum(o.sum(-1, keepdims=True), 1e-12)
        m = 0.5 * (p + o)
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = lambda a: np.where(a > 0, a * np.log(a / m), 0.0).sum(-1)  # noqa: E731
            jsd.extend(np.sqrt(np.maximum(0.5 * kl(p) + 0.5 * kl(o), 0.0)))
        predicted.extend(log_counts[:, 0].numpy())
        observed.extend(np.log1p(y.sum(dim=(1, 2)).numpy()))
    return {"median_jsd": float(np.median(jsd)),
            "counts_pearson": float(q.pearson(np.array(predicted), np.array(observed)))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="strand simulate --simulation atac's folder")
    parser.add_argument("--bias-recipe", required=True, help="strand's resolved bias config")
    parser.add_argument("--recipe", required=True, help="strand's resolved chrombpnet config")
    parser.add_argument("--valid", required=True, help="the validation contigs (comma-separated)")
    parser.add_argument("--test", required=True, help="the test contigs (comma-separated)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--evaluate-strand", metavar="RUN_DIR")
    parser.add_argument("--out", required=True, help="JSON with the figures")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    bias_recipe, recipe = q.load_recipe(args.bias_recipe), q.load_recipe(args.recipe)
    window, length = recipe["data"]["window"], recipe["data"]["profile_length"]
    genome = {n: q.codes_of(s) for n, s in q.read_fasta(f"{args.data}/genome.fa").items()}
    cuts = read_cuts(f"{args.data}/cuts.bw")
    valid_contigs, test_contigs = set(args.valid.split(",")), set(args.test.split(","))
    train_contigs = set(genome) - valid_contigs - test_contigs

    def windows(names, contigs):
        return Windows(genome, cuts, [f"{args.data}/{n}" for n in names], contigs, window, length)

    test = windows(["peaks.narrowPeak"], test_contigs)
    model = ChromBPNet(bpnet(bias_recipe, window, length), bpnet(recipe, window, length))
    figures = {"program": f"bpnet-lite ChromBPNet, torch {torch.__version__}", "seed": args.seed}
    if args.evaluate_strand:
        checkpoint = f"{args.evaluate_strand}/checkpoints/best.safetensors"
        load_strand(model, q.read_safetensors(checkpoint))
        figures["program"] = "strand (its checkpoint scored by this script)"
    else:
        peaks = windows(["peaks.narrowPeak"], train_contigs)
        threshold = bias_recipe["data"]["bias_threshold_factor"] * np.quantile(peaks.totals(), 0.01)
        bias_sets = []
        for contigs in (train_contigs, valid_contigs):
            nonpeaks = windows(["nonpeaks.bed"], contigs)
            nonpeaks.keep(nonpeaks.totals() < threshold)
            bias_sets.append(nonpeaks)
        for p in model.bias.parameters():  # ChromBPNet() froze it; it is trained first
            p.requires_grad = True
        figures["bias_seconds"] = fit(model.bias, model.bias.parameters(), *bias_sets, bias_recipe,
                                      args.seed, "bias")
        for p in model.bias.parameters():
            p.requires_grad = False
        train = windows(["peaks_nonpeaks.bed"], train_contigs)
        valid = windows(["peaks_nonpeaks.bed"], valid_contigs)
        figures["chrombpnet_seconds"] = fit(model, model.accessibility.parameters(), train, valid,
                                            recipe, args.seed, "chrombpnet")
    figures.update(score(model, test, recipe["batch_size"]))
    figures["test_peaks"] = len(test)
    print(json.dumps(figures))
    q.write_json(args.out, figures)


if __name__ == "__main__":
    main()
