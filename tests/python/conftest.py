"""Fixtures of the Python suite: a small trained run of the reference model, and a small random
genome with intervals for the loader. Everything is made here; nothing is read from outside the
repository."""
import os
import pathlib
import sys
import threading
import time

import numpy as np
import pytest

import strand


def small_reference_overrides(output_dir):
    """A reference run on a small simulated dataset: seconds, not minutes."""
    return dict(
        n_pos=300,
        n_neg=300,
        length=120,
        validation=100,
        test=100,
        batch_size=50,
        epochs=2,
        threads=2,
        output_dir=str(output_dir),
        seed=7,
    )


@pytest.fixture(scope="session")
def reference_run(tmp_path_factory):
    """A trained reference run (strand.train on the simulated TAL1 data)."""
    out = tmp_path_factory.mktemp("runs")
    return strand.train("reference", run_name="reference", **small_reference_overrides(out))


@pytest.fixture(scope="session")
def reference_model(reference_run):
    return strand.load(reference_run.run_dir)


BASES = np.frombuffer(b"ACGT", dtype=np.uint8)


def random_sequences(rng, count, length):
    return ["".join(rng.choice(list("ACGT"), size=length)) for _ in range(count)]


@pytest.fixture(scope="session")
def genome(tmp_path_factory):
    """A random two-contig genome (FASTA, 60 bases a line) and a BED of 200 intervals with two
    label columns: (fasta path, bed path, {contig: sequence}, intervals [(contig, start, end,
    label1, label2)])."""
    root = tmp_path_factory.mktemp("genome")
    rng = np.random.default_rng(3)
    contigs = {"chr1": 20000, "chr2": 15000}
    sequences = {}
    with open(root / "genome.fa", "w") as fasta:
        for name, length in contigs.items():
            sequence = "".join(rng.choice(list("ACGT"), size=length))
            # A soft-masked stretch and an N run, as real genomes have.
            sequence = sequence[:500] + sequence[500:600].lower() + "N" * 50 + sequence[650:]
            sequences[name] = sequence
            fasta.write(f">{name}\n")
            for i in range(0, length, 60):
                fasta.write(sequence[i : i + 60] + "\n")
    intervals = []
    with open(root / "peaks.bed", "w") as bed:
        for i in range(200):
            name = "chr1" if i % 2 == 0 else "chr2"
            start = int(rng.integers(1000, contigs[name] - 1000))
            end = start + int(rng.integers(50, 300))
            labels = (int(rng.integers(0, 2)), float(rng.normal()))
            intervals.append((name, start, end) + labels)
            bed.write(f"{name}\t{start}\t{end}\t{labels[0]}\t{labels[1]:.6f}\n")
    return root / "genome.fa", root / "peaks.bed", sequences, intervals


def window_codes(sequence, start, end, window):
    """The loader's window of an interval, as codes: `window` bases centred on the interval
    (its centre (start + end) // 2; the window starts window // 2 before it)."""
    centre = (start + end) // 2
    begin = centre - window // 2
    text = sequence[begin : begin + window].upper().encode()
    table = np.full(256, 4, dtype=np.uint8)
    for code, base in enumerate(b"ACGT"):
        table[base] = code
    return table[np.frombuffer(text, dtype=np.uint8)]


@pytest.fixture(scope="session")
def strand_exe():
    """The strand program of this build (CTest sets STRAND_EXE), or None."""
    path = os.environ.get("STRAND_EXE")
    return pathlib.Path(path) if path and os.path.exists(path) else None


def ticks_while(call):
    """Runs call() and returns (the count of a second thread's ticks while it ran, its result).
    The thread runs only when the main thread lets go of the GIL (a switch interval far longer
    than any test, so never by preemption): a count above 0 proves call() released the GIL."""
    ticks = []
    go, done = threading.Event(), threading.Event()

    def count():
        go.wait()
        while not done.is_set():
            ticks.append(1)
            time.sleep(0)  # lets the main thread take the GIL back as soon as it asks

    counter = threading.Thread(target=count)
    counter.start()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        go.set()
        before = len(ticks)
        result = call()
        during = len(ticks) - before
    finally:
        done.set()
        sys.setswitchinterval(interval)
        counter.join()
    return during, result
