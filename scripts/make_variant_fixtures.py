"""Writes the fixtures of tests/variants/ that an independent construction in Python must
agree with, byte for byte or to 1e-12:

  tests/variants/fixtures/allele_windows.tsv   variants on the yeast test genome and their ref
                                               and alt windows, built as chrombpnet does
  tests/variants/fixtures/jsd_cases.tsv        logit vectors and scipy's Jensen-Shannon distance

The windows follow chrombpnet's VariantGenerator.__get_allele_seq__ (kundajelab/variant-scorer,
src/generators/variant_generator.py), ported line for line for even windows, with two
generalisations that code does not cover (its asserts fail there): an MNV replaces len(ref)
bases (chrombpnet's equal-length branch replaces one), and an odd window of L bases keeps
L // 2 bases on the left and fills the right to L. Bases beyond a contig's ends are N (strand's
padding policy; chrombpnet leaves such variants out). Genome bases come from pysam.FastaFile on
the BGZF genome and are checked against pyfaidx on a decompressed copy.

    python scripts/make_variant_fixtures.py   # with pysam, pyfaidx, numpy, scipy

(bench/peer_env.sh makes a virtual environment: PEER_EXTRA="pysam pyfaidx scipy".)
Deterministic: the variants come from random.Random(26).
"""
import gzip
import pathlib
import random
import shutil
import tempfile

import numpy as np
import pyfaidx
import pysam
from scipy.spatial.distance import jensenshannon

REPO = pathlib.Path(__file__).resolve().parent.parent
GENOME = REPO / "tests/data/fixtures/genomes/yeast_small.fa.gz"
OUT = REPO / "tests/variants/fixtures"


def genome_slice(fasta, lengths, chrom, start, end):
    """Bases [start, end) of chrom, upper case, N outside the contig."""
    n = lengths[chrom]
    left = max(0, -start)
    right = max(0, end - n)
    middle = fasta.fetch(chrom, max(start, 0), min(end, n)).upper() if min(end, n) > max(start, 0) else ""
    return "N" * left + middle + "N" * right


def allele_windows(fasta, lengths, chrom, pos, allele1, allele2, input_len):
    """chrombpnet's __get_allele_seq__ (see the module docstring for the two generalisations)."""
    flank_size = input_len // 2
    right_end = input_len - flank_size  # == flank_size for an even window, as chrombpnet's
    pos = pos - 1  # 1-based -> 0-based
    if len(allele1) == len(allele2):
        flank = genome_slice(fasta, lengths, chrom, pos - flank_size, pos + right_end)
        allele1_seq = flank[:flank_size] + allele1 + flank[flank_size + len(allele1):]
        allele2_seq = flank[:flank_size] + allele2 + flank[flank_size + len(allele1):]
    else:
        mismatch_length = len(allele1) - len(allele2)
        if mismatch_length > 0:
            flank = genome_slice(fasta, lengths, chrom, pos - flank_size,
                                 pos + right_end + mismatch_length)
        else:
            flank = genome_slice(fasta, lengths, chrom, pos - flank_size, pos + right_end)
        left_flank = flank[:flank_size]
        allele1_right_flank = flank[flank_size + len(allele1):flank_size + right_end]
        allele2_right_flank = flank[flank_size + len(allele1):flank_size + right_end + mismatch_length]
        allele1_seq = left_flank + allele1 + allele1_right_flank
        allele2_seq = left_flank + allele2 + allele2_right_flank
    assert len(allele1_seq) == input_len and len(allele2_seq) == input_len
    return allele1_seq, allele2_seq


def random_bases(rng, n):
    return "".join(rng.choice("ACGT") for _ in range(n))


def variants_for(rng, fasta, lengths, input_len):
    """(chrom, pos, ref, alt, what) for one window length."""
    chroms = sorted(lengths)
    out = []

    def ref_at(chrom, pos, n):
        return fasta.fetch(chrom, pos - 1, pos - 1 + n)

    def interior(margin=0):
        chrom = rng.choice(chroms)
        return chrom, rng.randint(1 + margin, lengths[chrom] - 20 - margin)

    for _ in range(6):
        chrom, pos = interior(input_len)
        ref = ref_at(chrom, pos, 1)
        out.append((chrom, pos, ref, rng.choice([b for b in "ACGT" if b != ref.upper()]), "snv"))
    for _ in range(3):
        chrom, pos = interior(input_len)
        n = rng.randint(2, 4)
        ref = ref_at(chrom, pos, n)
        out.append((chrom, pos, ref, "".join("ACGT"[("ACGT".index(b.upper()) + 1) % 4]
                                             if b.upper() in "ACGT" else "A" for b in ref), "mnv"))
    for _ in range(4):
        chrom, pos = interior(input_len)
        ref = ref_at(chrom, pos, 1)
        out.append((chrom, pos, ref, ref + random_bases(rng, rng.randint(1, 12)), "insertion"))
    for _ in range(4):
        chrom, pos = interior(input_len)
        ref = ref_at(chrom, pos, rng.randint(2, 13))
        out.append((chrom, pos, ref, ref[0], "deletion"))
    chrom, pos = interior(input_len)
    out.append((chrom, pos, ref_at(chrom, pos, 3), random_bases(rng, 5), "complex"))
    # Near the contig ends: windows padded with N.
    chrom = rng.choice(chroms)
    out.append((chrom, 1, ref_at(chrom, 1, 1), "G" if ref_at(chrom, 1, 1).upper() != "G" else "C",
                "snv at the first base"))
    end = lengths[chrom]
    out.append((chrom, end, ref_at(chrom, end, 1), "T" if ref_at(chrom, end, 1).upper() != "T" else "A",
                "snv at the last base"))
    out.append((chrom, 5, ref_at(chrom, 5, 1), ref_at(chrom, 5, 1) + "ACGTAC", "insertion near the start"))
    out.append((chrom, end - 9, ref_at(chrom, end - 9, 8), ref_at(chrom, end - 9, 1),
                "deletion near the end"))
    return out


def main():
    rng = random.Random(26)
    with tempfile.TemporaryDirectory() as tmp:
        bgzf = pathlib.Path(tmp) / "yeast_small.fa.gz"
        shutil.copy(GENOME, bgzf)
        plain = pathlib.Path(tmp) / "yeast_small.fa"
        plain.write_bytes(gzip.decompress(GENOME.read_bytes()))
        fasta = pysam.FastaFile(str(bgzf))
        lengths = dict(zip(fasta.references, fasta.lengths))
        check = pyfaidx.Fasta(str(plain), as_raw=True, sequence_always_upper=False)
        for name in lengths:
            assert str(check[name][:]) == fasta.fetch(name), f"pysam and pyfaidx disagree on {name}"
        rows = []
        for input_len in (200, 201, 2114):
            for chrom, pos, ref, alt, what in variants_for(rng, fasta, lengths, input_len):
                ref_window, alt_window = allele_windows(fasta, lengths, chrom, pos, ref, alt, input_len)
                rows.append((chrom, pos, ref, alt, input_len, what, ref_window, alt_window))
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "allele_windows.tsv", "w") as handle:
        handle.write("#chrom\tpos\tref\talt\tlength\twhat\tref_window\talt_window\n")
        for row in rows:
            handle.write("\t".join(str(x) for x in row) + "\n")

    cases = np.random.default_rng(26)
    with open(OUT / "jsd_cases.tsv", "w") as handle:
        handle.write("#alt_logits\tref_logits\tjsd (scipy jensenshannon(softmax(alt), softmax(ref), base=2))\n")
        for n, scale in ((5, 1.0), (5, 8.0), (40, 3.0), (1000, 2.0), (7, 0.0)):
            a = (cases.normal(size=n) * scale).astype(np.float32)
            b = (cases.normal(size=n) * scale).astype(np.float32)
            if scale == 0.0:
                b = a.copy()
            p = np.exp(a.astype(np.float64) - a.max()); p /= p.sum()
            q = np.exp(b.astype(np.float64) - b.max()); q /= q.sum()
            handle.write(",".join(repr(float(x)) for x in a) + "\t" +
                         ",".join(repr(float(x)) for x in b) + "\t" +
                         repr(float(jensenshannon(p, q, base=2.0))) + "\n")
    print(f"wrote {len(rows)} windows and 5 JSD cases to {OUT}")


if __name__ == "__main__":
    main()
