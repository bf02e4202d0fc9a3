"""Diagnostic: does a training step of strand's BPNet recipe do what the PyTorch peer's does?
Both programs start from the same weights (written here, loaded by strand through
--init-weights) and take full-batch steps on the same peaks without jitter and reverse
complement (the random draws), so the per-step training losses (strand's steps.csv) must
agree; the script prints both and their relative difference, and the largest difference of the
final weights.

    python bench/quality/check_bpnet_steps.py --data D --strand build/cli/strand --work W \
        [--peaks 32] [--steps 10]

D is a `strand simulate --simulation chip_nexus_profile` directory (default motifs).
"""
import argparse
import json
import pathlib
import subprocess

import numpy as np
import torch

import quality_common as q
from check_basset_steps import write_safetensors
from peer_bpnet_quality import BPNet, ProfileData, log_total_counts, multinomial_nll, read_tracks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--motifs", default="POU5F1_known1,SOX2_1")
    parser.add_argument("--strand", default="build/cli/strand")
    parser.add_argument("--work", required=True)
    parser.add_argument("--peaks", type=int, default=32)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    peaks = open(f"{args.data}/train.narrowPeak").read().splitlines()[:args.peaks]
    (work / "subset.narrowPeak").write_text("\n".join(peaks) + "\n")
    motifs = args.motifs.split(",")
    bigwigs = [f"{args.data}/{m}.plus.bw,{args.data}/{m}.minus.bw" for m in motifs]
    subset = str(work / "subset.narrowPeak")
    flags = ["--model", "bpnet", "--format", "narrowpeak", "--fasta", f"{args.data}/genome.fa",
             "--intervals", subset, "--valid-intervals", subset, "--test-intervals", subset,
             "--profile-bigwigs", *bigwigs]
    recipe = json.loads(subprocess.run([args.strand, "train", *flags, "--print-config"],
                                       check=True, capture_output=True, text=True).stdout)
    recipe.update(batch_size=args.peaks, epochs=args.steps, seed=args.seed, threads=args.threads,
                  output_dir=str(work), init_weights=str(work / "init.safetensors"))
    recipe["data"].update(jitter=0, rc_probability=0.0)
    recipe["early_stopping"]["enabled"] = False

    d = recipe["data"]
    genome = {n: q.codes_of(s) for n, s in q.read_fasta(f"{args.data}/genome.fa").items()}
    data = ProfileData(genome, read_tracks(args.data, motifs), subset, d["window"],
                       d["profile_length"])
    weight = max(float(np.median(data.total_counts())) / 10.0, 1e-3)
    torch.manual_seed(args.seed)
    model = BPNet(len(motifs) * 2, d["profile_length"])
    q.glorot_init(model)
    write_safetensors(work / "init.safetensors",
                      {k: v.numpy() for k, v in model.state_dict().items()})
    (work / "config.json").write_text(json.dumps(recipe, indent=2))
    subprocess.run([args.strand, "train", "--config", str(work / "config.json"), "--run-name",
                    "steps"], check=True, stdout=subprocess.DEVNULL)
    strand_losses = [float(r.split(",")[2]) for r in
                     (work / "steps" / "steps.csv").read_text().splitlines()[1:]]

    optimizer = q.make_optimizer(recipe, model.parameters())
    x, profiles = data.batch(range(len(data)), [0] * len(data), [False] * len(data))
    print(f"counts weight {weight:g}")
    print(f"{'step':>4} {'strand':>12} {'PyTorch':>12} {'rel. diff':>10}")
    model.train()
    for step in range(args.steps):
        optimizer.zero_grad()
        logits, counts = model(x)
        loss = multinomial_nll(logits, profiles) + \
            weight * torch.mean((counts - log_total_counts(profiles)) ** 2)
        loss.backward()
        optimizer.step()
        ours = loss.item()
        print(f"{step + 1:>4} {strand_losses[step]:12.6f} {ours:12.6f} "
              f"{abs(strand_losses[step] - ours) / abs(ours):10.2e}")
    final = q.read_safetensors(work / "steps" / "checkpoints" / "last.safetensors")
    # profile_conv.bias shifts all positions of a track alike, which the softmax ignores: its
    # gradient is 0 up to rounding, which Adam scales to full steps in either program.
    worst = max((float((final[k].double() - v.double()).abs().max() /
                       v.double().abs().max().clamp(min=1e-12)), k)
                for k, v in model.state_dict().items() if k != "profile_conv.bias")
    print(f"final weights: largest difference relative to the tensor's largest value "
          f"{worst[0]:.2e} ({worst[1]}; profile_conv.bias left out: its gradient is 0)")

if __name__ == "__main__":
    main()
