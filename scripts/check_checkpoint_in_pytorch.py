#!/usr/bin/python3
"""Proves a PyTorch user can use strand's weights: loads a run's checkpoint into a torch model
with the same parameter names and checks its predictions equal `strand predict`'s.

1. Reads RUN_DIR/checkpoints/best.safetensors with numpy only (8-byte little-endian header
   length, JSON header, raw little-endian data), so no safetensors package is needed.
2. Builds the reference architecture in torch with matching names (0 = Conv1d, 3 = Linear) and
   calls load_state_dict(strict=True).
3. Writes the run's simulated data with `strand simulate` (same seed and sizes as config.json),
   runs `strand predict --model RUN_DIR`, and compares the torch scores on test.fa, record by
   record, to 1e-5.

Needs Debian's python3-torch (system python: /usr/bin/python3).
Usage: /usr/bin/python3 scripts/check_checkpoint_in_pytorch.py STRAND_BINARY RUN_DIR
"""
import json
import pathlib
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch

DTYPES = {"F32": np.float32, "F64": np.float64, "U8": np.uint8, "I32": np.int32, "I64": np.int64}


def read_safetensors(path):
    raw = pathlib.Path(path).read_bytes()
    (header_length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + header_length])
    data = raw[8 + header_length :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        array = np.frombuffer(data[begin:end], dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"])
        tensors[name] = torch.from_numpy(array.copy())
    return tensors, header.get("__metadata__", {})


class GlobalMaxPool1d(torch.nn.Module):
    def forward(self, x):
        return x.amax(dim=-1)


def reference_model(filters, kernel_size):
    return torch.nn.Sequential(
        torch.nn.Conv1d(4, filters, kernel_size),  # "0.weight", "0.bias"
        torch.nn.ReLU(),
        GlobalMaxPool1d(),
        torch.nn.Linear(filters, 1),  # "3.weight", "3.bias"
        torch.nn.Sigmoid(),
    )


def one_hot(sequence):
    codes = np.frombuffer(sequence.upper().encode(), dtype=np.uint8)
    out = np.zeros((4, len(sequence)), dtype=np.float32)
    for row, base in enumerate(b"ACGT"):
        out[row, codes == base] = 1.0
    return out


def read_fasta(path):
    records, name = {}, None
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith(">"):
            name = line[1:].split()[0]
            records[name] = []
        elif name is not None:
            records[name].append(line.strip())
    return {k: "".join(v) for k, v in records.items()}


def main():
    strand, run_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    config = json.loads((run_dir / "config.json").read_text())
    conv = config["model"][0]
    weights, metadata = read_safetensors(run_dir / "checkpoints" / "best.safetensors")
    model = reference_model(conv["filters"], conv["kernel_size"])
    model.load_state_dict(weights, strict=True)
    model.eval()
    print(f"loaded {len(weights)} tensors into torch: {sorted(weights)} "
          f"(epoch {metadata.get('epochs_completed')})")

    data = config["data"]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([strand, "simulate", "--motif", data["motif"], "--n-pos", str(data["n_pos"]),
                        "--n-neg", str(data["n_neg"]), "--length", str(data["length"]),
                        "--gc-fraction", str(data["gc_fraction"]),
                        "--validation", str(data["validation"]), "--test", str(data["test"]),
                        "--seed", str(config["seed"]), "--out", tmp], check=True,
                       stdout=subprocess.DEVNULL)
        scores_path = pathlib.Path(tmp) / "scores.tsv"
        subprocess.run([strand, "predict", "--model", str(run_dir), "--out", str(scores_path)],
                       check=True, stdout=subprocess.DEVNULL)
        sequences = read_fasta(pathlib.Path(tmp) / "test.fa")
        rows = [line.split("\t") for line in scores_path.read_text().splitlines()[1:]]
    names = [row[0] for row in rows]
    strand_scores = np.array([float(row[-1]) for row in rows])
    batch = torch.from_numpy(np.stack([one_hot(sequences[name]) for name in names]))
    with torch.no_grad():
        torch_scores = model(batch).squeeze(1).double().numpy()
    worst = float(np.max(np.abs(torch_scores - strand_scores)))
    print(f"{len(names)} test sequences: max |torch - strand| = {worst:.2e}")
    if worst > 1e-5:
        print("FAIL: torch predictions differ from strand predict")
        return 1
    print("check_checkpoint_in_pytorch: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
