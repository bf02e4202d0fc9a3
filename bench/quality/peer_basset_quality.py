"""PyTorch peer of `strand train --model basset` on a records dataset (`strand simulate` output:
{train,valid,test}.fa + .tsv): the same architecture, initialisation, loss, optimizer, max-norm,
batch, epochs and early stopping, read from strand's resolved config, on the same files and
splits. Prints and writes (--out) the test auROC per task and their mean.

    python bench/quality/peer_basset_quality.py --data D --recipe recipe.json --seed 1 --out r.json

recipe.json is `strand train --model basset ... --print-config` (bench/quality/run_basset_quality.sh
writes it). --init torch keeps PyTorch's default initialisation instead of strand's Glorot.
--check-checkpoint RUN_DIR loads a strand run's best checkpoint into this model and prints its
test mean auROC with the torch forward pass (--out: also its test scores), instead of training.
"""
import argparse
import time

import numpy as np
import torch

import quality_common as q


def basset(length, tasks):
    """configs/basset.json, layer for layer (indices = strand's layer indices, so a strand
    checkpoint loads by name); the final Sigmoid is left to the loss (BCE with logits)."""
    nn = torch.nn
    flat = length - 18  # Conv 19
    flat = (flat // 3) - 10  # MaxPool 3, Conv 11
    flat = (flat // 4) - 6  # MaxPool 4, Conv 7
    flat = (flat // 4) * 200  # MaxPool 4, Flatten
    # BatchNorm: momentum 0.1, eps 1e-5 (PyTorch's defaults; strand's BatchNorm1D follows them).
    return nn.Sequential(
        nn.Conv1d(4, 300, 19), nn.BatchNorm1d(300), nn.ReLU(), nn.MaxPool1d(3),
        nn.Conv1d(300, 200, 11), nn.BatchNorm1d(200), nn.ReLU(), nn.MaxPool1d(4),
        nn.Conv1d(200, 200, 7), nn.BatchNorm1d(200), nn.ReLU(), nn.MaxPool1d(4),
        nn.Flatten(),
        nn.Linear(flat, 1000), nn.BatchNorm1d(1000), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(1000, 1000), nn.BatchNorm1d(1000), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(1000, tasks))


def check_recipe(recipe):
    """The layer list this peer builds must be the one strand trains."""
    expected = ["Conv1D", "BatchNorm1D", "ReLU", "MaxPool1D"] * 3 + ["Flatten"] + \
        ["Dense", "BatchNorm1D", "ReLU", "Dropout"] * 2 + ["Dense", "Sigmoid"]
    layers = recipe["model"]
    got = [layer["type"] for layer in layers]
    if got != expected:
        raise SystemExit(f"strand's model is not the Basset this peer builds: {got}")
    sizes = [(l.get("filters"), l.get("kernel_size")) for l in layers if l["type"] == "Conv1D"]
    assert sizes == [(300, 19), (200, 11), (200, 7)], sizes
    assert [l["pool_size"] for l in layers if l["type"] == "MaxPool1D"] == [3, 4, 4]
    assert [l["rate"] for l in layers if l["type"] == "Dropout"] == [0.3, 0.3]
    assert all(l["momentum"] == 0.1 and l["eps"] == 1e-5 for l in layers
               if l["type"] == "BatchNorm1D")
    assert recipe["loss"] == "binary_crossentropy"
    assert all(l["padding"] == "valid" and l["stride"] == 1 and l["dilation"] == 1
               for l in layers if l["type"] == "Conv1D")
    assert recipe["data"]["rc_probability"] == 0.0 and recipe["data"]["jitter"] == 0
    assert recipe["lr_schedule"]["name"] == "none" and recipe["clip_grad_norm"] == 0.0


@torch.no_grad()
def predict(model, x, batch):
    model.eval()
    return torch.cat([model(x[i:i + batch]) for i in range(0, len(x), batch)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="directory of {train,valid,test}.{fa,tsv}")
    parser.add_argument("--recipe", required=True, help="strand's resolved config (JSON)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--init", choices=["glorot", "torch"], default="glorot")
    parser.add_argument("--check-checkpoint", metavar="RUN_DIR")
    parser.add_argument("--out", help="JSON with the figures")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    recipe = q.load_recipe(args.recipe)
    check_recipe(recipe)

    split, record_names = {}, {}
    for name in ("train", "valid", "test"):
        codes, labels, tasks, record_names[name] = q.read_records(f"{args.data}/{name}.fa",
                                                                  f"{args.data}/{name}.tsv")
        split[name] = (torch.from_numpy(q.one_hot(codes)), torch.from_numpy(labels))
    x_train, y_train = split["train"]
    length, n_tasks = x_train.shape[-1], y_train.shape[1]
    batch = recipe["batch_size"]
    bce = torch.nn.BCEWithLogitsLoss()

    torch.manual_seed(args.seed)
    model = basset(length, n_tasks)
    if args.init == "glorot":
        q.glorot_init(model)
    if args.check_checkpoint:
        tensors = q.read_safetensors(f"{args.check_checkpoint}/checkpoints/best.safetensors")
        state = {k: v.to(model.state_dict()[k].dtype) for k, v in tensors.items()}
        model.load_state_dict(state, strict=True)
        scores = torch.sigmoid(predict(model, split["test"][0], batch)).numpy()
        _, mean = q.task_aurocs(scores, split["test"][1].numpy())
        print(f"strand checkpoint in torch: test mean auROC {mean:.4f}")
        if args.out:
            q.write_json(args.out, {"program": f"pytorch {torch.__version__}", "checkpoint":
                                    args.check_checkpoint, "test_mean_auroc": mean,
                                    "scores": dict(zip(record_names["test"], scores.tolist()))})
        return

    trainable = sum(p.numel() for p in model.parameters())
    optimizer = q.make_optimizer(recipe, model.parameters())
    max_norm = recipe["max_weight_norm"]
    es = recipe["early_stopping"]
    assert es["enabled"] and es["monitor"] == "val_loss" and es["restore_best_weights"]
    stopper = q.EarlyStopping(es["patience"], es["min_delta"])
    shuffle = torch.Generator().manual_seed(args.seed)
    print(f"pytorch {torch.__version__} basset: {len(x_train)} train x {length} bp, {n_tasks} tasks, "
          f"{trainable} trainable parameters, init {args.init}, {recipe['optimizer']}, batch {batch}, "
          f"max-norm {max_norm}, up to {recipe['epochs']} epochs (patience {es['patience']}), "
          f"seed {args.seed}, {torch.get_num_threads()} threads", flush=True)
    history = []
    start = time.perf_counter()
    for epoch in range(1, recipe["epochs"] + 1):
        model.train()
        order = torch.randperm(len(x_train), generator=shuffle)
        loss_sum = 0.0
        for i in range(0, len(order), batch):
            index = order[i:i + batch]
            optimizer.zero_grad()
            loss = bce(model(x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            if max_norm > 0:
                q.apply_max_norm(model, max_norm)
            loss_sum += loss.item() * len(index)
        x_valid, y_valid = split["valid"]
        val_logits = predict(model, x_valid, batch)
        val_loss = bce(val_logits, y_valid).item()
        _, val_auroc = q.task_aurocs(torch.sigmoid(val_logits).numpy(), y_valid.numpy())
        history.append({"epoch": epoch, "loss": loss_sum / len(x_train), "val_loss": val_loss,
                        "val_mean_auroc": val_auroc})
        print(f"epoch {epoch}: loss {loss_sum / len(x_train):.4f} val_loss {val_loss:.4f} "
              f"val_mean_auroc {val_auroc:.4f} ({time.perf_counter() - start:.0f} s)", flush=True)
        if stopper.update(model, epoch, val_loss):
            break
    stopper.restore(model)
    x_test, y_test = split["test"]
    scores = torch.sigmoid(predict(model, x_test, batch)).numpy()
    per_task, mean = q.task_aurocs(scores, y_test.numpy())
    pooled = q.auroc(scores.ravel(), y_test.numpy().ravel())
    print(f"test: mean auROC {mean:.4f} (pooled {pooled:.4f}); best epoch {stopper.best_epoch} of "
          f"{len(history)}; per task " + " ".join(f"{t}={a:.3f}" for t, a in zip(tasks, per_task)))
    if args.out:
        q.write_json(args.out, {
            "program": f"pytorch {torch.__version__}", "seed": args.seed, "init": args.init,
            "test_mean_auroc": mean, "test_pooled_auroc": pooled,
            "test_auroc": dict(zip(tasks, per_task)), "best_epoch": stopper.best_epoch,
            "epochs_run": len(history), "history": history,
            "train_seconds": time.perf_counter() - start})


if __name__ == "__main__":
    main()
