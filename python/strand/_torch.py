"""Model.to_torch(): a torch.nn.Module built from a strand model's layer list or graph, with its
weights, for captum, tangermeme or a user's own code. Every layer type of strand's layer catalog
(`strand layers`) has its PyTorch counterpart here; a type without one is refused by name."""
from typing import Callable, Dict, List

from . import _strand

__all__ = ["to_torch"]


def _torch():
    try:
        import torch
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Model.to_torch() needs PyTorch: pip install torch"
        ) from error
    return torch


def _layer_builders(torch) -> Dict[str, Callable]:
    nn = torch.nn
    F = torch.nn.functional

    class Conv1D(nn.Conv1d):
        """strand's Conv1D: 'same' pads total dilation * (kernel_size - 1), the extra column of
        an odd total on the right (as Keras/TensorFlow)."""

        def __init__(self, in_channels, options):
            super().__init__(
                in_channels,
                options["filters"],
                options["kernel_size"],
                stride=options["stride"],
                dilation=options["dilation"],
                bias=options["use_bias"],
            )
            total = options["dilation"] * (options["kernel_size"] - 1)
            self.pads = (total // 2, total - total // 2) if options["padding"] == "same" else None

        def forward(self, x):
            if self.pads is not None:
                x = F.pad(x, self.pads)
            return super().forward(x)

    class Lambda(nn.Module):
        def __init__(self, name, function):
            super().__init__()
            self.name = name
            self.function = function

        def forward(self, *inputs):
            return self.function(*inputs)

        def extra_repr(self):
            return self.name

    class Crop1D(nn.Module):
        """(B, C, L) -> (B, C, length): the centre positions (an odd surplus leaves one more
        on the right)."""

        def __init__(self, length):
            super().__init__()
            self.length = length

        def forward(self, x):
            start = (x.shape[-1] - self.length) // 2
            return x[..., start : start + self.length]

        def extra_repr(self):
            return f"length={self.length}"

    def pool_stride(options):
        return options["stride"] or options["pool_size"]

    def weight_shape(weights, name, index=None):
        key = f"{name}.weight"
        if key not in weights:
            raise _strand.ConfigError(f"to_torch: layer '{name}' has no weight '{key}'")
        shape = weights[key].shape
        return shape if index is None else shape[index]

    return {
        "Conv1D": lambda name, o, w: Conv1D(weight_shape(w, name, 1), o),
        "Dense": lambda name, o, w: nn.Linear(
            weight_shape(w, name, 1), o["units"], bias=o["use_bias"]
        ),
        "ReLU": lambda name, o, w: nn.ReLU(),
        "Sigmoid": lambda name, o, w: nn.Sigmoid(),
        "Softmax": lambda name, o, w: nn.Softmax(dim=-1),
        "Tanh": lambda name, o, w: nn.Tanh(),
        "Exp": lambda name, o, w: Lambda("exp", torch.exp),
        "Softplus": lambda name, o, w: nn.Softplus(),
        "GELU": lambda name, o, w: nn.GELU(),
        "GlobalMaxPool1D": lambda name, o, w: Lambda("amax(dim=-1)", lambda x: x.amax(dim=-1)),
        "GlobalAvgPool1D": lambda name, o, w: Lambda("mean(dim=-1)", lambda x: x.mean(dim=-1)),
        "MaxPool1D": lambda name, o, w: nn.MaxPool1d(
            o["pool_size"], pool_stride(o), ceil_mode=o["ceil_mode"]
        ),
        "AvgPool1D": lambda name, o, w: nn.AvgPool1d(
            o["pool_size"], pool_stride(o), ceil_mode=o["ceil_mode"]
        ),
        "BatchNorm1D": lambda name, o, w: nn.BatchNorm1d(
            weight_shape(w, name, 0), eps=o["eps"], momentum=o["momentum"]
        ),
        "Dropout": lambda name, o, w: nn.Dropout(o["rate"]),
        "Crop1D": lambda name, o, w: Crop1D(o["length"]),
        "Flatten": lambda name, o, w: nn.Flatten(1),
        "Add": lambda name, o, w: Lambda("sum of inputs", lambda *xs: sum(xs[1:], xs[0])),
        "Concat": lambda name, o, w: Lambda("cat(dim=1)", lambda *xs: torch.cat(xs, dim=1)),
        "LogSumExp": lambda name, o, w: Lambda(
            "logsumexp of inputs", lambda *xs: torch.logsumexp(torch.stack(xs), dim=0)
        ),
    }


def supported_layer_types() -> List[str]:
    """The layer types to_torch() converts (every type of strand's layer catalog)."""
    return sorted(_layer_builders(_torch()))


def to_torch(model: "_strand.Model"):
    """A torch.nn.Module computing what `model` predicts, with its weights (copied into torch
    parameters; the state dict's names are the checkpoint's: "0.weight", "conv.bias").

    forward(sequence, control=None): `sequence` is one-hot float32 (B, 4, L) or uint8 base
    codes (B, L); `control` the control tracks (B, Sc, L) of a model that reads them. It returns
    the predictions, after each output's final activation (Sigmoid, Softmax, Exp): a tensor for
    one output, a dict by output name for several. The module is in eval mode (Dropout off,
    BatchNorm on its running statistics), as strand predicts.

    Raises strand.ConfigError naming the layer when a layer type has no PyTorch counterpart."""
    torch = _torch()
    builders = _layer_builders(torch)
    description = model._description()
    weights = model.weights()
    layers = description["layers"]
    for layer in layers:
        if layer["type"] not in builders:
            raise _strand.ConfigError(
                f"to_torch: layer '{layer['name']}' is a {layer['type']}, which has no PyTorch "
                f"counterpart in strand.to_torch (supported: {', '.join(sorted(builders))})"
            )

    class StrandModel(torch.nn.Module):
        """A strand model in PyTorch (see strand.Model.to_torch)."""

        def __init__(self):
            super().__init__()
            self.strand_layers = [(l["name"], l["inputs"]) for l in layers]
            self.strand_outputs = [(o["name"], o["node"]) for o in description["outputs"]]
            self.input_length = description["inputs"]["sequence"][0]
            for layer in layers:
                name = layer["name"]
                if hasattr(torch.nn.Module, name) or name in ("strand_layers", "strand_outputs"):
                    raise _strand.ConfigError(
                        f"to_torch: node name '{name}' clashes with a torch.nn.Module attribute; "
                        "rename the node"
                    )
                self.add_module(name, builders[layer["type"]](name, layer["options"], weights))

        def forward(self, sequence, control=None):
            if sequence.dtype == torch.uint8:
                # Base codes (B, L) -> one-hot (B, 4, L); N (4) is a zero column.
                sequence = torch.nn.functional.one_hot(sequence.long(), 5)[..., :4]
                sequence = sequence.transpose(1, 2).to(torch.float32)
            values = {"sequence": sequence}
            if control is not None:
                values["control"] = control
            for name, inputs in self.strand_layers:
                missing = [i for i in inputs if i not in values]
                if missing:
                    raise ValueError(f"node '{name}' reads input '{missing[0]}', not given")
                values[name] = getattr(self, name)(*[values[i] for i in inputs])
            if len(self.strand_outputs) == 1:
                return values[self.strand_outputs[0][1]]
            return {output: values[node] for output, node in self.strand_outputs}

    module = StrandModel()
    state = {}
    for name, value in weights.items():
        tensor = torch.from_numpy(value.copy())
        if name.endswith("num_batches_tracked"):
            tensor = tensor.to(torch.int64)
        state[name] = tensor
    module.load_state_dict(state, strict=True)
    module.eval()
    return module
