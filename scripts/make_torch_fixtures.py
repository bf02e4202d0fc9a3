#!/usr/bin/python3
"""Generates tests/fixtures/torch_reference.json: PyTorch reference values for strand's tests.

Run with the system Python (it has torch and numpy):

    /usr/bin/python3 scripts/make_torch_fixtures.py

which rewrites tests/fixtures/torch_reference.json (pass --output PATH to write elsewhere).
The C++ tests (tests/layers/torch_reference_test.cpp, tests/optim/optimizer_trajectory_test.cpp)
only read the JSON, so the test suite itself never needs Python.

Everything is float64. Inputs come from a seeded numpy RNG and are stored in the JSON next to
the expected outputs, so the C++ side needs no RNG parity with numpy. A tensor is stored as
{"shape": [...], "data": [row-major values]}; Python writes floats with repr, which round-trips
float64 exactly.

Conventions matched to strand:
  * Conv1D weights are (out, in, k) like torch; "same" padding puts the extra column of an odd
    total padding on the right (pad_left = total // 2), so the script pads explicitly with F.pad.
  * Base codes are uint8 0..3 = A, C, G, T and 4 = N, which is an all-zero one-hot column.
  * Dense weights are (out, in) like torch.nn.Linear.
  * Global max pooling and the fused Conv1D->ReLU->GlobalMaxPool1D route the gradient to the
    argmax; the script asserts that no maximum is tied (or near zero under ReLU), so the
    comparison does not depend on tie-breaking.
"""

import argparse
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(REPO_ROOT, "tests", "fixtures", "torch_reference.json")

# Smallest gap allowed between the largest and second-largest value of a pooled row, and
# between a pooled maximum and zero (the ReLU kink). Along an optimizer trajectory the argmax
# legitimately moves from one position to another, so there the gap only has to stay far
# above float64 rounding.
TIE_MARGIN = 1e-6
TRAJECTORY_TIE_MARGIN = 1e-9


def encode(array):
    array = np.asarray(array)
    if array.dtype.kind in "ui":
        data = [int(v) for v in array.reshape(-1)]
    else:
        data = [float(v) for v in array.reshape(-1)]
    return {"shape": list(array.shape), "data": data}


def t2np(tensor):
    return tensor.detach().cpu().numpy()


def one_hot(codes):
    """(B, L) codes 0..4 -> (B, 4, L) float64, N (4) -> zeros."""
    codes = np.asarray(codes)
    out = np.zeros((codes.shape[0], 4, codes.shape[1]))
    for base in range(4):
        out[:, base, :] = codes == base
    return out


def pads(kernel_size, dilation, padding):
    if padding == "valid":
        return 0, 0
    total = dilation * (kernel_size - 1)
    return total // 2, total - total // 2


def torch_conv(x, w, b, stride, dilation, padding):
    left, right = pads(w.shape[2], dilation, padding)
    if left or right:
        x = F.pad(x, (left, right))
    return F.conv1d(x, w, b, stride=stride, dilation=dilation)


def check_no_ties(values, relu, margin=TIE_MARGIN):
    """values (..., L): the max over the last axis is unique (and away from 0 when relu)."""
    flat = np.sort(values.reshape(-1, values.shape[-1]), axis=1)
    gaps = flat[:, -1] - flat[:, -2]
    assert gaps.min() > margin, f"tied maximum (gap {gaps.min()})"
    if relu:
        assert np.abs(flat[:, -1]).min() > margin, "maximum at the ReLU kink"
    return float(gaps.min())


def conv_case(rng, name, batch, in_ch, out_ch, length, kernel_size, stride=1, dilation=1,
              padding="valid", bias=True):
    x = torch.tensor(rng.uniform(-1, 1, (batch, in_ch, length)), requires_grad=True)
    w = torch.tensor(rng.uniform(-1, 1, (out_ch, in_ch, kernel_size)), requires_grad=True)
    b = torch.tensor(rng.uniform(-1, 1, (out_ch,)), requires_grad=True) if bias else None
    y = torch_conv(x, w, b, stride, dilation, padding)
    if padding == "same" and stride == 1:
        # Cross-check the explicit padding against torch's own 'same' where they must agree.
        left, right = pads(kernel_size, dilation, padding)
        if left == right:
            alt = F.conv1d(x, w, b, dilation=dilation, padding="same")
            assert torch.allclose(alt, y, atol=1e-12, rtol=0)
    grad_out = rng.uniform(-1, 1, tuple(y.shape))
    y.backward(torch.tensor(grad_out))
    case = {
        "name": name,
        "in_channels": in_ch,
        "out_channels": out_ch,
        "kernel_size": kernel_size,
        "stride": stride,
        "dilation": dilation,
        "padding": padding,
        "bias": bias,
        "input": encode(t2np(x)),
        "weight": encode(t2np(w)),
        "grad_output": encode(grad_out),
        "output": encode(t2np(y)),
        "grad_input": encode(t2np(x.grad)),
        "grad_weight": encode(t2np(w.grad)),
    }
    if bias:
        case["bias_value"] = encode(t2np(b))
        case["grad_bias"] = encode(t2np(b.grad))
    return case


def onehot_case(rng, name, batch, out_ch, length, kernel_size, stride=1, dilation=1,
                padding="valid", bias=True):
    codes = rng.integers(0, 5, (batch, length)).astype(np.uint8)
    x = torch.tensor(one_hot(codes))
    w = torch.tensor(rng.uniform(-1, 1, (out_ch, 4, kernel_size)), requires_grad=True)
    b = torch.tensor(rng.uniform(-1, 1, (out_ch,)), requires_grad=True) if bias else None
    y = torch_conv(x, w, b, stride, dilation, padding)
    grad_out = rng.uniform(-1, 1, tuple(y.shape))
    y.backward(torch.tensor(grad_out))
    case = {
        "name": name,
        "out_channels": out_ch,
        "kernel_size": kernel_size,
        "stride": stride,
        "dilation": dilation,
        "padding": padding,
        "bias": bias,
        "codes": encode(codes),
        "weight": encode(t2np(w)),
        "grad_output": encode(grad_out),
        "output": encode(t2np(y)),
        "grad_weight": encode(t2np(w.grad)),
    }
    if bias:
        case["bias_value"] = encode(t2np(b))
        case["grad_bias"] = encode(t2np(b.grad))
    return case


def global_max_pool_case(rng):
    x_np = rng.uniform(-1, 1, (3, 4, 9))
    check_no_ties(x_np, relu=False)
    x = torch.tensor(x_np, requires_grad=True)
    y = F.max_pool1d(x, kernel_size=x.shape[2]).squeeze(2)
    assert torch.equal(y, torch.amax(x, dim=2))
    grad_out = rng.uniform(-1, 1, tuple(y.shape))
    y.backward(torch.tensor(grad_out))
    return {
        "input": encode(x_np),
        "grad_output": encode(grad_out),
        "output": encode(t2np(y)),
        "grad_input": encode(t2np(x.grad)),
    }


def dense_case(rng, name, batch, in_f, out_f, bias=True):
    x = torch.tensor(rng.uniform(-1, 1, (batch, in_f)), requires_grad=True)
    w = torch.tensor(rng.uniform(-1, 1, (out_f, in_f)), requires_grad=True)
    b = torch.tensor(rng.uniform(-1, 1, (out_f,)), requires_grad=True) if bias else None
    y = F.linear(x, w, b)
    grad_out = rng.uniform(-1, 1, tuple(y.shape))
    y.backward(torch.tensor(grad_out))
    case = {
        "name": name,
        "in_features": in_f,
        "out_features": out_f,
        "bias": bias,
        "input": encode(t2np(x)),
        "weight": encode(t2np(w)),
        "grad_output": encode(grad_out),
        "output": encode(t2np(y)),
        "grad_input": encode(t2np(x.grad)),
        "grad_weight": encode(t2np(w.grad)),
    }
    if bias:
        case["bias_value"] = encode(t2np(b))
        case["grad_bias"] = encode(t2np(b.grad))
    return case


def bce_case(name, logits_np, targets_np):
    logits = torch.tensor(logits_np, requires_grad=True)
    targets = torch.tensor(targets_np)
    loss = F.binary_cross_entropy_with_logits(logits, targets, reduction="mean")
    loss.backward()
    assert np.isfinite(loss.item())
    return {
        "name": name,
        "logits": encode(logits_np),
        "targets": encode(targets_np),
        "loss": loss.item(),
        "grad_logits": encode(t2np(logits.grad)),
    }


def bce_cases(rng):
    moderate_logits = rng.uniform(-4, 4, (4, 3))
    moderate_targets = rng.uniform(0, 1, (4, 3))  # soft labels
    large_logits = np.array([[30.0, -30.0, 45.5], [-45.5, 30.0, -30.0], [0.25, -700.0, 700.0]])
    large_targets = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.5, 0.0, 1.0]])
    return [
        bce_case("moderate soft labels", moderate_logits, moderate_targets),
        bce_case("large logits", large_logits, large_targets),
    ]


def torch_model(codes, params, conv_padding="valid"):
    """One-hot Conv1D -> ReLU -> GlobalMaxPool1D -> Dense on base codes; returns (logits, pre)."""
    x = torch.tensor(one_hot(codes))
    pre = torch_conv(x, params["0.weight"], params["0.bias"], 1, 1, conv_padding)
    pooled = torch.amax(F.relu(pre), dim=2)
    return F.linear(pooled, params["3.weight"], params["3.bias"]), pre


def fused_case(rng):
    batch, length, out_ch, kernel_size, classes = 5, 24, 6, 5, 2
    codes = rng.integers(0, 5, (batch, length)).astype(np.uint8)
    init = {
        "0.weight": rng.uniform(-0.8, 0.8, (out_ch, 4, kernel_size)),
        "0.bias": rng.uniform(-0.3, 0.3, (out_ch,)),
        "3.weight": rng.uniform(-0.8, 0.8, (classes, out_ch)),
        "3.bias": rng.uniform(-0.3, 0.3, (classes,)),
    }
    params = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    logits, pre = torch_model(codes, params, conv_padding="same")
    check_no_ties(t2np(pre), relu=True)
    grad_out = rng.uniform(-1, 1, tuple(logits.shape))
    logits.backward(torch.tensor(grad_out))
    return {
        "kernel_size": kernel_size,
        "out_channels": out_ch,
        "classes": classes,
        "padding": "same",
        "codes": encode(codes),
        "parameters": {k: encode(v) for k, v in init.items()},
        "grad_output": encode(grad_out),
        "output": encode(t2np(logits)),
        "grads": {k: encode(t2np(p.grad)) for k, p in params.items()},
    }


OPTIMIZER_CONFIGS = [
    ("sgd", "SGD", dict(lr=0.1)),
    ("sgd momentum weight decay", "SGD", dict(lr=0.05, momentum=0.9, weight_decay=1e-3)),
    ("sgd nesterov", "SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("adam", "Adam", dict(lr=1e-2, eps=1e-8)),
    ("adam weight decay", "Adam", dict(lr=1e-2, eps=1e-8, weight_decay=1e-2)),
    ("rmsprop", "RMSprop", dict(lr=1e-2)),
    ("rmsprop momentum centered", "RMSprop", dict(lr=1e-2, momentum=0.9, centered=True)),
]
TRAJECTORY_STEPS = 100


def trajectory_cases(rng):
    batch, length, out_ch, kernel_size = 8, 20, 3, 5
    codes = rng.integers(0, 5, (batch, length)).astype(np.uint8)
    labels = np.array([[1.0], [0.0], [1.0], [1.0], [0.0], [0.0], [1.0], [0.0]])
    init = {
        "0.weight": rng.uniform(-0.5, 0.5, (out_ch, 4, kernel_size)),
        "0.bias": rng.uniform(-0.1, 0.1, (out_ch,)) + 0.3,  # keep the ReLUs alive
        "3.weight": rng.uniform(-0.8, 0.8, (1, out_ch)),
        "3.bias": rng.uniform(-0.1, 0.1, (1,)),
    }
    runs = []
    for name, kind, options in OPTIMIZER_CONFIGS:
        params = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
        optimizer = getattr(torch.optim, kind)(list(params.values()), **options)
        losses = []
        min_gap = np.inf
        for _ in range(TRAJECTORY_STEPS):
            optimizer.zero_grad()
            logits, pre = torch_model(codes, params)
            # A near tie would make the trajectory depend on rounding: refuse it.
            min_gap = min(min_gap, check_no_ties(t2np(pre), relu=True,
                                                 margin=TRAJECTORY_TIE_MARGIN))
            loss = F.binary_cross_entropy_with_logits(logits, torch.tensor(labels))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        runs.append({
            "name": name,
            "optimizer": kind,
            "options": options,
            "losses": losses,
            "final_parameters": {k: encode(t2np(p)) for k, p in params.items()},
        })
        print(f"  {name}: loss {losses[0]:.6f} -> {losses[-1]:.6f}, min max-gap {min_gap:.2e}")
    return {
        "steps": TRAJECTORY_STEPS,
        "kernel_size": kernel_size,
        "out_channels": out_ch,
        "codes": encode(codes),
        "labels": encode(labels),
        "initial_parameters": {k: encode(v) for k, v in init.items()},
        "runs": runs,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", default=DEFAULT_OUTPUT)
    args = parser.parse_args()

    rng = np.random.default_rng(20240611)
    fixtures = {
        "generator": "scripts/make_torch_fixtures.py",
        "torch_version": torch.__version__,
        "conv1d": [
            conv_case(rng, "valid", 2, 3, 4, 11, 3),
            conv_case(rng, "stride 2", 2, 3, 4, 12, 3, stride=2),
            conv_case(rng, "dilation 2", 2, 2, 3, 13, 3, dilation=2),
            conv_case(rng, "stride 2 dilation 2", 2, 2, 3, 15, 3, stride=2, dilation=2),
            conv_case(rng, "same odd kernel", 2, 3, 2, 10, 5, padding="same"),
            conv_case(rng, "same even kernel", 2, 3, 2, 10, 4, padding="same"),
            conv_case(rng, "same even kernel dilation 3", 1, 2, 3, 14, 4, dilation=3,
                      padding="same"),
            conv_case(rng, "no bias", 3, 2, 3, 9, 5, bias=False),
        ],
        "conv1d_onehot": [
            onehot_case(rng, "valid", 3, 5, 15, 4),
            onehot_case(rng, "same even kernel", 3, 4, 15, 4, padding="same"),
            onehot_case(rng, "same odd kernel", 2, 3, 12, 5, padding="same"),
            onehot_case(rng, "stride 2", 2, 3, 16, 3, stride=2),
            onehot_case(rng, "dilation 2 no bias", 2, 3, 16, 3, dilation=2, bias=False),
        ],
        "global_max_pool1d": global_max_pool_case(rng),
        "dense": [
            dense_case(rng, "bias", 4, 5, 3),
            dense_case(rng, "no bias", 3, 6, 2, bias=False),
        ],
        "bce_with_logits": bce_cases(rng),
        "fused": fused_case(rng),
    }
    print("optimizer trajectories:")
    fixtures["optimizer_trajectories"] = trajectory_cases(rng)

    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump(fixtures, f, indent=1)
        f.write("\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
