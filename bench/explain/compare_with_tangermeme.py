"""Proves `strand explain` against the field's tools on one trained strand run: the run's
checkpoint is loaded into the same architecture in PyTorch (explain_peers.py) and, for the same
sequences and target,

  ism               strand's fast path vs tangermeme.saturation_mutagenesis (raw effects:
                    y_hat - y0), max |difference| <= 1e-4 (of max(1, the largest effect));
  deeplift_shap     strand with --save-references vs tangermeme.deep_lift_shap given exactly
                    those references (hypothetical contributions): per-sequence Pearson >= 0.99
                    and max |difference| <= 1e-3 of the attribution scale (the largest
                    |attribution|); both programs' convergence deviations reported;
  input_x_gradient  strand vs torch autograd (gradient x one-hot), max |difference| <= 1e-4 of
                    the scale.

    python bench/explain/compare_with_tangermeme.py --strand build/cli/strand --run RUN \
        --fasta seqs.fa [--task 0 | --counts | --profile [--track 0]] [--references 20]

Prints one line per check and a JSON summary (--json FILE); exits 1 when a check fails.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch
from tangermeme.deep_lift_shap import deep_lift_shap
from tangermeme.saturation_mutagenesis import saturation_mutagenesis

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import explain_peers as peers  # noqa: E402


def strand_explain(args, method, out, extra):
    command = [args.strand, "explain", "--model", args.run, "--fasta", args.fasta, "--method",
               method, "--out", str(out), "--threads", str(args.threads)] + args.target + extra
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    return result.stdout


def wrapper(args, model):
    if args.counts:
        return peers.Counts(model)
    if args.profile:
        return peers.Profile(model, args.track)
    return peers.Column(model, args.task, args.predictions)


def pearson(a, b):
    a, b = a - a.mean(), b - b.mean()
    denominator = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / denominator) if denominator > 0 else 1.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--strand", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--fasta", required=True)
    parser.add_argument("--task", type=int, default=0)
    parser.add_argument("--predictions", action="store_true")
    parser.add_argument("--counts", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--track", type=int)
    parser.add_argument("--references", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--methods", default="ism,deeplift_shap,input_x_gradient")
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.counts:
        args.target = ["--output", "counts"]
    elif args.profile:
        args.target = ["--output", "profile", "--task",
                       "all" if args.track is None else str(args.track)]
    else:
        args.target = ["--task", str(args.task)] + (["--predictions"] if args.predictions else [])
    model, dimensions = peers.load_run(args.run)
    target = wrapper(args, model).eval()
    records = peers.read_fasta(args.fasta)
    names = list(records)
    X = peers.one_hot([records[n] for n in names])
    summary = {"run": args.run, "sequences": len(names), "length": X.shape[-1],
               "target": " ".join(args.target)}
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        methods = args.methods.split(",")
        if "ism" in methods:
            strand_explain(args, "ism", tmp / "ism.npz", ["--ism-path", "fast"])
            ours = peers.read_npz(tmp / "ism.npz")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y0, y_hat = saturation_mutagenesis(target, X, raw_outputs=True, device="cpu")
            theirs = (y_hat[..., 0] - y0[:, None, None, 0]).numpy()
            # tangermeme mutates N too (to each letter); strand gives an N no row.
            present = X.numpy().sum(axis=1, keepdims=True) > 0
            theirs = np.where(np.broadcast_to(present, theirs.shape), theirs, 0.0)
            scale = max(1.0, float(np.abs(theirs).max()))
            worst = float(np.abs(ours - theirs).max())
            ok = worst <= 1e-4 * scale
            failed |= not ok
            summary["ism"] = {"max_abs_difference": worst, "largest_effect": float(
                np.abs(theirs).max()), "ok": ok}
            print(f"ism: max |strand - tangermeme| = {worst:.3g} (largest effect "
                  f"{np.abs(theirs).max():.3g}) {'OK' if ok else 'FAIL'}")
        if "deeplift_shap" in methods:
            log = strand_explain(args, "deeplift_shap", tmp / "shap.npz",
                                 ["--references", str(args.references), "--save-references",
                                  str(tmp / "refs.fa"), "--deviations", str(tmp / "dev.tsv")])
            ours = peers.read_npz(tmp / "shap.npz")
            references = peers.read_fasta(tmp / "refs.fa")
            R = args.references
            refs = torch.stack([peers.one_hot([references[f"{n}_ref{k}"] for k in range(R)])
                                for n in names])  # (N, R, 4, L)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                theirs = deep_lift_shap(target, X, references=refs, hypothetical=True,
                                        device="cpu", warning_threshold=1e-3).numpy()
            scale = float(np.abs(theirs).max())
            worst = float(np.abs(ours - theirs).max())
            correlations = [pearson(ours[i].ravel(), theirs[i].ravel()) for i in range(len(names))]
            # Convergence: sum of actual contributions vs f(x) - mean f(r), each program's own
            # f(r) (strand weighs a profile's references with the input's softmax; tangermeme's
            # wrapper runs on each reference as it is).
            with torch.no_grad():
                fx = target(X)[:, 0].numpy()
                fr = target(refs.reshape(-1, *X.shape[1:]))[:, 0].reshape(len(names), R).numpy()
            actual_theirs = (theirs * X.numpy()).sum(axis=(1, 2))
            tangermeme_deviation = np.abs(actual_theirs - (fx - fr.mean(axis=1)))
            relative_theirs = tangermeme_deviation / np.maximum(
                np.abs(fx[:, None] - fr).mean(axis=1), 1e-12)
            rows = [line.split("\t") for line in (tmp / "dev.tsv").read_text().splitlines()[1:]]
            strand_relative = np.array([float(r[4]) for r in rows])
            ok = min(correlations) >= 0.99 and worst <= 1e-3 * scale
            failed |= not ok
            summary["deeplift_shap"] = {
                "references": R, "min_pearson": min(correlations),
                "max_abs_difference": worst, "scale": scale,
                "strand_worst_relative_deviation": float(strand_relative.max()),
                "tangermeme_worst_relative_deviation": float(relative_theirs.max()),
                "tangermeme_warnings": len(caught), "ok": ok}
            print(f"deeplift_shap ({R} references): per-sequence Pearson min "
                  f"{min(correlations):.6f}, max |difference| {worst:.3g} of scale {scale:.3g} "
                  f"({worst / scale:.2e}) {'OK' if ok else 'FAIL'}")
            print(f"  convergence, worst relative deviation: strand "
                  f"{strand_relative.max():.3g}, tangermeme {relative_theirs.max():.3g} "
                  f"({len(caught)} tangermeme warnings)")
            print("  strand: " + [l for l in log.splitlines() if l.startswith("convergence")][0])
        if "input_x_gradient" in methods:
            strand_explain(args, "input_x_gradient", tmp / "ixg.npz", [])
            ours = peers.read_npz(tmp / "ixg.npz")
            x = X.clone().requires_grad_()
            target(x).sum().backward()
            theirs = (x.grad * X).numpy()
            scale = max(1e-12, float(np.abs(theirs).max()))
            worst = float(np.abs(ours - theirs).max())
            ok = worst <= 1e-4 * max(1.0, scale)
            failed |= not ok
            summary["input_x_gradient"] = {"max_abs_difference": worst, "scale": scale, "ok": ok}
            print(f"input_x_gradient: max |strand - torch autograd| = {worst:.3g} (scale "
                  f"{scale:.3g}) {'OK' if ok else 'FAIL'}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
