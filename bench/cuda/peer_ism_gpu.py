"""Batched brute-force ISM in PyTorch on one device, for `strand explain --device` on a GPU
(bench/cuda/run_explain_gpu.sh). Every mutant goes through the whole model, as the plain path of
tangermeme's saturation_mutagenesis does; tangermeme itself (and its numba) does not travel in
the GPU bundle, whose hosts have no network. The model is one of strand's presets loaded from a
strand run (bench/explain/explain_peers.py); for BPNet the counts head is explained.

  python bench/cuda/peer_ism_gpu.py --run RUN --fasta SEQS.fa --device cuda \
      [--positions START-END] [--batch 512] [--compare strand_ism.npz]

Prints the seconds of the mutants' passes (host-synchronised; loading excluded) and, with
--compare, the largest |PyTorch - strand| effect and the largest effect. Strict float32: TF32
off in cuDNN and cuBLAS, as strand's default.
"""
import argparse
import pathlib
import sys
import time

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "explain"))
import explain_peers as peers  # noqa: E402


def effects_of(target, X, start, end, batch, device):
    """(N, 4, end - start) effects: f(mutant) - f(reference), 0 for the present letter and N."""
    n, _, _ = X.shape
    out = np.zeros((n, 4, end - start), dtype=np.float32)
    with torch.no_grad():
        reference = target(X.to(device)).reshape(n).cpu().numpy()
        for i in range(n):
            present = X[i].argmax(0)
            known = X[i].sum(0) > 0
            mutants = []
            for p in range(start, end):
                if not known[p]:
                    continue
                for c in range(4):
                    if c != int(present[p]):
                        mutants.append((p, c))
            for first in range(0, len(mutants), batch):
                chunk = mutants[first:first + batch]
                x = X[i:i + 1].repeat(len(chunk), 1, 1)
                for k, (p, c) in enumerate(chunk):
                    x[k, :, p] = 0.0
                    x[k, c, p] = 1.0
                values = target(x.to(device)).reshape(len(chunk)).cpu().numpy()
                for k, (p, c) in enumerate(chunk):
                    out[i, c, p - start] = values[k] - reference[i]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", required=True)
    parser.add_argument("--fasta", required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--positions", default="")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--compare", default="")
    args = parser.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    model, _ = peers.load_run(args.run)
    target = (peers.Counts(model) if isinstance(model, peers.BPNet) else peers.Column(model, 0))
    target = target.to(args.device).eval()
    records = peers.read_fasta(args.fasta)
    X = peers.one_hot(list(records.values()))
    length = X.shape[2]
    start, end = 0, length
    if args.positions:
        a, b = args.positions.split("-")
        start, end = int(a) - 1, int(b)
    effects_of(target, X[:1], start, min(end, start + 8), args.batch, args.device)  # warm-up
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    began = time.perf_counter()
    effects = effects_of(target, X, start, end, args.batch, args.device)
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    seconds = time.perf_counter() - began
    mutants = int((effects != 0).sum())
    print(f"pytorch ism: {seconds:.3f} s for {X.shape[0]} sequences, positions {start + 1}-{end} "
          f"({mutants} nonzero effects) on {args.device}")
    if args.compare:
        theirs = peers.read_npz(args.compare)
        if theirs.shape[2] != effects.shape[2]:
            theirs = theirs[:, :, start:end]
        print(f"pytorch vs strand: max |difference| {np.abs(theirs - effects).max():.3g}, "
              f"max |effect| {np.abs(effects).max():.3g}")


if __name__ == "__main__":
    main()
