"""Matches TF-MoDISco-lite's patterns (modisco motifs' HDF5) against motifs, as `modisco report
-m` does: each pattern's best matches with q-values, and for each motif a simulation embedded
(its motifs.meme, which `strand simulate` writes) the best q-value of any pattern matching it.

The MEME suite's `tomtom` program is not packaged for Debian, so the comparison is memelite's
tomtom (the TOMTOM algorithm that `modisco report --lite` uses): each pattern's probability
matrix, trimmed where its contribution is under 30% of its peak (modisco report's
trim_threshold), against every motif of a database, both strands. The database is strand's whole
motif library (data/motifs/encode_motifs.txt.gz, about 2,000 motifs; tomtom's p-values need a
large target set) with the embedded motifs among them; q-values are Benjamini-Hochberg over each
pattern's p-values against all the database's motifs, as TOMTOM's are over its targets. A motif
counts as recovered when some pattern matches it with q < 0.05.

    python bench/explain/match_patterns.py modisco.h5 motifs.meme [--json out.json]
"""
import argparse
import gzip
import json
import pathlib
import sys
import tempfile

import h5py
import numpy as np
from memelite import tomtom
from memelite.io import read_meme


def patterns(path, trim_threshold=0.3):
    out = []
    with h5py.File(path, "r") as results:
        for group in ("pos_patterns", "neg_patterns"):
            if group not in results:
                continue
            for name in sorted(results[group], key=lambda n: int(n.split("_")[-1])):
                pattern = results[group][name]
                ppm = np.array(pattern["sequence"][:])
                cwm = np.array(pattern["contrib_scores"][:])
                score = np.abs(cwm).sum(axis=1)
                keep = np.where(score >= score.max() * trim_threshold)[0]
                ppm = ppm[keep.min():keep.max() + 1]
                seqlets = int(pattern["seqlets"]["n_seqlets"][:][0])
                out.append((f"{group}.{name}", ppm.T, seqlets))
    return out


def library_meme(path, out):
    """strand's ENCODE-format motif library (">NAME aliases" then "IUPAC pA pC pG pT" rows) as a
    MEME file at `out`."""
    motifs, name = {}, None
    for line in gzip.open(path, "rt"):
        fields = line.split()
        if not fields:
            continue
        if line.startswith(">"):
            name = fields[0][1:]
            motifs[name] = []
        else:
            motifs[name].append([float(v) for v in fields[1:5]])
    text = "MEME version 4\n\nALPHABET= ACGT\n\nstrands: + -\n\n"
    for name, rows in motifs.items():
        text += f"MOTIF {name}\nletter-probability matrix: alength= 4 w= {len(rows)}\n"
        text += "".join(" ".join(f"{v:.6f}" for v in row) + "\n" for row in rows) + "\n"
    pathlib.Path(out).write_text(text)


def benjamini_hochberg(p):
    order = np.argsort(p)
    ranked = p[order] * len(p) / (np.arange(len(p)) + 1)
    q = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty_like(q)
    out[order] = np.minimum(q, 1.0)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("h5")
    parser.add_argument("meme", help="the embedded motifs (strand simulate's motifs.meme)")
    parser.add_argument("--library", default=str(pathlib.Path(__file__).resolve().parents[2] /
                                                 "data" / "motifs" / "encode_motifs.txt.gz"))
    parser.add_argument("--json")
    args = parser.parse_args()
    embedded = [n.split()[0] for n in read_meme(args.meme)]
    with tempfile.TemporaryDirectory() as tmp:
        library_meme(args.library, f"{tmp}/library.meme")
        database = read_meme(f"{tmp}/library.meme")
    names = [n.split()[0] for n in database]
    missing = [m for m in embedded if m not in names]
    if missing:
        raise SystemExit(f"the library has no motif {missing}")
    targets = list(database.values())
    found = patterns(args.h5)
    rows = []
    best_q = {m: 1.0 for m in embedded}
    if found:
        p, _, _, _, _, idxs = tomtom([ppm for _, ppm, _ in found], targets,
                                     n_nearest=len(targets))
        for k, (name, ppm, seqlets) in enumerate(found):
            pvalues = np.ones(len(targets))
            pvalues[idxs[k].astype(int)] = p[k]
            q = benjamini_hochberg(pvalues)
            order = np.argsort(q)
            top = [(names[i], float(q[i])) for i in order[:3]]
            for m in embedded:
                best_q[m] = min(best_q[m], float(q[names.index(m)]))
            rows.append({"pattern": name, "seqlets": seqlets, "width": ppm.shape[1],
                         "matches": top})
    print(f"{'pattern':<28}{'seqlets':>8}{'width':>6}  best matches (q-value)")
    for row in rows:
        matches = ", ".join(f"{m} ({q:.1e})" for m, q in row["matches"])
        print(f"{row['pattern']:<28}{row['seqlets']:>8}{row['width']:>6}  {matches}")
    print("embedded motifs, best q-value of a pattern matching each:")
    for m in embedded:
        print(f"  {m:<16}{best_q[m]:.2e}{'  recovered' if best_q[m] < 0.05 else ''}")
    recovered = [m for m in embedded if best_q[m] < 0.05]
    print(f"recovered (q < 0.05): {len(recovered)} of {len(embedded)}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"patterns": rows, "embedded_q": best_q, "recovered": recovered}, out,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
