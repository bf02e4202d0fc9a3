"""Model.to_torch(): every preset and every layer type of the catalog in PyTorch, predicting what
strand predicts (to 1e-5), and a clear refusal of a layer type without a counterpart."""
import numpy as np
import pytest

import strand
from conftest import random_sequences, small_reference_overrides

torch = pytest.importorskip("torch")

# A graph using every layer type of the catalog, with three heads of different final
# activations, trained briefly so that BatchNorm's running statistics are not the defaults.
EVERY_LAYER_GRAPH = {
    "nodes": [
        {"name": "c1", "type": "Conv1D", "filters": 8, "kernel_size": 5, "padding": "same",
         "inputs": ["sequence"]},
        {"name": "bn", "type": "BatchNorm1D", "momentum": 0.3},
        {"name": "r", "type": "ReLU"},
        {"name": "c2", "type": "Conv1D", "filters": 8, "kernel_size": 4, "padding": "same",
         "dilation": 2, "use_bias": False},
        {"name": "g", "type": "GELU"},
        {"name": "sum", "type": "Add", "inputs": ["r", "g"]},
        {"name": "lse", "type": "LogSumExp", "inputs": ["r", "g"]},
        {"name": "mp", "type": "MaxPool1D", "pool_size": 3, "stride": 2, "ceil_mode": True},
        {"name": "t", "type": "Tanh"},
        {"name": "sp", "type": "Softplus", "inputs": ["mp"]},
        {"name": "cat", "type": "Concat", "inputs": ["t", "sp"]},
        {"name": "c3", "type": "Conv1D", "filters": 6, "kernel_size": 3, "stride": 2},
        {"name": "crop", "type": "Crop1D", "length": 21},
        {"name": "drop", "type": "Dropout", "rate": 0.2},
        {"name": "gmp", "type": "GlobalMaxPool1D"},
        {"name": "bound_dense", "type": "Dense", "units": "tasks"},
        {"name": "bound", "type": "Sigmoid"},
        {"name": "flat", "type": "Flatten", "inputs": ["drop"]},
        {"name": "level_dense", "type": "Dense", "units": "tasks", "use_bias": False},
        {"name": "level", "type": "Exp"},
        {"name": "ap", "type": "AvgPool1D", "pool_size": 3, "ceil_mode": True,
         "inputs": ["lse"]},
        {"name": "gap", "type": "GlobalAvgPool1D"},
        {"name": "share_dense", "type": "Dense", "units": 3},
        {"name": "share", "type": "Softmax"},
    ],
    "outputs": [
        {"name": "bound", "node": "bound", "loss": "binary_crossentropy", "target": "labels"},
        {"name": "level", "node": "level", "loss": "poisson", "target": "labels", "weight": 0.1},
    ],
}


def assert_same_predictions(model, module, sequences, atol=1e-5):
    ours = model.predict(sequences)
    codes = np.stack([np.frombuffer(s.encode(), dtype=np.uint8) for s in sequences])
    table = np.full(256, 4, dtype=np.uint8)
    for code, base in enumerate(b"ACGT"):
        table[base] = code
    with torch.no_grad():
        theirs = module(torch.from_numpy(table[codes]))
    if isinstance(ours, dict):
        assert sorted(ours) == sorted(theirs)
        for name in ours:
            np.testing.assert_allclose(theirs[name].numpy(), ours[name], atol=atol, rtol=1e-5)
    else:
        np.testing.assert_allclose(theirs.numpy(), ours, atol=atol, rtol=1e-5)


def test_the_reference_model_in_torch(reference_model):
    module = reference_model.to_torch()
    assert isinstance(module, torch.nn.Module) and not module.training
    assert sorted(module.state_dict()) == ["0.bias", "0.weight", "3.bias", "3.weight"]
    sequences = random_sequences(np.random.default_rng(4), 50, 120)
    assert_same_predictions(reference_model, module, sequences)
    # One-hot float input gives the same as base codes.
    codes = torch.randint(0, 4, (3, 120), dtype=torch.uint8)
    one_hot = torch.nn.functional.one_hot(codes.long(), 4).transpose(1, 2).float()
    with torch.no_grad():
        torch.testing.assert_close(module(codes), module(one_hot))


def test_every_layer_type_in_torch(tmp_path):
    overrides = small_reference_overrides(tmp_path)
    overrides["epochs"] = 1
    run = strand.train({"model": EVERY_LAYER_GRAPH, "early_stopping": {"monitor": "val_loss"}},
                       **overrides)
    model = run.load()
    used = {layer["type"] for layer in model._description()["layers"]}
    catalog = set(strand._strand._layer_types())  # what `strand layers` lists
    assert used == catalog == set(strand._torch.supported_layer_types())
    module = model.to_torch()
    running_var = module.state_dict()["bn.running_var"]
    assert not torch.allclose(running_var, torch.ones_like(running_var))  # trained statistics
    assert_same_predictions(model, module, random_sequences(np.random.default_rng(5), 40, 120))


@pytest.mark.parametrize(
    "preset, sizes",
    [
        ("reference", dict(length=500, tasks=1)),
        ("basset", dict(length=600, tasks=3)),
        ("deepsea", dict(length=1000, tasks=4)),
        ("bpnet", dict(length=2114, tasks=1, profile_tracks=2, profile_length=1000)),
    ],
)
def test_every_preset_in_torch(preset, sizes):
    model = strand.build(preset, **sizes)
    module = model.to_torch()
    sequences = random_sequences(np.random.default_rng(6), 4, sizes["length"])
    assert_same_predictions(model, module, sequences, atol=1e-5)


def test_a_layer_type_without_a_counterpart_is_refused(reference_model, monkeypatch):
    builders = strand._torch._layer_builders

    def without_relu(torch_module):
        table = builders(torch_module)
        del table["ReLU"]
        return table

    monkeypatch.setattr(strand._torch, "_layer_builders", without_relu)
    with pytest.raises(strand.ConfigError, match="layer '1' is a ReLU, which has no PyTorch"):
        reference_model.to_torch()
