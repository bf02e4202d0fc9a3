"""Diagnostic: does one training step of strand's Basset recipe do what the PyTorch peer's does?
Both programs start from the same weights (written here, loaded by strand through
--init-weights) and take full-batch steps on the same records (so the shuffle order does not
matter), with Dropout's rate set to 0 (the one random draw left); the script prints both
programs' per-step training loss (strand's steps.csv) and their relative difference, and the
largest difference of the final weights.

    python bench/quality/check_basset_steps.py --data D --strand build/cli/strand --work W \
        [--samples 256] [--steps 20]

D is a `strand simulate --simulation multi_motif_embedding` directory. Everything else of the
recipe is strand's preset (RMSprop momentum 0.98, max-norm 7, BatchNorm), read from
`strand train --model basset --print-config`.
"""
import argparse
import json
import pathlib
import struct
import subprocess

import numpy as np
import torch

import quality_common as q
from peer_basset_quality import basset

NUMPY_DTYPES = {np.dtype(np.float32): "F32", np.dtype(np.float64): "F64"}


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, tensor in tensors.items():
        array = np.array(tensor, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
        header[name] = {"dtype": NUMPY_DTYPES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + array.nbytes]}
        blobs.append(array.tobytes())
        offset += array.nbytes
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)
    pathlib.Path(path).write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(blobs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--strand", default="build/cli/strand")
    parser.add_argument("--work", required=True)
    parser.add_argument("--samples", type=int, default=256)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)

    # The first --samples training records, as their own split (also the validation split).
    sequences = q.read_fasta(f"{args.data}/train.fa")
    lines = open(f"{args.data}/train.tsv").read().splitlines()
    rows = lines[1:args.samples + 1]
    with open(work / "subset.fa", "w") as fa:
        for row in rows:
            name = row.split("\t")[0]
            fa.write(f">{name}\n{sequences[name]}\n")
    (work / "subset.tsv").write_text("\n".join([lines[0]] + rows) + "\n")
    codes, labels, _, _ = q.read_records(work / "subset.fa", work / "subset.tsv")
    x, y = torch.from_numpy(q.one_hot(codes)), torch.from_numpy(labels)

    flags = ["--model", "basset", "--format", "records", "--window", "0",
             "--fasta", str(work / "subset.fa"), "--intervals", str(work / "subset.tsv"),
             "--valid-fasta", str(work / "subset.fa"), "--valid-intervals", str(work / "subset.tsv"),
             "--test-fasta", str(work / "subset.fa"), "--test-intervals", str(work / "subset.tsv")]
    recipe = json.loads(subprocess.run([args.strand, "train", *flags, "--print-config"],
                                       check=True, capture_output=True, text=True).stdout)
    for layer in recipe["model"]:
        if layer["type"] == "Dropout":
            layer["rate"] = 0.0
    recipe.update(batch_size=args.samples, epochs=args.steps, seed=args.seed,
                  threads=args.threads, output_dir=str(work), init_weights=str(work / "init.safetensors"))
    recipe["early_stopping"]["enabled"] = False

    torch.manual_seed(args.seed)
    model = basset(x.shape[-1], y.shape[1])
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    q.glorot_init(model)
    write_safetensors(work / "init.safetensors",
                      {k: v.numpy().astype(np.float64 if k.endswith("num_batches_tracked")
                                           else np.float32)
                       for k, v in model.state_dict().items()})
    (work / "config.json").write_text(json.dumps(recipe, indent=2))
    subprocess.run([args.strand, "train", "--config", str(work / "config.json"), "--run-name",
                    "steps"], check=True, stdout=subprocess.DEVNULL)
    strand_losses = [float(r.split(",")[2]) for r in
                     (work / "steps" / "steps.csv").read_text().splitlines()[1:]]

    optimizer = q.make_optimizer(recipe, model.parameters())
    bce = torch.nn.BCEWithLogitsLoss()
    print(f"{'step':>4} {'strand':>12} {'PyTorch':>12} {'rel. diff':>10}")
    model.train()
    for step in range(args.steps):
        optimizer.zero_grad()
        loss = bce(model(x), y)
        loss.backward()
        optimizer.step()
        q.apply_max_norm(model, recipe["max_weight_norm"])
        ours = loss.item()
        print(f"{step + 1:>4} {strand_losses[step]:12.6f} {ours:12.6f} "
              f"{abs(strand_losses[step] - ours) / abs(ours):10.2e}")
    final = q.read_safetensors(work / "steps" / "checkpoints" / "last.safetensors")
    worst = max((float((final[k].double() - v.double()).abs().max() /
                       v.double().abs().max().clamp(min=1e-12)), k)
                for k, v in model.state_dict().items() if k in final)
    print(f"final weights: largest difference relative to the tensor's largest value "
          f"{worst[0]:.2e} ({worst[1]})")

if __name__ == "__main__":
    main()
