"""strand.motifs.discover: the planted fixture's two motifs come back as numpy arrays (the same
patterns `strand motifs` writes), either layout of the inputs is accepted, and bad shapes raise
a clear error."""
import pathlib

import numpy as np
import pytest

import strand

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "motifs"


def planted():
    scores = np.load(FIXTURE / "planted_scores.npz")["arr_0"]
    one_hot = np.load(FIXTURE / "planted_scores_onehot.npz")["arr_0"]
    return scores, one_hot


def column_pearson(ppm, motif):
    """The best mean column Pearson of a PPM with a consensus, on either strand."""
    target = np.array([[float(b == l) for l in "ACGT"] for b in motif])
    best = -1.0
    for t in (target, target[::-1, ::-1]):
        for offset in range(len(ppm) - len(t) + 1):
            window = ppm[offset:offset + len(t)]
            r = [np.corrcoef(w, c)[0, 1] if w.std() > 0 else 0.0 for w, c in zip(window, t)]
            best = max(best, float(np.mean(r)))
    return best


def test_discover_returns_the_planted_patterns():
    scores, one_hot = planted()
    patterns = strand.motifs.discover(scores, one_hot, leiden_runs=5, threads=2)
    assert [p["name"] for p in patterns[:2]] == ["pos_pattern_0", "pos_pattern_1"]
    for p in patterns:
        width = p["contrib"].shape[0]
        assert p["sequence"].shape == p["hypothetical"].shape == (width, 4)
        assert p["sequence"].dtype == np.float32
        assert p["seqlets"].shape[1] == 4 and p["seqlets"].dtype == np.int64
        assert (p["seqlets"][:, 2] - p["seqlets"][:, 1] == width).all()
    for motif in ("TGATAAGG", "CACGTGAC"):
        assert max(column_pearson(p["sequence"], motif) for p in patterns) >= 0.8
    # (N, L, 4) inputs give the same patterns.
    again = strand.motifs.discover(scores.transpose(0, 2, 1), one_hot.transpose(0, 2, 1),
                                   leiden_runs=5, threads=1)
    assert len(again) == len(patterns)
    assert np.array_equal(again[0]["seqlets"], patterns[0]["seqlets"])


def test_discover_refuses_a_bad_shape():
    scores, one_hot = planted()
    with pytest.raises(strand.ConfigError, match=r"scores: expected \(N, 4, L\)"):
        strand.motifs.discover(scores[0], one_hot)
    with pytest.raises(strand.ConfigError, match="must both be"):
        strand.motifs.discover(scores, one_hot[:10])
