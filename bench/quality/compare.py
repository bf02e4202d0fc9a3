"""Prints the per-seed and mean figures of strand and the PyTorch peer for a quality comparison
(bench/quality/run_*_quality.sh write WORK_DIR; this reads it).

    python bench/quality/compare.py basset --work WORK_DIR --seeds 1 2 3
    python bench/quality/compare.py bpnet --work WORK_DIR --seeds 1 2 3

basset: strand's figure is the mean over tasks of the test auROC of `strand predict`'s scores
(WORK_DIR/strand_seedS_test.tsv), computed by the same function as the peer's
(WORK_DIR/torch_seedS.json); report.json's pooled test auROC is shown beside it as a check.
bpnet: both sides' figures come from WORK_DIR/{strand,torch}_seedS.json (peer_bpnet_quality.py
writes them; strand's by running its best checkpoint through the same evaluation).
"""
import argparse
import json
import pathlib
import statistics
import sys

import numpy as np

import quality_common as q


def strand_basset(work, seed):
    with open(f"{work}/strand_seed{seed}_test.tsv") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        rows = [line.rstrip("\n").split("\t") for line in handle if line.strip()]
    label_columns = [i for i, h in enumerate(header) if h.startswith("label_")]
    tasks = [header[i][len("label_"):] for i in label_columns]
    score_columns = [header.index(t) for t in tasks]
    labels = np.array([[float(r[i]) for i in label_columns] for r in rows])
    scores = np.array([[float(r[i]) for i in score_columns] for r in rows])
    _, mean = q.task_aurocs(scores, labels)
    by_name = {r[0]: row for r, row in zip(rows, scores)}
    report = json.load(open(f"{work}/runs/strand_seed{seed}/report.json"))
    test = report.get("test", {})
    return {"test_mean_auroc": mean, "report_mean_auroc": test.get("mean_auroc"),
            "computed_pooled_auroc": q.auroc(scores.ravel(), labels.ravel()),
            "report_pooled_auroc": test.get("auroc"), "best_epoch": report.get("best_epoch"),
            "epochs_run": report.get("epochs_run"), "scores": by_name}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["basset", "bpnet"])
    parser.add_argument("--work", required=True)
    parser.add_argument("--seeds", nargs="+", required=True)
    args = parser.parse_args()
    metrics = {"basset": ["test_mean_auroc"],
               "bpnet": ["test_profile_pearson", "test_counts_spearman"]}[args.kind]
    rows = []
    for seed in args.seeds:
        torch_figures = json.load(open(f"{args.work}/torch_seed{seed}.json"))
        if args.kind == "basset":
            strand_figures = strand_basset(args.work, seed)
        else:
            strand_figures = json.load(open(f"{args.work}/strand_seed{seed}.json"))
        rows.append((seed, strand_figures, torch_figures))

    for metric in metrics:
        print(f"\n{metric}:")
        print(f"{'seed':>6} {'strand':>9} {'PyTorch':>9} {'diff':>9}   epochs (best) strand / PyTorch")
        s_values, t_values = [], []
        for seed, s, t in rows:
            s_values.append(s[metric])
            t_values.append(t[metric])
            print(f"{seed:>6} {s[metric]:9.4f} {t[metric]:9.4f} {s[metric] - t[metric]:+9.4f}   "
                  f"{s.get('epochs_run')} ({s.get('best_epoch')}) / "
                  f"{t.get('epochs_run')} ({t.get('best_epoch')})")
        s_mean, t_mean = statistics.mean(s_values), statistics.mean(t_values)
        spread = ""
        if len(rows) > 1:
            spread = (f"   (sd over seeds: strand {statistics.stdev(s_values):.4f}, "
                      f"PyTorch {statistics.stdev(t_values):.4f})")
        print(f"{'mean':>6} {s_mean:9.4f} {t_mean:9.4f} {s_mean - t_mean:+9.4f}{spread}")
        if len(rows) > 1:
            # A seed number draws different random streams in the two programs, so the seeds are
            # two independent samples: the difference of the means has the standard error
            # sqrt(sd_strand^2 / n + sd_pytorch^2 / n).
            n = len(rows)
            error = (statistics.variance(s_values) / n + statistics.variance(t_values) / n) ** 0.5
            lower = sum(s < t for s, t in zip(s_values, t_values))
            print(f"difference of the means {s_mean - t_mean:+.4f}, standard error {error:.4f}; "
                  f"strand lower in {lower} of {n} seed pairs")
        if args.kind == "basset":
            ok = abs(s_mean - t_mean) <= 0.01
            print(f"target |strand - PyTorch| <= 0.01 on the mean: {'met' if ok else 'NOT met'}")
    status = 0
    if args.kind == "basset":
        print("\nchecks (strand): report.json's test mean and pooled auROC vs the same computed "
              "from predict:")
        for seed, s, _ in rows:
            print(f"  seed {seed}: mean {s['report_mean_auroc']} vs {s['test_mean_auroc']:.6f}, "
                  f"pooled {s['report_pooled_auroc']} vs {s['computed_pooled_auroc']:.6f}")
        # Scores, not auROCs: a saturated model's ties at 0 and 1 (which the two sigmoids reach at
        # slightly different logits) move the auROC while every score agrees to ~1e-5 (the TSV's
        # 8 significant digits and float32 sums in another order).
        print("checks (strand): its best checkpoint in the PyTorch model vs its own predictions "
              "(largest test score difference; test mean auROC):")
        for seed, s, _ in rows:
            path = pathlib.Path(f"{args.work}/strand_seed{seed}_in_torch.json")
            if not path.exists():
                print(f"  seed {seed}: not run ({path.name} is missing)")
                continue
            in_torch = json.loads(path.read_text())
            difference = max(float(np.abs(np.array(scores) - s["scores"][name]).max())
                             for name, scores in in_torch["scores"].items())
            same = difference <= 1e-4
            status = status if same else 1
            verdict = "same" if same else "DIFFERENT"
            print(f"  seed {seed}: {difference:.2e}; {in_torch['test_mean_auroc']:.6f} vs "
                  f"{s['test_mean_auroc']:.6f}: {verdict}")
    return status


if __name__ == "__main__":
    sys.exit(main())
