"""PyTorch peer of `strand variants`: the loop kipoi-veff and tangermeme users run. Records from
pysam.VariantFile, windows from pysam.FastaFile cut by chrombpnet's rule (the allele at L // 2,
the right flank trimmed or extended; N beyond a contig), one-hot batches, torch inference in
evaluation mode, and the same scores as strand's: ref, alt, diff (and log2fc of log counts)
per task, the base-2 Jensen-Shannon distance of each profile track. The weights are a strand
run's checkpoint, loaded by name into the PyTorch twins of the presets (bench/quality).

    python bench/variants/peer_variants.py --run RUN --fasta G.fa --vcf V.vcf --out P.tsv \
        [--threads 2] [--batch 64] [--rc-average]

Writes a TSV with strand's columns in strand's order (id chrom pos ref alt, then per output
and task its scores) and prints `peer: N variants in S s: R variants/s` (the loop's wall time:
reading, windows, inference, scores and writing; loading the model excluded).
"""
import argparse
import json
import math
import pathlib
import sys
import time

import numpy as np
import pysam
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "quality"))
import quality_common as q  # noqa: E402
from peer_basset_quality import basset  # noqa: E402
from peer_bpnet_quality import BPNet  # noqa: E402


class GlobalMaxPool1d(torch.nn.Module):
    def forward(self, x):
        return x.amax(dim=-1)


def reference_model(filters, kernel_size, tasks):
    """The default config's model (Conv1D - ReLU - GlobalMaxPool1D - Dense), final Sigmoid left
    out; names as strand's layer indices."""
    return torch.nn.Sequential(torch.nn.Conv1d(4, filters, kernel_size), torch.nn.ReLU(),
                               GlobalMaxPool1d(), torch.nn.Linear(filters, tasks))


def load_model(run):
    """(model, kind, length, reverse_tracks): kind is "sigmoid" (one value per task through a
    sigmoid) or "bpnet" (profile logits and log counts)."""
    config = json.loads((run / "config.json").read_text())
    weights = q.read_safetensors(run / "checkpoints" / "best.safetensors")
    length = config["data"]["window"]
    model_spec = config["model"]
    if isinstance(model_spec, dict):
        tracks = weights["profile_conv.weight"].shape[0]
        model = BPNet(tracks, config["data"]["profile_length"])
        kind = "bpnet"
        # Each profile bigWig entry "plus.bw,minus.bw" is a stranded pair that swaps.
        reverse = []
        for entry in config["data"]["profile_bigwigs"]:
            first = len(reverse)
            files = entry.split(",")
            reverse += [first + len(files) - 1 - i for i in range(len(files))]
    elif len(model_spec) > 10:
        model = basset(length, weights["21.weight"].shape[0])
        kind, reverse = "sigmoid", None
    else:
        conv = model_spec[0]
        model = reference_model(conv["filters"], conv["kernel_size"], weights["3.weight"].shape[0])
        kind, reverse = "sigmoid", None
    state = {k: v.to(model.state_dict()[k].dtype) for k, v in weights.items()}
    model.load_state_dict(state, strict=True)
    model.eval()
    return model, kind, length, reverse


class Windows:
    """chrombpnet's allele windows from a pysam FastaFile, N beyond the contig ends."""

    def __init__(self, fasta, length):
        self.fasta = pysam.FastaFile(fasta)
        self.lengths = dict(zip(self.fasta.references, self.fasta.lengths))
        self.length = length
        self.flank = length // 2

    def fetch(self, chrom, start, end):
        n = self.lengths[chrom]
        left, right = max(0, -start), max(0, end - n)
        middle = self.fasta.fetch(chrom, max(start, 0), min(end, n)) if min(end, n) > max(start, 0) else ""
        return "N" * left + middle.upper() + "N" * right

    def pair(self, chrom, pos, ref, alt):
        p0, flank, length = pos - 1, self.flank, self.length
        extra = max(0, len(ref) - len(alt))
        source = self.fetch(chrom, p0 - flank, p0 - flank + length + extra)
        ref_window = source[:flank] + ref + source[flank + len(ref):length]
        alt_window = source[:flank] + alt + source[flank + len(ref):length + len(ref) - len(alt)]
        return ref_window, alt_window


_LOOKUP = np.full(256, 4, dtype=np.uint8)
for _code, _bases in enumerate(("Aa", "Cc", "Gg", "Tt")):
    for _base in _bases:
        _LOOKUP[ord(_base)] = _code
_EYE = np.concatenate([np.eye(4, dtype=np.float32), np.zeros((1, 4), np.float32)])


def one_hot(windows):
    codes = _LOOKUP[np.frombuffer("".join(windows).encode(), dtype=np.uint8)]
    return np.ascontiguousarray(np.moveaxis(_EYE[codes.reshape(len(windows), -1)], -1, -2))


def jsd_rows(alt_logits, ref_logits):
    """Base-2 Jensen-Shannon distance of softmax rows (scipy's jensenshannon, vectorised)."""
    def softmax(x):
        x = x.astype(np.float64)
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    p, r = softmax(alt_logits), softmax(ref_logits)
    m = 0.5 * (p + r)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(p > 0, p * np.log(p / m), 0.0).sum(-1) + np.where(r > 0, r * np.log(r / m), 0.0).sum(-1)
    return np.sqrt(np.maximum(kl / math.log(2.0) / 2.0, 0.0))


def predict(model, kind, x, rc_average, reverse):
    """(values (B, T) or None, profile logits (B, S, Lp) or None, log counts (B, 1) or None)."""
    def once(batch):
        out = model(batch)
        if kind == "bpnet":
            return out[0], out[1]
        return torch.sigmoid(out), None
    first, second = once(x)
    if rc_average:
        rc = torch.flip(x, dims=(1, 2))
        r_first, r_second = once(rc)
        if kind == "bpnet":
            first = 0.5 * (first + r_first[:, reverse, :].flip(-1))
            second = 0.5 * (second + r_second)
        else:
            first = 0.5 * (first + r_first)
    return first.numpy(), None if second is None else second.numpy()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", required=True)
    parser.add_argument("--fasta", required=True)
    parser.add_argument("--vcf", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rc-average", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model, kind, length, reverse = load_model(pathlib.Path(args.run))
    windows = Windows(args.fasta, length)

    start = time.perf_counter()
    scored = 0
    with open(args.out, "w") as out, torch.inference_mode():
        header_written = False
        pending = []  # (record fields, ref window, alt window)

        def flush():
            nonlocal header_written, scored
            if not pending:
                return
            x = torch.from_numpy(one_hot([p[1] for p in pending] + [p[2] for p in pending]))
            first, second = predict(model, kind, x, args.rc_average, reverse)
            b = len(pending)
            if not header_written:
                names = []
                if kind == "bpnet":
                    names += [f"track_{s}.jsd" for s in range(first.shape[1])]
                    names += [f"counts.{s}" for s in ("ref", "alt", "diff", "log2fc")]
                else:
                    for t in range(first.shape[1]):
                        names += [f"task_{t}.{s}" for s in ("ref", "alt", "diff")]
                out.write("id\tchrom\tpos\tref\talt\t" + "\t".join(names) + "\n")
                header_written = True
            if kind == "bpnet":
                jsd = np.stack([jsd_rows(first[b:, s], first[:b, s]) for s in range(first.shape[1])], 1)
                ref, alt = second[:b, 0].astype(np.float64), second[b:, 0].astype(np.float64)
                columns = np.concatenate([jsd, np.stack([ref, alt, alt - ref, (alt - ref) / math.log(2.0)], 1)], 1)
            else:
                ref, alt = first[:b].astype(np.float64), first[b:].astype(np.float64)
                columns = np.stack([ref, alt, alt - ref], 2).reshape(b, -1)
            for fields, row in zip((p[0] for p in pending), columns):
                out.write("\t".join(fields) + "\t" + "\t".join(repr(float(v)) for v in row) + "\n")
            scored += b
            pending.clear()

        for record in pysam.VariantFile(args.vcf):
            for alt in record.alts:
                ref_window, alt_window = windows.pair(record.chrom, record.pos, record.ref, alt)
                pending.append(((record.id or ".", record.chrom, str(record.pos), record.ref, alt),
                                ref_window, alt_window))
                if len(pending) == args.batch:
                    flush()
        flush()
    seconds = time.perf_counter() - start
    print(f"peer: {scored} variants in {seconds:.2f} s: {scored / seconds:.1f} variants/s")


if __name__ == "__main__":
    main()
