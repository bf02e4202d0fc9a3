"""`strand variants` against its PyTorch peer (bench/variants/peer_variants.py), for the
reference, Basset and BPNet presets with the same weights:

  --check   the scores agree to 1e-4 on a VCF of SNVs, MNVs, insertions, deletions and
            variants at contig ends, with and without --rc-average;
  --speed   variants/s of both programs on the same VCF, 2 threads each, alternating rounds;
  --scale   strand alone on VCFs of 100,000 and 1,000,000 variants (the reference preset, a
            bgzipped and indexed VCF output): variants/s and peak memory (/usr/bin/time -v).

Everything is made under --work (reused when present): a `strand simulate --simulation
chip_nexus_profile` genome with bigWigs and peaks, one strand run per preset trained for an
epoch (weights are what matter here, not their quality), and the VCFs (REF from the genome,
positions and alleles from a seeded generator).

    python bench/variants/compare_variants.py --strand build/cli/strand --work W --check --speed

bench/variants/run_variants_comparison.sh builds strand and makes the Python environment.
"""
import argparse
import math
import os
import pathlib
import random
import re
import statistics
import subprocess
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
PRESETS = ("reference", "basset", "bpnet")
WINDOWS = {"reference": 500, "basset": 600, "bpnet": 2114}


def run(command, **kwargs):
    return subprocess.run([str(c) for c in command], check=True, text=True,
                          capture_output=True, **kwargs)


def read_fasta(path):
    records, name, parts = {}, None, []
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith(">"):
            if name:
                records[name] = "".join(parts)
            name, parts = line[1:].split()[0], []
        else:
            parts.append(line.strip())
    records[name] = "".join(parts)
    return records


def prepare(strand, work, threads):
    """The simulated data and one trained run per preset, made once."""
    sim = work / "sim"
    if not (sim / "genome.fa").exists():
        run([strand, "simulate", "--simulation", "chip_nexus_profile", "--contigs", 4,
             "--contig-length", 250000, "--peaks", 80, "--window", 2114, "--seed", 3, "--out", sim])
        peaks = "".join((sim / f"{part}.narrowPeak").read_text() for part in ("train", "valid", "test"))
        (sim / "all.narrowPeak").write_text(peaks)
    common = ["--format", "narrowpeak", "--fasta", sim / "genome.fa", "--epochs", 1,
              "--output-dir", work / "runs", "--threads", threads]
    labelled = ["--intervals", sim / "all.narrowPeak", "--valid-chroms", "chr3", "--test-chroms",
                "chr4", "--negatives-ratio", 1]
    bigwigs = [f"{sim}/{m}.plus.bw,{sim}/{m}.minus.bw" for m in ("POU5F1_known1", "SOX2_1")]
    flags = {
        "reference": labelled + ["--window", 500],
        # A small learning rate keeps its sigmoids off 0 and 1 after an epoch.
        "basset": labelled + ["--model", "basset", "--window", 600, "--lr", 0.00002],
        "bpnet": ["--model", "bpnet", "--intervals", sim / "train.narrowPeak", "--valid-intervals",
                  sim / "valid.narrowPeak", "--test-intervals", sim / "test.narrowPeak",
                  "--profile-bigwigs", *bigwigs],
    }
    for preset in PRESETS:
        if not (work / "runs" / preset / "checkpoints" / "best.safetensors").exists():
            run([strand, "train", *common, "--run-name", preset, *flags[preset]])
    return sim


def write_vcf(path, genome, count, seed, kinds):
    """`count` variants, sorted, REF from the genome; kinds: "snv" only or "all" (SNVs, MNVs,
    insertions, deletions, a multi-allelic site, and variants at the contig ends)."""
    rng = random.Random(seed)
    rows = []
    names = sorted(genome)
    for i in range(count):
        chrom = rng.choice(names)
        sequence = genome[chrom]
        kind = "snv" if kinds == "snv" else rng.choices(
            ["snv", "mnv", "insertion", "deletion", "multi"], [80, 3, 6, 6, 5])[0]
        pos = rng.randint(1, len(sequence) - 20)
        if kinds != "snv" and i < 4:  # the contig ends
            pos = [1, 3, len(sequence) - 1, len(sequence) - 12][i]
            kind = ["snv", "insertion", "snv", "deletion"][i]
        ref = sequence[pos - 1]
        other = [b for b in "ACGT" if b != ref.upper()]
        if kind == "snv":
            alts = [rng.choice(other)]
        elif kind == "multi":
            alts = other
        elif kind == "mnv":
            ref = sequence[pos - 1:pos + 2]
            alts = ["".join(rng.choice("ACGT") for _ in ref)]
        elif kind == "insertion":
            alts = [ref + "".join(rng.choice("ACGT") for _ in range(rng.randint(1, 15)))]
        else:
            ref = sequence[pos - 1:pos + rng.randint(1, 15)]
            alts = [ref[0]]
        rows.append((chrom, pos, f"v{i}", ref, ",".join(alts)))
    rows.sort(key=lambda r: (names.index(r[0]), r[1]))
    with open(path, "w") as handle:
        handle.write("##fileformat=VCFv4.2\n")
        for name in names:
            handle.write(f"##contig=<ID={name},length={len(genome[name])}>\n")
        handle.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        for chrom, pos, vid, ref, alts in rows:
            handle.write(f"{chrom}\t{pos}\t{vid}\t{ref}\t{alts}\t.\t.\t.\n")


def read_scores(path):
    lines = pathlib.Path(path).read_text().splitlines()
    header = lines[0].split("\t")
    keys = [tuple(line.split("\t")[:5]) for line in lines[1:]]
    values = np.array([[float(v) for v in line.split("\t")[5:]] for line in lines[1:]])
    return header, keys, values


def strand_variants(strand, work, sim, preset, vcf, out, threads, extra=()):
    result = run([strand, "variants", "--model", work / "runs" / preset, "--fasta",
                  sim / "genome.fa", "--vcf", vcf, "--out", out, "--threads", threads, *extra])
    rate = re.search(r"; ([0-9.]+) variants/s", result.stdout)
    return float(rate.group(1))


def peer_variants(python, work, sim, preset, vcf, out, threads, extra=()):
    result = run([python, HERE / "peer_variants.py", "--run", work / "runs" / preset, "--fasta",
                  sim / "genome.fa", "--vcf", vcf, "--out", out, "--threads", threads, *extra])
    return float(re.search(r": ([0-9.]+) variants/s", result.stdout).group(1))


def check(args, work, sim, genome):
    vcf = work / "check.vcf"
    write_vcf(vcf, genome, 400, 26, "all")
    worst_of_all = 0.0
    for preset in PRESETS:
        for extra in ((), ("--rc-average",)):
            tag = preset + ("_rc" if extra else "")
            strand_out, peer_out = work / f"strand_{tag}.tsv", work / f"peer_{tag}.tsv"
            strand_variants(args.strand, work, sim, preset, vcf, strand_out, args.threads, extra)
            peer_variants(sys.executable, work, sim, preset, vcf, peer_out, args.threads, extra)
            header, keys, ours = read_scores(strand_out)
            _, peer_keys, theirs = read_scores(peer_out)
            assert keys == peer_keys, f"{tag}: the rows differ"
            assert ours.shape == theirs.shape, f"{tag}: {header} vs the peer's columns"
            worst = float(np.max(np.abs(ours - theirs)))
            column = header[5 + int(np.argmax(np.max(np.abs(ours - theirs), axis=0)))]
            worst_of_all = max(worst_of_all, worst)
            print(f"check {tag:14s}: {len(keys)} ALT rows, {ours.shape[1]} columns "
                  f"({', '.join(header[5:9])}{', ...' if len(header) > 9 else ''}); "
                  f"max |strand - PyTorch| = {worst:.2e} (column {column})", flush=True)
    verdict = "OK" if worst_of_all <= 1e-4 else "FAIL"
    print(f"check: largest difference {worst_of_all:.2e} (tolerance 1e-4): {verdict}")
    return worst_of_all <= 1e-4


def speed(args, work, sim, genome):
    print(f"speed: {args.speed_variants} variants (88% substitutions, 12% indels, as in human "
          f"VCFs), "
          f"{args.threads} threads, {args.rounds} alternating rounds; load {load()}", flush=True)
    vcf = work / "speed.vcf"
    write_vcf(vcf, genome, args.speed_variants, 7, "all")
    for preset in args.speed_presets.split(","):
        ours, theirs = [], []
        for round_index in range(args.rounds):
            ours.append(strand_variants(args.strand, work, sim, preset, vcf, work / "speed_strand.tsv",
                                        args.threads))
            theirs.append(peer_variants(sys.executable, work, sim, preset, vcf,
                                        work / "speed_peer.tsv", args.threads))
            print(f"  {preset} round {round_index + 1}: strand {ours[-1]:.1f}, PyTorch {theirs[-1]:.1f} "
                  f"variants/s (load {load()})", flush=True)
        s, p = statistics.median(ours), statistics.median(theirs)
        print(f"speed {preset}: strand {s:.1f} variants/s, PyTorch peer {p:.1f} variants/s: "
              f"{s / p:.2f}x", flush=True)


def scale(args, work, sim, genome):
    for count in [int(c) for c in args.scale_variants.split(",")]:
        vcf = work / f"scale_{count}.vcf"
        if not vcf.exists():
            write_vcf(vcf, genome, count, 11, "all")
        result = subprocess.run(
            ["/usr/bin/time", "-v", str(args.strand), "variants", "--model",
             str(work / "runs" / args.scale_preset), "--fasta", str(sim / "genome.fa"), "--vcf",
             str(vcf), "--out", str(work / f"scale_{count}.vcf.gz"), "--threads",
             str(args.threads)], check=True, text=True, capture_output=True)
        summary = [line for line in result.stdout.splitlines() if " scored" in line and "(" in line][-1]
        rate = float(re.search(r"; ([0-9.]+) variants/s", summary).group(1))
        peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1))
        print(f"scale {count} variants ({args.scale_preset}): {rate:.0f} variants/s, peak memory "
              f"{peak / 1024:.0f} MiB; load {load()}\n  {summary}", flush=True)


def load():
    return pathlib.Path("/proc/loadavg").read_text().split()[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strand", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--speed-variants", type=int, default=2000)
    parser.add_argument("--speed-presets", default="basset,bpnet")
    parser.add_argument("--wait-policy", choices=["active", "passive"],
                        help="OMP_WAIT_POLICY for both programs (default: unset, libgomp's "
                        "spin-then-sleep); passive suits a machine shared with other jobs")
    parser.add_argument("--scale", action="store_true")
    parser.add_argument("--scale-variants", default="100000,1000000")
    parser.add_argument("--scale-preset", default="reference")
    args = parser.parse_args()
    if args.wait_policy:
        os.environ["OMP_WAIT_POLICY"] = args.wait_policy
        print(f"OMP_WAIT_POLICY={args.wait_policy} for both programs", flush=True)
    work = pathlib.Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    sim = prepare(args.strand, work, args.threads)
    genome = read_fasta(sim / "genome.fa")
    ok = True
    if args.check:
        ok = check(args, work, sim, genome)
    if args.speed:
        speed(args, work, sim, genome)
    if args.scale:
        scale(args, work, sim, genome)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
