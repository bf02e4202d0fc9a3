"""Loader throughput on the same intervals, three ways, alternated in rounds:

  native   the C++ loader (bench/e2e_loader_epochs, make_loader, batches taken in C++)
  strand   strand.data.Loader feeding numpy (every batch's codes and labels as numpy arrays)
  pyfaidx  a PyTorch Dataset reading windows with pyfaidx + torch DataLoader (num_workers =
           threads), encoding to the same uint8 codes, with the same jitter and strand flips

Same genome (a seeded random FASTA, 60-column lines, 4 x 12.5 Mb), same 100,000 intervals (BED
with one label column), window 1000, batch 64, jitter 50, rc 0.5, 2 threads/workers. Each
measures whole epochs; the figure is windows/s of the median epoch over the rounds.

Usage: PYTHONPATH=build/python python bench/python/bench_loader.py BUILD_DIR [--rounds N]
Needs numpy, torch and pyfaidx (pip install pyfaidx).
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

WINDOW, BATCH, JITTER, RC, THREADS = 1000, 64, 50, 0.5, 2
CONTIGS, CONTIG_LENGTH, INTERVALS = 4, 12_500_000, 100_000


def make_data(root):
    fasta, bed = root / "genome.fa", root / "intervals.bed"
    if fasta.exists() and bed.exists():
        return fasta, bed
    rng = np.random.default_rng(2026)
    with open(fasta, "w") as out:
        for c in range(CONTIGS):
            out.write(f">chr{c + 1}\n")
            bases = np.frombuffer(b"ACGT", dtype=np.uint8)[rng.integers(0, 4, CONTIG_LENGTH)]
            text = bases.tobytes().decode()
            out.write("\n".join(text[i : i + 60] for i in range(0, CONTIG_LENGTH, 60)) + "\n")
    with open(bed, "w") as out:
        for i in range(INTERVALS):
            contig = rng.integers(0, CONTIGS)
            start = int(rng.integers(WINDOW, CONTIG_LENGTH - 2 * WINDOW))
            out.write(f"chr{contig + 1}\t{start}\t{start + 200}\t{int(rng.integers(0, 2))}\n")
    return fasta, bed


def native(build_dir, fasta, bed, epochs):
    program = pathlib.Path(build_dir) / "bench" / "e2e_loader_epochs"
    result = subprocess.run(
        [str(program), str(fasta), str(bed), "--window", str(WINDOW), "--batch", str(BATCH),
         "--threads", str(THREADS), "--epochs", str(epochs), "--jitter", str(JITTER), "--rc",
         str(RC)], check=True, capture_output=True, text=True)
    return [float(line.split()[2]) for line in result.stdout.splitlines()]


def strand_loader(fasta, bed, epochs):
    import strand

    loader = strand.data.Loader(fasta=fasta, intervals=bed, window=WINDOW, batch_size=BATCH,
                                jitter=JITTER, rc=RC, shuffle=True, seed=0, threads=THREADS)
    rates = []
    for _ in range(epochs):
        start = time.perf_counter()
        windows = 0
        for batch in loader:
            codes, labels = batch["codes"], batch["labels"]
            windows += codes.shape[0] + 0 * labels.shape[0]
        rates.append(windows / (time.perf_counter() - start))
    return rates


class FaidxDataset:
    """The usual PyTorch Dataset over a FASTA: one pyfaidx read per window."""

    def __init__(self, fasta, bed):
        self.fasta_path = str(fasta)
        self.fasta = None
        self.rows = [line.split("\t") for line in open(bed).read().splitlines()]
        self.table = np.full(256, 4, dtype=np.uint8)
        for code, base in enumerate(b"ACGT"):
            self.table[base] = code
            self.table[base + 32] = code
        self.complement = np.array([3, 2, 1, 0, 4], dtype=np.uint8)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        import pyfaidx

        if self.fasta is None:  # one handle per worker process
            self.fasta = pyfaidx.Fasta(self.fasta_path, as_raw=True, sequence_always_upper=True)
        contig, start, end, label = self.rows[index]
        rng = np.random.default_rng(index)
        centre = (int(start) + int(end)) // 2 + int(rng.integers(-JITTER, JITTER + 1))
        begin = centre - WINDOW // 2
        text = self.fasta[contig][begin : begin + WINDOW]
        codes = self.table[np.frombuffer(text.encode(), dtype=np.uint8)]
        if rng.random() < RC:
            codes = self.complement[codes[::-1]]
        return np.ascontiguousarray(codes), np.float32(label)


def pyfaidx_loader(fasta, bed, epochs):
    import torch

    loader = torch.utils.data.DataLoader(FaidxDataset(fasta, bed), batch_size=BATCH,
                                         shuffle=True, num_workers=THREADS,
                                         persistent_workers=True)
    rates = []
    for _ in range(epochs):
        start = time.perf_counter()
        windows = 0
        for codes, labels in loader:
            windows += codes.shape[0]
        rates.append(windows / (time.perf_counter() - start))
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", default="/tmp/strand-bench-python")
    args = parser.parse_args()
    root = pathlib.Path(args.data)
    root.mkdir(parents=True, exist_ok=True)
    fasta, bed = make_data(root)
    # Indexes are built once, outside the timings.
    import strand

    strand.data.Loader(fasta=fasta, intervals=bed, window=WINDOW)
    import pyfaidx

    pyfaidx.Fasta(str(fasta))
    figures = {"native": [], "strand": [], "pyfaidx": []}
    for round_ in range(args.rounds):
        figures["native"] += native(args.build_dir, fasta, bed, epochs=3)
        figures["strand"] += strand_loader(fasta, bed, epochs=3)
        figures["pyfaidx"] += pyfaidx_loader(fasta, bed, epochs=1)
        print(f"round {round_ + 1}: " + ", ".join(
            f"{name} {statistics.median(rates):,.0f}" for name, rates in figures.items()),
            flush=True)
    # A batch on its way to torch: the same memory, no copy.
    import torch

    batch = next(iter(strand.data.Loader(fasta=fasta, intervals=bed, window=WINDOW,
                                         batch_size=BATCH)))
    for name in ("codes", "labels"):
        array = batch[name]
        same = (torch.from_numpy(array).data_ptr() == torch.from_dlpack(array).data_ptr()
                == array.ctypes.data)
        print(f"torch.from_numpy / from_dlpack of batch['{name}']: data pointers equal: {same}")
    medians = {name: statistics.median(rates) for name, rates in figures.items()}
    for name, rate in medians.items():
        print(f"{name:8s} {rate:12,.0f} windows/s (median of {len(figures[name])} epochs)")
    print(f"strand.data.Loader / native loader: {medians['strand'] / medians['native']:.2f}")
    print(f"strand.data.Loader / pyfaidx Dataset: {medians['strand'] / medians['pyfaidx']:.1f}x")


if __name__ == "__main__":
    sys.exit(main())
