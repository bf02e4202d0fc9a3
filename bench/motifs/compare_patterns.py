"""Compares the patterns of two modisco-lite results files (strand motifs' and modisco motifs')
with each other and with the motifs a simulation embedded (its motifs.meme), by the mean column
Pearson correlation of PPMs at the best offset and strand (motifs/motif_similarity.h's measure:
at least ceil(0.75 * the shorter width) columns overlapping). PPMs are trimmed where the CWM's
total falls under 30% of its peak, as modisco report trims.

    python bench/motifs/compare_patterns.py strand.h5 modisco.h5 motifs.meme [--json out.json]

A pattern "matches" a motif at a mean column Pearson >= 0.8 (the issue's acceptance measure).
"""
import argparse
import json
import math
import sys

import h5py
import numpy as np


def patterns(path):
    out = []
    with h5py.File(path, "r") as f:
        for group in ("pos_patterns", "neg_patterns"):
            if group not in f:
                continue
            for name in sorted(f[group], key=lambda n: int(n.split("_")[-1])):
                p = f[group][name]
                ppm = np.array(p["sequence"][:])
                score = np.abs(np.array(p["contrib_scores"][:])).sum(axis=1)
                keep = np.where(score >= score.max() * 0.3)[0]
                out.append((f"{group[:3]}_{name}", ppm[keep.min():keep.max() + 1],
                            int(p["seqlets"]["n_seqlets"][0])))
    return out


def read_meme(path):
    motifs, name, rows = {}, None, None
    for line in open(path):
        words = line.split()
        if not words:
            continue
        if words[0] == "MOTIF":
            name = words[1]
            motifs[name] = []
        elif name and len(words) == 4:
            try:
                motifs[name].append([float(w) for w in words])
            except ValueError:
                pass
    return {k: np.array(v) for k, v in motifs.items() if v}


def column_pearson(a, b):
    best = -1.0
    need = max(1, math.ceil(0.75 * min(len(a), len(b))))
    for bb in (b, b[::-1, ::-1]):
        for offset in range(-len(bb) + 1, len(a)):
            lo, hi = max(0, offset), min(len(a), offset + len(bb))
            if hi - lo < need:
                continue
            r = []
            for p in range(lo, hi):
                x, y = a[p] - a[p].mean(), bb[p - offset] - bb[p - offset].mean()
                d = math.sqrt((x * x).sum() * (y * y).sum())
                r.append(float((x * y).sum() / d) if d > 0 else 0.0)
            best = max(best, sum(r) / len(r))
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("strand_h5")
    parser.add_argument("modisco_h5")
    parser.add_argument("meme", help="the embedded motifs (strand simulate's motifs.meme)")
    parser.add_argument("--json")
    args = parser.parse_args()
    embedded = read_meme(args.meme)
    found = {"strand": patterns(args.strand_h5), "modisco": patterns(args.modisco_h5)}
    report = {}
    for tool, pats in found.items():
        print(f"{tool}: {len(pats)} patterns")
        rows = []
        for name, ppm, n in pats:
            best = max(((column_pearson(ppm, m), k) for k, m in embedded.items()),
                       default=(-1, ""))
            rows.append({"pattern": name, "seqlets": n, "width": len(ppm),
                         "best_embedded": best[1], "pearson": round(best[0], 3)})
            print(f"  {name:<24}{n:>7}{len(ppm):>4}  {best[1]} {best[0]:.3f}")
        report[tool] = rows
    recovered = {tool: sorted({r["best_embedded"] for r in rows if r["pearson"] >= 0.8})
                 for tool, rows in report.items()}
    print("embedded motifs matched (column Pearson >= 0.8):", recovered)
    missing = [m for m in recovered["modisco"] if m not in recovered["strand"]]
    print("found by modisco but not by strand:", missing or "none")
    first = report["strand"][0] if report["strand"] else None
    if first:
        print(f"strand's first pattern: {first['pattern']} -> {first['best_embedded']} "
              f"{first['pearson']:.3f}")
    if args.json:
        json.dump({"patterns": report, "recovered": recovered, "missing": missing},
                  open(args.json, "w"), indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
