#!/usr/bin/env python3
"""Makes the tutorial's variants (variants.vcf) for the simulated genome of the tutorial's last
section (docs/tutorial.md, "Score variants"):

    strand simulate --simulation chip_nexus_profile --motifs CTCF_known1,REST_known1 \
        --contigs 4 --contig-length 100000 --peaks 150 --window 200 --no-control --seed 1

which plants CTCF and REST motif instances in random contigs (the narrowPeak summits are the
instances' centres) and is the same on every platform. On chr4, the contig the tutorial holds
out for the test: for the first four peaks of each motif, a SNV that breaks the instance (its
most certain base changed to the base the motif least expects there); four SNVs at least 500 bp
from every peak; an insertion into a CTCF instance; a multi-allelic site; a symbolic allele.
REF is the genome's base. The ID says what each variant is (ctcf_break_1, far_1, ...).

Deterministic; only the Python standard library and the strand program. Run from this folder:

    python3 make_variants.py ../../build/cli/strand      # writes variants.vcf
"""
import math
import os
import random
import subprocess
import sys
import tempfile

from make_peaks import read_fasta, read_motifs

HERE = os.path.dirname(os.path.abspath(__file__))
SIMULATE = ["simulate", "--simulation", "chip_nexus_profile", "--motifs", "CTCF_known1,REST_known1",
            "--contigs", "4", "--contig-length", "100000", "--peaks", "150", "--window", "200",
            "--no-control", "--seed", "1"]
CONTIG = "chr4"
BREAKS_PER_MOTIF = 4
FAR = 500
FAR_VARIANTS = 4


def score(sequence, start, pwm, reverse):
    """Log-odds of the instance at `start` on either strand against a uniform background."""
    index = {"A": 0, "C": 1, "G": 2, "T": 3}
    width, total = len(pwm), 0.0
    for k in range(width):
        base = sequence[start + k]
        column = index[base] if not reverse else 3 - index[base]
        p = pwm[k if not reverse else width - 1 - k][column]
        total += math.log2((p * 0.99 + 0.0025) / 0.25)
    return total


def breaking_snv(sequence, summit, pwm):
    """(0-based position, ref, alt) breaking the instance centred near `summit`."""
    width = len(pwm)
    candidates = [(score(sequence, start, pwm, reverse), start, reverse)
                  for start in range(summit - width // 2 - 2, summit - width // 2 + 3)
                  for reverse in (False, True)]
    _, start, reverse = max(candidates)
    best = max(range(width), key=lambda k: (max(pwm[k]), -k))
    row = pwm[best]
    alt = "ACGT"[min(range(4), key=lambda b: row[b])]
    if reverse:
        position = start + width - 1 - best
        alt = {"A": "T", "C": "G", "G": "C", "T": "A"}[alt]
    else:
        position = start + best
    return position, sequence[position], alt


def main():
    strand = sys.argv[1] if len(sys.argv) > 1 else "strand"
    library = os.path.join(HERE, "..", "..", "data", "motifs", "encode_motifs.txt.gz")
    motifs = read_motifs(library, {"CTCF_known1", "REST_known1"})
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([strand, *SIMULATE, "--out", work], check=True, stdout=subprocess.DEVNULL)
        genome = read_fasta(os.path.join(work, "genome.fa"))
        peaks = []
        for part in ("train", "valid", "test"):
            with open(os.path.join(work, f"{part}.narrowPeak")) as handle:
                for line in handle:
                    fields = line.split("\t")
                    motif = fields[3].split("_", 1)[1]
                    peaks.append((fields[0], int(fields[1]) + int(fields[9]), motif))
    sequence = genome[CONTIG]
    rows = []
    for motif, label in (("CTCF_known1", "ctcf"), ("REST_known1", "rest")):
        mine = [p for p in peaks if p[0] == CONTIG and p[2] == motif][:BREAKS_PER_MOTIF]
        for i, (_, summit, _) in enumerate(mine):
            position, ref, alt = breaking_snv(sequence, summit, motifs[motif])
            rows.append((position + 1, f"{label}_break_{i + 1}", ref, alt))
    rng = random.Random(26)
    summits = [s for c, s, _ in peaks if c == CONTIG]
    far = 0
    while far < FAR_VARIANTS:
        position = rng.randint(FAR, len(sequence) - FAR)
        if any(abs(s - position) < FAR for s in summits):
            continue
        far += 1
        ref = sequence[position]
        rows.append((position + 1, f"far_{far}", ref, rng.choice([b for b in "ACGT" if b != ref])))
    ctcf = [s for c, s, m in peaks if c == CONTIG and m == "CTCF_known1"]
    insertion_at = ctcf[-1]
    rows.append((insertion_at + 1, "ctcf_insertion", sequence[insertion_at],
                 sequence[insertion_at] + "TTTTTTTT"))
    multi_at = rows[-2][0] + 40  # beside the last far variant
    ref = sequence[multi_at - 1]
    rows.append((multi_at, "multi_allelic", ref, ",".join(b for b in "ACGT" if b != ref)))
    rows.append((multi_at + 200, "structural", sequence[multi_at + 199], "<DEL>"))
    rows.sort()
    with open(os.path.join(HERE, "variants.vcf"), "w") as out:
        out.write("##fileformat=VCFv4.2\n")
        out.write(f"##contig=<ID={CONTIG},length={len(sequence)}>\n")
        out.write('##INFO=<ID=SVTYPE,Number=1,Type=String,Description="Type of structural variant">\n')
        out.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        for position, name, ref, alt in rows:
            info = "SVTYPE=DEL" if alt == "<DEL>" else "."
            out.write(f"{CONTIG}\t{position}\t{name}\t{ref}\t{alt}\t.\t.\t{info}\n")


if __name__ == "__main__":
    main()
