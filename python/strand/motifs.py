"""Motif discovery from contribution scores: what `strand motifs` computes, as numpy arrays.

    scores = strand.explain.deep_lift_shap(model, sequences)      # (N, 4, L)
    patterns = strand.motifs.discover(scores, one_hot)            # one_hot: (N, 4, L)
    patterns[0]["name"], patterns[0]["contrib"]                   # "pos_pattern_0", (W, 4) CWM

TF-MoDISco's algorithm (the `modisco motifs` command's defaults; docs/motifs.md): seqlets from the windowed
contributions at a target FDR, Leiden clusters of their aligned Jaccard similarities, one
pattern per cluster, similar patterns merged. Each pattern is a dict: "name" (pos_pattern_0,
..., then neg_pattern_0, ..., each sign's largest first), "sequence" (PPM), "contrib" (CWM) and
"hypothetical" (hypothetical CWM), each (W, 4) float32, and "seqlets", (n, 4) int64 rows of
example index, start, end and reverse-complement flag.
"""
from typing import Dict, List, Optional

import numpy as np

from . import _strand

__all__ = ["discover"]


def _as_scores(array, argument: str) -> np.ndarray:
    values = np.asarray(array)
    if values.ndim != 3 or 4 not in (values.shape[1], values.shape[2]):
        raise _strand.ConfigError(
            f"{argument}: expected (N, 4, L) or (N, L, 4), got shape {values.shape}")
    if values.shape[1] != 4:
        values = values.transpose(0, 2, 1)
    return np.ascontiguousarray(values, dtype=np.float32)


def discover(scores, one_hot, *, max_seqlets: int = 20000, window: int = 20, flank: int = 5,
             target_fdr: float = 0.05, leiden_runs: int = 2,
             threads: Optional[int] = None) -> List[Dict[str, object]]:
    """The patterns of hypothetical contributions `scores` over the bases `one_hot` (both
    (N, 4, L), or (N, L, 4)), largest first per sign; see the module's help for their arrays."""
    return _strand._discover_motifs(_as_scores(scores, "scores"), _as_scores(one_hot, "one_hot"),
                                    max_seqlets, window, flank, target_fdr, leiden_runs, threads)
