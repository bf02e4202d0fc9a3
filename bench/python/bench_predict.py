"""model.predict from Python against `strand predict` on the same 10,000 sequences, alternated in
rounds, for the reference model (500 bp) and Basset (600 bp, 4 M parameters).

  cli          `strand predict --model RUN --fasta seqs.fa --out scores.tsv` (the whole process:
               start, model load, FASTA read, forward passes, TSV written)
  python       strand.load(RUN) + the FASTA read in Python + model.predict(list of strings)
  predict      model.predict(list of strings) alone (the model loaded, the strings in memory)

Both use 2 threads and batches of 256. The runs are trained briefly on simulated data first (the
weights do not change the time). Prints the median wall-clock seconds of each over the rounds,
and the CPU seconds (user + system: the CLI's from its process, Python's from this one), which
other programs on a shared machine disturb less; then the ratios to the CLI.

Usage: PYTHONPATH=build/python python bench/python/bench_predict.py BUILD_DIR [--rounds N]
"""
import argparse
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import strand

SEQUENCES, THREADS, BATCH = 10_000, 2, 256


def trained_run(name, config, length, out):
    run = strand.train(config, length=length, n_pos=200, n_neg=200, validation=100, test=100,
                       epochs=1, batch_size=50, threads=THREADS, output_dir=str(out),
                       run_name=name, seed=1, interactive=False,
                       callbacks=lambda logs: None)
    return run.run_dir


def write_fasta(path, length):
    rng = np.random.default_rng(11)
    bases = np.frombuffer(b"ACGT", dtype=np.uint8)
    with open(path, "w") as out:
        for i in range(SEQUENCES):
            out.write(f">s{i}\n{bases[rng.integers(0, 4, length)].tobytes().decode()}\n")


def read_fasta(path):
    sequences = []
    for line in open(path):
        if not line.startswith(">"):
            sequences.append(line.strip())
    return sequences


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    program = pathlib.Path(args.build_dir) / "cli" / "strand"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        cases = {
            "reference": (trained_run("reference", "reference", 500, tmp), 500),
            "basset": (trained_run("basset", {"preset": "basset", "data": {"source": "simulated"}},
                                   600, tmp), 600),
        }
        for name, (run_dir, length) in cases.items():
            fasta = tmp / f"{name}.fa"
            write_fasta(fasta, length)
            times = {"cli": [], "python": [], "predict": []}
            cpu = {"cli": [], "python": [], "predict": []}

            def timed(name, who, body):
                before = resource.getrusage(who)
                start = time.perf_counter()
                result = body()
                times[name].append(time.perf_counter() - start)
                after = resource.getrusage(who)
                cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime
                                 - before.ru_stime)
                return result

            for round_ in range(args.rounds):
                timed("cli", resource.RUSAGE_CHILDREN, lambda: subprocess.run(
                    [str(program), "predict", "--model", run_dir, "--fasta", str(fasta), "--out",
                     str(tmp / "scores.tsv"), "--threads", str(THREADS), "--batch-size",
                     str(BATCH)], check=True, capture_output=True))

                def load_and_predict():
                    model = strand.load(run_dir)
                    sequences = read_fasta(fasta)
                    return model, sequences, model.predict(sequences, batch_size=BATCH,
                                                           threads=THREADS)

                model, sequences, scores = timed("python", resource.RUSAGE_SELF, load_and_predict)
                again = timed("predict", resource.RUSAGE_SELF, lambda: model.predict(
                    sequences, batch_size=BATCH, threads=THREADS))
                assert scores.shape == (SEQUENCES, 1) and np.array_equal(scores, again)
            medians = {k: statistics.median(v) for k, v in times.items()}
            cpu_medians = {k: statistics.median(v) for k, v in cpu.items()}
            cli_scores = np.loadtxt(tmp / "scores.tsv", skiprows=1, usecols=-1, dtype=np.float32)
            worst = float(np.max(np.abs(cli_scores - scores[:, 0])))
            print(f"{name} ({length} bp, {SEQUENCES} sequences, {args.rounds} rounds): "
                  + ", ".join(f"{k} {v:.3f} s" for k, v in medians.items())
                  + f"; python/cli {medians['python'] / medians['cli']:.3f}, "
                  f"predict/cli {medians['predict'] / medians['cli']:.3f}; "
                  f"max |python - cli| {worst:.1e}", flush=True)
            print(f"  CPU: " + ", ".join(f"{k} {v:.3f} s" for k, v in cpu_medians.items())
                  + f"; python/cli {cpu_medians['python'] / cpu_medians['cli']:.3f}, "
                  f"predict/cli {cpu_medians['predict'] / cpu_medians['cli']:.3f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
