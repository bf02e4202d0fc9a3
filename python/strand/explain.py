"""Attributions of a trained strand model: what `strand explain` and `strand marginalize`
compute, as numpy arrays in tangermeme's layout.

    model = strand.load("runs/gata")
    effects = strand.explain.ism(model, ["ACGT..."])                  # (N, 4, L) float32
    contributions = strand.explain.deep_lift_shap(model, codes)        # (N, 4, L) float32
    saliency = strand.explain.gradient(model, codes)                   # (N, 4, L) float32
    effect = strand.explain.marginalize(model, backgrounds, "GATAAG")  # {"before", "after"}

Every function takes a `strand.Model` and sequences as `Model.predict` does (a list of strings,
uint8 base codes (N, L) with A=0, C=1, G=2, T=3, N=4, or float32 one-hot (N, 4, L)), and
explains one number per sequence: one task of one output, chosen by

    output      the output's name (default: the model's first with one value per task, e.g.
                BPNet's counts head; a profile output is summarised as bpnet-lite does)
    task        a task name or 0-based index, or "all" for their sum (default: the only task)
    activation  explain the output after its final Sigmoid or Exp (predictions) instead of the
                logits before it (the default, as for `strand explain`)

Scores come in tangermeme's layout, (N, 4, L) float32 with the letters A, C, G, T along axis 1,
the layout TF-MoDISco and logo plots read. The model runs in strand's C++ engine with the GIL
released; `threads` sets the OpenMP threads of one call. Bad arguments raise strand.ConfigError
(a ValueError) naming the argument.
"""
import numbers
import warnings
from typing import Any, Dict, Optional, Sequence, Union

import numpy as np

from . import _strand

__all__ = [
    "deep_lift_shap",
    "gradient",
    "input_x_gradient",
    "ism",
    "marginalize",
    "marginalize_spacing",
]

# Below this absolute deviation DeepLIFT/SHAP's sums agree to float32 rounding whatever the
# ratio (as `strand explain` judges convergence).
_DEVIATION_NOISE = 1e-5


def _task(task: Union[None, str, int], default: str = "") -> str:
    """The task argument as resolve_target() reads it: "" (the only task), "all", a name or an
    index."""
    if task is None:
        return default
    if isinstance(task, numbers.Integral) and not isinstance(task, bool):
        return str(int(task))
    if isinstance(task, str):
        return task
    raise _strand.ConfigError(
        f"task: expected a task name, a 0-based index or \"all\", got {type(task).__name__}"
    )


def ism(
    model: _strand.Model,
    x,
    output: Optional[str] = None,
    task: Union[None, str, int] = None,
    activation: bool = False,
    start: int = 0,
    end: Optional[int] = None,
    path: str = "auto",
    batch_size: int = _strand._default_explain_batch("ism"),
    details: bool = False,
    layout: str = "NCL",
    threads: Optional[int] = None,
) -> Union[np.ndarray, Dict[str, Any]]:
    """In-silico saturation mutagenesis: the target's change when each base is replaced by each
    of the other letters (explain::ism).

    Returns float32 effects (N, 4, P) for the P = end - start positions mutated: entry
    [n, c, p] is f(sequence n with letter c at position start + p) - f(sequence n), so 0 at each
    position's own letter, and 0 at every letter where the sequence has an N. These are raw
    differences from the sequence's own prediction; subtract effects.mean(axis=1,
    keepdims=True) for attributions centred at each position.

    start, end: the positions mutated, 0-based, end exclusive (default: the whole sequence).
    path: "auto" (the fast exact path, which recomputes only the columns a substitution
    changes, where the model allows it), "fast" (raises where it does not) or "brute_force"
    (every mutant through the whole model); they agree to float rounding.
    batch_size: mutants per pass.
    details: return a dict instead: {"effects": (N, 4, P), "prediction": (N,) f(sequence),
    "fast": whether the fast path ran}.
    output, task, activation, layout, threads: as for every function of strand.explain (see
    the module's help).
    """
    result = _strand._explain_ism(
        model, x, output, _task(task), activation, start, end, path, batch_size, layout, threads
    )
    return result if details else result["effects"]


def deep_lift_shap(
    model: _strand.Model,
    x,
    references: Union[int, np.ndarray] = 20,
    seed: int = 0,
    hypothetical: bool = False,
    output: Optional[str] = None,
    task: Union[None, str, int] = None,
    activation: bool = False,
    batch_size: int = _strand._default_explain_batch("deeplift_shap"),
    warning_threshold: Optional[float] = 0.001,
    details: bool = False,
    layout: str = "NCL",
    threads: Optional[int] = None,
) -> Union[np.ndarray, Dict[str, Any]]:
    """DeepLIFT/SHAP attributions (explain::deep_lift_shap): the rescale rule averaged over
    references, as shap's DeepExplainer and tangermeme's deep_lift_shap compute it.

    Returns float32 contributions (N, 4, L). As tangermeme returns them by default, these are
    the actual contributions (hypothetical=False): nonzero only at each sequence's letters, and
    summing over a sequence to f(x) - mean f(references). hypothetical=True returns the
    hypothetical contributions of every letter at every position instead (what TF-MoDISco
    takes beside the one-hot sequences).

    references: the number of dinucleotide shuffles of each sequence to use as references
    (seeded by `seed`, the same however the sequences are batched), or the references
    themselves: uint8 base codes (N, R, L) or float32 one-hot (N, R, 4, L).
    batch_size: sequence-reference pairs per pass.
    warning_threshold: warn (RuntimeWarning) when a sequence's contributions miss
    f(x) - mean f(references) by more than this fraction of mean |f(x) - f(r)| (an op without
    an exact DeepLIFT rule, or N bases); None: no check.
    details: return a dict instead, with every array: "hypothetical" and "actual" (N, 4, L),
    "prediction" f(x) (N,), "reference_mean" mean f(r) (N,), "deviation" |sum of actual
    contributions - (f(x) - mean f(r))| (N,), "relative_deviation" (N,), and "references"
    (N, R, L) uint8, the references used.
    output, task, activation, layout, threads: as for every function of strand.explain (see
    the module's help).
    """
    if isinstance(references, numbers.Integral) and not isinstance(references, bool):
        references = int(references)
    result = _strand._explain_deep_lift_shap(
        model, x, references, seed, output, _task(task), activation, batch_size, details,
        layout, threads,
    )
    if warning_threshold is not None:
        missed = (result["relative_deviation"] > warning_threshold) & (
            result["deviation"] > _DEVIATION_NOISE
        )
        if missed.any():
            worst = int(np.argmax(result["relative_deviation"]))
            warnings.warn(
                f"deep_lift_shap: {int(missed.sum())} sequence(s) miss the summation to "
                f"f(x) - mean f(references) by more than {warning_threshold} relative (worst: "
                f"sequence {worst}, {float(result['relative_deviation'][worst]):.3g}): an op of "
                "the model may lack an exact DeepLIFT rule, or a sequence has N bases",
                RuntimeWarning,
                stacklevel=2,
            )
    if details:
        return result
    return result["hypothetical"] if hypothetical else result["actual"]


def gradient(
    model: _strand.Model,
    x,
    output: Optional[str] = None,
    task: Union[None, str, int] = None,
    activation: bool = False,
    batch_size: int = _strand._default_explain_batch("gradient"),
    layout: str = "NCL",
    threads: Optional[int] = None,
) -> np.ndarray:
    """The target's gradient with respect to the one-hot input (saliency; explain::gradient):
    float32 (N, 4, L), a value for every letter at every position.

    batch_size: sequences per pass. output, task, activation, layout, threads: as for every
    function of strand.explain (see the module's help).
    """
    return _strand._explain_gradient(
        model, x, output, _task(task), activation, batch_size, False, layout, threads
    )


def input_x_gradient(
    model: _strand.Model,
    x,
    output: Optional[str] = None,
    task: Union[None, str, int] = None,
    activation: bool = False,
    batch_size: int = _strand._default_explain_batch("input_x_gradient"),
    layout: str = "NCL",
    threads: Optional[int] = None,
) -> np.ndarray:
    """gradient() times the one-hot input (explain::input_x_gradient): float32 (N, 4, L), zero
    but at the letters present.

    batch_size: sequences per pass. output, task, activation, layout, threads: as for every
    function of strand.explain (see the module's help).
    """
    return _strand._explain_gradient(
        model, x, output, _task(task), activation, batch_size, True, layout, threads
    )


def marginalize(
    model: _strand.Model,
    x,
    motif: Union[str, Sequence[str]],
    start: Union[None, int, Sequence[Optional[int]]] = None,
    output: Optional[str] = None,
    task: Union[None, str, int] = None,
    activation: bool = False,
    batch_size: int = 256,
    layout: str = "NCL",
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """In-silico motif insertion (explain::marginalize, as tangermeme's marginalize): the
    target of each background sequence before and after writing `motif` into it.

    x: the backgrounds (e.g. dinucleotide shuffles of real sequences, or random sequences).
    motif: a consensus of A, C, G, T, or a list of them written in order (later over earlier).
    start: where each motif's first base goes, 0-based (default: centred); one int per motif.
    task: None (the default here) reports every task of the output, one column each; a name or
    an index reports that one.

    Returns {"before": (N, T) float32, "after": (N, T) float32, "tasks": the T column names};
    after - before is the motif's effect on each background.
    output, activation, layout, threads: as for every function of strand.explain (see the
    module's help).
    """
    motifs = [motif] if isinstance(motif, str) else list(motif)
    if start is None or isinstance(start, numbers.Integral):
        starts = [None if start is None else int(start)] * len(motifs)
    else:
        starts = [None if s is None else int(s) for s in start]
    return _strand._explain_marginalize(
        model, x, motifs, starts, output, _task(task, "all"), activation, batch_size, layout,
        threads,
    )


def marginalize_spacing(
    model: _strand.Model,
    x,
    a: str,
    b: str,
    first: int,
    last: int,
    output: Optional[str] = None,
    task: Union[None, str, int] = None,
    activation: bool = False,
    batch_size: int = 256,
    layout: str = "NCL",
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """Two motifs at a range of distances (explain::marginalize_spacing, the BPNet paper's
    cooperativity analysis): for every spacing from `first` to `last` (inclusive; the distance
    between the motifs' centres, B after A, negative: before, the pair centred), the mean over
    the backgrounds `x` of the target with neither motif, A alone, B alone and both. Spacings at
    which the motifs would overlap (B overwriting part of A: an artefact, not an interaction)
    are left out of the result; a range where they overlap at every spacing is an error.

    Returns {"spacing": (S,) int64, "background", "a", "b", "both": (S, T) float32, "tasks": the
    T column names}; both - a - b + background is the pair's interaction.
    task: None (the default here) reports every task; output, activation, layout, threads: as
    for every function of strand.explain (see the module's help).
    """
    return _strand._explain_marginalize_spacing(
        model, x, a, b, first, last, output, _task(task, "all"), activation, batch_size, layout,
        threads,
    )
