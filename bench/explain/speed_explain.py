"""`strand explain` against tangermeme on the CPU with the same thread count, side by side in one
run: the same trained runs, sequences and targets, the two programs alternated in rounds (as
bench/run_model_comparison.sh does) so that other load on the machine falls on both, and each
program's best round kept.

  ism            strand's fast path and its brute force vs tangermeme.saturation_mutagenesis
                 (its default, which takes its own fastISM path when it expects it to pay: a
                 timed trial on one batch, so under load it may take either; each round
                 prints the path it took)
  deeplift_shap  strand vs tangermeme.deep_lift_shap, 20 dinucleotide shuffles each (both
                 programs draw their own shuffles: the time includes drawing them)

    python bench/explain/speed_explain.py --strand build/cli/strand --threads 2 --rounds 3 \
        --case basset_ism:RUN:seqs.fa:--task=3 --case bpnet_ism:RUN:seqs.fa:--output=counts ...

A case is NAME:RUN:FASTA[:FLAG=VALUE,...] (the flags select the target, as strand explain
takes them); NAME ends in _ism or _shap. strand runs as `strand explain` (the time includes
starting the program, loading the model and writing an .npz); tangermeme's time is its call
alone. Prints a table of seconds and ratios (tangermeme / strand).
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


def parse_case(text):
    parts = text.split(":")
    flags = []
    if len(parts) > 3 and parts[3]:
        for item in parts[3].split(","):
            key, _, value = item.partition("=")
            flags += [key] + ([value] if value else [])
    return {"name": parts[0], "run": parts[1], "fasta": parts[2], "flags": flags}


def torch_target(peers, model, flags):
    values = dict(zip(flags[::2], flags[1::2]))
    if values.get("--output") == "counts":
        return peers.Counts(model)
    if values.get("--output") == "profile":
        task = values.get("--task", "all")
        return peers.Profile(model, None if task == "all" else int(task))
    return peers.Column(model, int(values.get("--task", 0)))


def time_strand(args, case, method, extra, out):
    command = [args.strand, "explain", "--model", case["run"], "--fasta", case["fasta"],
               "--method", method, "--threads", str(args.threads), "--out", out] + \
        case["flags"] + extra
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def describe_path(paths, caught):
    """The path of the last saturation_mutagenesis call, with tangermeme's reason for falling
    back to plain ISM when it gave one."""
    if not paths:
        return ""
    path = paths.pop()
    paths.clear()
    reasons = [str(w.message) for w in caught if "fast=False because" in str(w.message)]
    if reasons:
        path += " (" + reasons[0].split("because ")[1].split(". Pass")[0] + ")"
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--strand", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--references", type=int, default=20)
    parser.add_argument("--case", action="append", required=True)
    parser.add_argument("--skip-brute", action="store_true",
                        help="leave out strand's brute-force ISM (slow on BPNet)")
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch  # after OMP_NUM_THREADS
    torch.set_num_threads(args.threads)
    import explain_peers as peers
    from tangermeme.deep_lift_shap import deep_lift_shap
    import tangermeme.saturation_mutagenesis as tangermeme_ism
    from tangermeme.saturation_mutagenesis import saturation_mutagenesis

    # Which path tangermeme's saturation_mutagenesis took: from 1.6 its default (fast=True)
    # times its fastISM against plain batched ISM on one batch and keeps the faster, or skips
    # fastISM for a job it expects under 30 s, so under load it may take either.
    paths = []
    if hasattr(tangermeme_ism, "_fast_path"):
        choose = tangermeme_ism._fast_path

        def recorded(*a, **k):
            result = choose(*a, **k)
            paths.append("fastISM" if result[0] is not None else "plain")
            return result
        tangermeme_ism._fast_path = recorded

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = str(pathlib.Path(tmp) / "out.npz")
        for text in args.case:
            case = parse_case(text)
            model, _ = peers.load_run(case["run"])
            target = torch_target(peers, model, case["flags"]).eval()
            records = peers.read_fasta(case["fasta"])
            X = peers.one_hot(list(records.values()))
            ism = case["name"].endswith("_ism")
            programs = {}
            if ism:
                programs["strand fast"] = lambda: time_strand(
                    args, case, "ism", ["--ism-path", "fast"], out)
                if not args.skip_brute:
                    programs["strand brute force"] = lambda: time_strand(
                        args, case, "ism", ["--ism-path", "brute"], out)

                def tangermeme():
                    start = time.perf_counter()
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        saturation_mutagenesis(target, X, raw_outputs=True, device="cpu")
                    seconds = time.perf_counter() - start
                    tangermeme.path = describe_path(paths, caught)
                    return seconds
            else:
                programs["strand"] = lambda: time_strand(
                    args, case, "deeplift_shap", ["--references", str(args.references)], out)

                def tangermeme():
                    start = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        deep_lift_shap(target, X, n_shuffles=args.references, hypothetical=True,
                                       device="cpu", random_state=0)
                    return time.perf_counter() - start
            programs["tangermeme"] = tangermeme
            best = {name: float("inf") for name in programs}
            best_path = ""
            for round_ in range(args.rounds):
                for name, program in programs.items():
                    seconds = program()
                    if name == "tangermeme" and seconds < best[name]:
                        best_path = getattr(program, "path", "")
                    best[name] = min(best[name], seconds)
                    note = getattr(program, "path", "")
                    print(f"{case['name']} round {round_ + 1}: {name} {seconds:.2f} s"
                          + (f" [{note}]" if note else ""), flush=True)
            for name in programs:
                if name == "tangermeme":
                    continue
                rows.append((case["name"], len(records), X.shape[-1], name, best[name],
                             best["tangermeme"], best["tangermeme"] / best[name],
                             best_path.split(" (")[0]))
    print(f"\n{'case':<14}{'seqs':>5}{'bp':>6}  {'program':<20}{'strand s':>10}"
          f"{'tangermeme s':>14}{'ratio':>8}  tangermeme's path")
    for name, n, length, program, ours, theirs, ratio, path in rows:
        print(f"{name:<14}{n:>5}{length:>6}  {program:<20}{ours:>10.2f}{theirs:>14.2f}"
              f"{ratio:>7.1f}x  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
