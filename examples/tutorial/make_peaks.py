#!/usr/bin/env python3
"""Makes the tutorial's peak files: for each of three motifs of strand's motif library
(data/motifs/encode_motifs.txt.gz: GATA, TATA, TCF7L2), the strong matches on the tutorial genome
(genome.fa.gz, 17 yeast chromosomes of 10 kb; at least 80% of the motif's best possible
log-odds score against a uniform background, either strand, 200 bp apart, at most 100, best
first) as a narrowPeak file, as a ChIP-seq peak caller would report binding sites: a 100 bp
peak around each match, its summit at the match's centre, the score as signalValue.

These peaks are made from sequence, not measured: they stand in for the peak files of an
experiment so that the tutorial (docs/tutorial.md) runs anywhere in a minute. Deterministic; only
the Python standard library. Run from this folder:

    python3 make_peaks.py            # writes peaks/<motif>.narrowPeak
"""
import gzip
import math
import os

MOTIFS = ["GATA_known1", "TATA_known1", "TCF7L2_known1"]
PEAKS_PER_MOTIF = 100  # at most: the strong matches, best first
MIN_FRACTION = 0.8  # of the motif's best possible score
HALF_WIDTH = 50  # bases each side of the summit
MIN_SPACING = 200  # between two peaks of one motif
HERE = os.path.dirname(os.path.abspath(__file__))


def read_fasta(path):
    """Records of a FASTA, plain or gzipped, upper-cased: {name: sequence}."""
    records, name = {}, None
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(">"):
                name = line[1:].split()[0]
                records[name] = []
            elif name:
                records[name].append(line.upper())
    return {name: "".join(parts) for name, parts in records.items()}


def read_motifs(path, names):
    """PWMs of the Kheradpour/Kellis file (strand's motif library): '>NAME ...' then
    'IUPAC pA pC pG pT' rows."""
    motifs, name = {}, None
    with gzip.open(path, "rt") as handle:
        for line in handle:
            fields = line.split()
            if not fields:
                continue
            if fields[0].startswith(">"):
                name = fields[0][1:]
                if name in names:
                    motifs[name] = []
            elif name in motifs:
                motifs[name].append([float(x) for x in fields[1:5]])
    return motifs


def log_odds(pwm):
    return [[math.log2((p * 0.99 + 0.0025) / 0.25) for p in row] for row in pwm]


def best_score(sequence, start, matrix, reverse):
    """The match score of `matrix` at `start` on the forward or reverse strand."""
    index = {"A": 0, "C": 1, "G": 2, "T": 3}
    width, total = len(matrix), 0.0
    for k in range(width):
        base = sequence[start + k]
        if base not in index:
            return -math.inf
        column = index[base] if not reverse else 3 - index[base]
        total += matrix[k if not reverse else width - 1 - k][column]
    return total


def main():
    genome = read_fasta(os.path.join(HERE, "genome.fa.gz"))
    library = os.path.join(HERE, "..", "..", "data", "motifs", "encode_motifs.txt.gz")
    motifs = read_motifs(library, set(MOTIFS))
    os.makedirs(os.path.join(HERE, "peaks"), exist_ok=True)
    for name in MOTIFS:
        matrix = log_odds(motifs[name])
        width = len(matrix)
        hits = []
        for contig, sequence in genome.items():
            if contig == "chrM":
                continue
            for start in range(HALF_WIDTH, len(sequence) - width - HALF_WIDTH):
                score = max(best_score(sequence, start, matrix, False),
                            best_score(sequence, start, matrix, True))
                hits.append((score, contig, start + width // 2))
        best_possible = sum(max(row) for row in matrix)
        hits = [hit for hit in hits if hit[0] >= MIN_FRACTION * best_possible]
        hits.sort(key=lambda hit: (-hit[0], hit[1], hit[2]))
        kept = []
        for score, contig, summit in hits:
            if all(c != contig or abs(s - summit) >= MIN_SPACING for _, c, s in kept):
                kept.append((score, contig, summit))
            if len(kept) == PEAKS_PER_MOTIF:
                break
        kept.sort(key=lambda hit: (hit[1], hit[2]))
        with open(os.path.join(HERE, "peaks", name.split("_")[0] + ".narrowPeak"), "w") as out:
            for i, (score, contig, summit) in enumerate(kept):
                start = summit - HALF_WIDTH
                out.write(f"{contig}\t{start}\t{summit + HALF_WIDTH}\t{name}_peak{i + 1}\t"
                          f"{min(1000, int(score * 40))}\t.\t{score:.3f}\t-1\t-1\t{HALF_WIDTH}\n")


if __name__ == "__main__":
    main()
