#!/usr/bin/env python3
"""PyTorch peer of the default `strand train` run (DragoNN TAL1 simulation), same recipe.

Reads the dataset `strand simulate --out DIR` writes (DIR/{train,valid,test}.{fa,tsv}; with the
simulate defaults it is the very dataset `strand train` with no arguments builds in memory),
one-hot encodes it up front as float32 (N, 4, L), and trains what strand trains:
Conv1d(4, 16, 15) -> ReLU -> global max pool -> Linear(16, 1) (-> Sigmoid for the scores),
Glorot-uniform weights and zero biases (Keras and strand's init), BCE on the logits, Adam
(lr 1e-3, betas 0.9/0.999, eps 1e-7 like Keras and strand), batch 128, the training split
reshuffled each epoch, up to 100 epochs, early stopping on val_loss (patience 3, min_delta 0:
stop once 3 epochs in a row fail to beat the best; then restore the best epoch's weights),
then the test split: loss, accuracy, auROC, auPRC (sklearn).

Prints each epoch, then a summary whose `key: value` lines bench/run_default_comparison.sh
parses: epochs, best_epoch, test_*, load_seconds (FASTA read + one-hot), train_seconds (the
epoch loop with its validation passes), run_seconds (training + test evaluation: the run
without the data load) and script_seconds (from interpreter start, imports and load included).

Usage: peer_pytorch_tal1.py --data DIR [--threads 2] [--seed 0] [--epochs 100] [--batch 128]
                            [--patience 3]
"""
import time

SCRIPT_START = time.perf_counter()

import argparse  # noqa: E402
import copy  # noqa: E402
import os  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sklearn.metrics import average_precision_score, roc_auc_score  # noqa: E402

# A, C, G, T -> 0..3 (either case); anything else (N) -> 4, an all-zero column.
CODE = np.full(256, 4, dtype=np.uint8)
for i, base in enumerate("ACGT"):
    CODE[ord(base)] = i
    CODE[ord(base.lower())] = i
ONE_HOT = np.eye(5, 4, dtype=np.float32)


def read_fasta(path):
    sequences, name, parts = {}, None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith(">"):
                if name is not None:
                    sequences[name] = "".join(parts)
                name, parts = line[1:].split()[0], []
            elif line:
                parts.append(line)
    if name is not None:
        sequences[name] = "".join(parts)
    return sequences


def load_split(directory, stem):
    """(one-hot float32 (N, 4, L), labels float32 (N, 1)), in label-TSV order."""
    sequences = read_fasta(os.path.join(directory, stem + ".fa"))
    names, labels = [], []
    with open(os.path.join(directory, stem + ".tsv")) as f:
        for line in f:
            fields = line.split()
            if fields:
                names.append(fields[0])
                labels.append(float(fields[1]))
    text = "".join(sequences[n] for n in names).encode("ascii")
    length = len(sequences[names[0]])
    codes = CODE[np.frombuffer(text, dtype=np.uint8)].reshape(len(names), length)
    x = np.ascontiguousarray(ONE_HOT[codes].transpose(0, 2, 1))  # (N, 4, L)
    y = np.asarray(labels, dtype=np.float32).reshape(-1, 1)
    return torch.from_numpy(x), torch.from_numpy(y)


def build_model():
    model = torch.nn.Sequential(
        torch.nn.Conv1d(4, 16, 15),
        torch.nn.ReLU(),
        torch.nn.AdaptiveMaxPool1d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(16, 1),
    )
    for layer in model:
        if isinstance(layer, (torch.nn.Conv1d, torch.nn.Linear)):
            torch.nn.init.xavier_uniform_(layer.weight)
            torch.nn.init.zeros_(layer.bias)
    return model


@torch.no_grad()
def evaluate(model, x, y, batch):
    """Mean BCE over the samples, accuracy at 0.5, auROC, auPRC."""
    model.eval()
    loss_sum, scores = 0.0, []
    for start in range(0, len(x), batch):
        logits = model(x[start:start + batch])
        target = y[start:start + batch]
        loss_sum += torch.nn.functional.binary_cross_entropy_with_logits(
            logits, target, reduction="sum").item()
        scores.append(torch.sigmoid(logits))
    model.train()
    s = torch.cat(scores).numpy().ravel()
    labels = y.numpy().ravel()
    return {
        "loss": loss_sum / len(x),
        "accuracy": float(np.mean((s >= 0.5) == (labels >= 0.5))),
        "auroc": float(roc_auc_score(labels, s)),
        "auprc": float(average_precision_score(labels, s)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="directory from `strand simulate --out`")
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--patience", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    start = time.perf_counter()
    x_train, y_train = load_split(args.data, "train")
    x_valid, y_valid = load_split(args.data, "valid")
    x_test, y_test = load_split(args.data, "test")
    load_seconds = time.perf_counter() - start
    print(f"pytorch {torch.__version__}: threads={torch.get_num_threads()} "
          f"train {len(x_train)} valid {len(x_valid)} test {len(x_test)} "
          f"length {x_train.shape[2]}; loaded in {load_seconds:.2f} s", flush=True)

    torch.manual_seed(args.seed)
    model = build_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-7)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    shuffle = torch.Generator().manual_seed(args.seed)

    run_start = time.perf_counter()
    best, best_epoch, best_state, wait, epochs_run = float("inf"), 0, None, 0, 0
    stopped_early = False
    for epoch in range(1, args.epochs + 1):
        epoch_start = time.perf_counter()
        order = torch.randperm(len(x_train), generator=shuffle)
        loss_sum, correct = 0.0, 0
        for first in range(0, len(order), args.batch):
            index = order[first:first + args.batch]
            x, y = x_train[index], y_train[index]
            optimizer.zero_grad()
            logits = model(x)
            loss = loss_fn(logits, y)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * len(index)
            correct += int(((logits.detach() >= 0) == (y >= 0.5)).sum())
        val = evaluate(model, x_valid, y_valid, args.batch)
        epochs_run = epoch
        seconds = time.perf_counter() - epoch_start
        print(f"epoch {epoch}/{args.epochs}: loss {loss_sum / len(order):.4f} "
              f"accuracy {correct / len(order):.4f} | val_loss {val['loss']:.4f} "
              f"val_accuracy {val['accuracy']:.4f} val_auROC {val['auroc']:.4f} "
              f"val_auPRC {val['auprc']:.4f} | {len(order) / seconds:.0f} samples/s, "
              f"{seconds:.2f} s", flush=True)
        # EarlyStopping(monitor=val_loss, patience, min_delta=0, restore_best_weights=True).
        if val["loss"] < best:
            best, best_epoch, wait = val["loss"], epoch, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            wait += 1
            if wait >= args.patience:
                stopped_early = True
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    train_seconds = time.perf_counter() - run_start

    test = evaluate(model, x_test, y_test, args.batch)
    run_seconds = time.perf_counter() - run_start
    script_seconds = time.perf_counter() - SCRIPT_START
    print(f"test: loss {test['loss']:.4f} accuracy {test['accuracy']:.4f} "
          f"auROC {test['auroc']:.4f} auPRC {test['auprc']:.4f} ({len(x_test)} sequences)")
    print(f"epochs: {epochs_run}")
    print(f"best_epoch: {best_epoch}")
    print(f"best_val_loss: {best:.6f}")
    print(f"stopped_early: {str(stopped_early).lower()}")
    for key in ("loss", "accuracy", "auroc", "auprc"):
        print(f"test_{key}: {test[key]:.6f}")
    print(f"load_seconds: {load_seconds:.3f}")
    print(f"train_seconds: {train_seconds:.3f}")
    print(f"run_seconds: {run_seconds:.3f}")
    print(f"script_seconds: {script_seconds:.3f}")


if __name__ == "__main__":
    main()
