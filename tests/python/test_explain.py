"""strand.explain: ISM, DeepLIFT/SHAP, gradients and marginalisation of a trained model, checked
against the model's own predictions (Model.predict), and clear errors for bad arguments."""
import warnings

import numpy as np
import pytest

import strand
from conftest import random_sequences, ticks_while


def encode(sequences):
    table = np.full(256, 4, dtype=np.uint8)
    for code, base in enumerate(b"ACGT"):
        table[base] = code
    return np.stack([table[np.frombuffer(s.encode(), dtype=np.uint8)] for s in sequences])


def one_hot(codes):
    out = np.zeros(codes.shape[:-1] + (4, codes.shape[-1]), dtype=np.float32)
    for c in range(4):
        out[..., c, :] = codes == c
    return out


def logit(p):
    p = p.astype(np.float64)
    return np.log(p) - np.log1p(-p)


@pytest.fixture(scope="module")
def codes(reference_model):
    return encode(random_sequences(np.random.default_rng(11), 4, reference_model.input_length))


def mutants(codes):
    """Every single-base substitution of every sequence: (N, 4, L, L) codes, [n, c, l] = sequence
    n with letter c at position l."""
    n, length = codes.shape
    out = np.repeat(codes[:, None, None, :], 4, axis=1).repeat(length, axis=2)
    for c in range(4):
        out[:, c, np.arange(length), np.arange(length)] = c
    return out


def test_ism_equals_predictions_of_every_mutant(reference_model, codes):
    n, length = codes.shape
    effects = strand.explain.ism(reference_model, codes, activation=True)
    assert effects.shape == (n, 4, length) and effects.dtype == np.float32
    mutated = mutants(codes).reshape(-1, length)
    expected = reference_model.predict(mutated)[:, 0].reshape(n, 4, length)
    expected -= reference_model.predict(codes)[:, 0][:, None, None]
    np.testing.assert_allclose(effects, expected, atol=2e-6)
    # Each position's own letter has no effect, and the other letters do.
    own = np.take_along_axis(effects, codes[:, None, :].astype(np.int64), axis=1)
    assert np.all(own == 0) and np.any(effects != 0)


def test_ism_explains_logits_by_default(reference_model, codes):
    n, length = codes.shape
    effects = strand.explain.ism(reference_model, codes)
    mutated = mutants(codes).reshape(-1, length)
    expected = logit(reference_model.predict(mutated)[:, 0]).reshape(n, 4, length)
    expected -= logit(reference_model.predict(codes)[:, 0])[:, None, None]
    np.testing.assert_allclose(effects, expected, atol=1e-3)


def test_ism_positions_paths_and_details(reference_model, codes):
    whole = strand.explain.ism(reference_model, codes)
    part = strand.explain.ism(reference_model, codes, start=30, end=50)
    assert part.shape == (len(codes), 4, 20)
    np.testing.assert_allclose(part, whole[:, :, 30:50], atol=1e-5)
    brute = strand.explain.ism(reference_model, codes, path="brute_force", details=True)
    fast = strand.explain.ism(reference_model, codes, path="fast", details=True)
    assert fast["fast"] and not brute["fast"]
    np.testing.assert_allclose(fast["effects"], brute["effects"], atol=1e-5)
    np.testing.assert_allclose(brute["prediction"],
                               logit(reference_model.predict(codes)[:, 0]), atol=1e-4)


def test_inputs_as_strings_codes_and_one_hot_agree(reference_model, codes):
    strings = ["".join("ACGT"[c] for c in row) for row in codes]
    by_codes = strand.explain.ism(reference_model, codes)
    np.testing.assert_array_equal(strand.explain.ism(reference_model, strings), by_codes)
    np.testing.assert_array_equal(strand.explain.ism(reference_model, one_hot(codes)), by_codes)
    channels_last = np.ascontiguousarray(one_hot(codes).transpose(0, 2, 1))
    np.testing.assert_array_equal(
        strand.explain.ism(reference_model, channels_last, layout="NLC"), by_codes)


def test_n_bases_are_not_mutated(reference_model, codes):
    with_n = codes.copy()
    with_n[:, 5:8] = 4
    effects = strand.explain.ism(reference_model, with_n)
    assert np.all(effects[:, :, 5:8] == 0)
    # An all-zero one-hot column is an N.
    np.testing.assert_array_equal(strand.explain.ism(reference_model, one_hot(with_n)), effects)


def test_deep_lift_shap_sums_to_the_difference_from_the_references(reference_model, codes):
    # The references given, so that the sum is checked against Model.predict independently.
    rng = np.random.default_rng(5)
    references = rng.integers(0, 4, size=(len(codes), 6, codes.shape[1]), dtype=np.uint8)
    contributions = strand.explain.deep_lift_shap(reference_model, codes, references=references,
                                                  activation=True)
    assert contributions.shape == (len(codes), 4, codes.shape[1])
    assert contributions.dtype == np.float32
    f_x = reference_model.predict(codes)[:, 0]
    f_r = reference_model.predict(references.reshape(-1, codes.shape[1]))[:, 0]
    expected = f_x - f_r.reshape(len(codes), -1).mean(axis=1)
    np.testing.assert_allclose(contributions.sum(axis=(1, 2)), expected, rtol=1e-3, atol=1e-5)
    # Actual contributions: nothing but at the letters present.
    assert np.all(contributions[one_hot(codes) == 0] == 0)
    # One-hot references are the same references.
    np.testing.assert_allclose(
        strand.explain.deep_lift_shap(reference_model, codes, references=one_hot(references),
                                      activation=True),
        contributions, atol=1e-6)


def test_deep_lift_shap_shuffles_hypothetical_and_details(reference_model, codes):
    details = strand.explain.deep_lift_shap(reference_model, codes, references=8, seed=3,
                                            details=True)
    references = details["references"]
    assert references.shape == (len(codes), 8, codes.shape[1]) and references.dtype == np.uint8
    # Dinucleotide shuffles keep each sequence's letters.
    for n in range(len(codes)):
        for r in range(8):
            np.testing.assert_array_equal(np.sort(references[n, r]), np.sort(codes[n]))
    # The convergence property, from strand's own figures: sum = f(x) - mean f(r).
    np.testing.assert_allclose(details["actual"].sum(axis=(1, 2)),
                               details["prediction"] - details["reference_mean"], atol=1e-4)
    np.testing.assert_allclose(details["prediction"],
                               logit(reference_model.predict(codes)[:, 0]), atol=1e-4)
    assert np.all(details["relative_deviation"] < 1e-3)
    np.testing.assert_allclose(details["actual"], details["hypothetical"] * one_hot(codes))
    # The same seed draws the same shuffles; passing them back gives the same attributions.
    again = strand.explain.deep_lift_shap(reference_model, codes, references=8, seed=3)
    np.testing.assert_array_equal(again, details["actual"])
    given = strand.explain.deep_lift_shap(reference_model, codes, references=references,
                                          hypothetical=True)
    np.testing.assert_allclose(given, details["hypothetical"], atol=1e-6)
    other_seed = strand.explain.deep_lift_shap(reference_model, codes, references=8, seed=4)
    assert not np.array_equal(other_seed, details["actual"])


def test_gradient_matches_finite_differences(reference_model, codes):
    x = one_hot(codes[:1])
    grad = strand.explain.gradient(reference_model, codes[:1], activation=True)
    assert grad.shape == x.shape and grad.dtype == np.float32
    eps = 1e-2
    length = x.shape[2]
    plus = np.repeat(x, 4 * length, axis=0).reshape(4, length, 4, length)
    minus = plus.copy()
    for c in range(4):
        plus[c, np.arange(length), c, np.arange(length)] += eps
        minus[c, np.arange(length), c, np.arange(length)] -= eps
    f_plus = reference_model.predict(plus.reshape(-1, 4, length))[:, 0].astype(np.float64)
    f_minus = reference_model.predict(minus.reshape(-1, 4, length))[:, 0].astype(np.float64)
    numeric = ((f_plus - f_minus) / (2 * eps)).reshape(4, length)
    np.testing.assert_allclose(grad[0], numeric, atol=2e-4)
    assert np.abs(grad).max() > 1e-3
    product = strand.explain.input_x_gradient(reference_model, codes[:1], activation=True)
    np.testing.assert_allclose(product, grad * x)


def write(codes, motif, start):
    out = codes.copy()
    out[:, start : start + len(motif)] = encode([motif])[0]
    return out


def test_marginalize_compares_predictions_before_and_after(reference_model, codes):
    motif = "CAGCTG"  # TAL1's E-box, what the reference model was trained on
    effect = strand.explain.marginalize(reference_model, codes, motif, activation=True)
    start = (codes.shape[1] - len(motif)) // 2
    assert effect["tasks"] == reference_model.tasks
    assert effect["before"].shape == effect["after"].shape == (len(codes), 1)
    np.testing.assert_allclose(effect["before"], reference_model.predict(codes), atol=1e-6)
    np.testing.assert_allclose(effect["after"],
                               reference_model.predict(write(codes, motif, start)), atol=1e-6)
    # Several motifs, later over earlier, at given starts.
    both = strand.explain.marginalize(reference_model, codes, ["AAAAAAAA", "GGG"], start=[10, 12],
                                      activation=True)
    expected = reference_model.predict(write(write(codes, "AAAAAAAA", 10), "GGG", 12))
    np.testing.assert_allclose(both["after"], expected, atol=1e-6)
    # Logits by default.
    np.testing.assert_allclose(strand.explain.marginalize(reference_model, codes, motif)["after"],
                               logit(effect["after"]), atol=1e-3)


def test_marginalize_spacing_means_over_backgrounds(reference_model, codes):
    a, b = "CAGCTG", "GATAA"
    result = strand.explain.marginalize_spacing(reference_model, codes, a, b, -12, 12,
                                                activation=True)
    # Spacings -5 to 4 would overlap the motifs (B overwriting part of A): left out.
    kept = [d for d in range(-12, 13) if not -5 <= d <= 4]
    np.testing.assert_array_equal(result["spacing"], kept)
    assert result["both"].shape == (len(kept), 1)
    length = codes.shape[1]
    np.testing.assert_allclose(result["background"][0],
                               reference_model.predict(codes).mean(axis=0), atol=1e-6)
    for row, spacing in enumerate(result["spacing"]):
        centre_a = (length - spacing) / 2
        start_a = int(np.floor(centre_a - len(a) / 2))
        start_b = int(np.floor(centre_a + spacing - len(b) / 2))
        both = write(write(codes, a, start_a), b, start_b)
        np.testing.assert_allclose(result["both"][row],
                                   reference_model.predict(both).mean(axis=0), atol=1e-6)
        np.testing.assert_allclose(result["a"][row],
                                   reference_model.predict(write(codes, a, start_a)).mean(axis=0),
                                   atol=1e-6)


def test_tasks_by_name_index_and_all(codes):
    model = strand.build("reference", length=120, tasks=3)  # untrained: random weights
    assert model.tasks == ["task_0", "task_1", "task_2"]
    message = expect_error("task", strand.explain.gradient, model, codes)
    assert "3 tasks" in message
    each = [strand.explain.gradient(model, codes, task=t) for t in range(3)]
    np.testing.assert_array_equal(strand.explain.gradient(model, codes, task="task_1"), each[1])
    np.testing.assert_allclose(strand.explain.gradient(model, codes, task="all"), sum(each),
                               atol=1e-5)
    effects = [strand.explain.ism(model, codes, task=t, start=0, end=30) for t in range(3)]
    np.testing.assert_allclose(strand.explain.ism(model, codes, task="all", end=30), sum(effects),
                               atol=1e-5)
    # marginalize reports every task by default, one column each.
    effect = strand.explain.marginalize(model, codes, "CAGCTG", activation=True)
    assert effect["tasks"] == model.tasks and effect["before"].shape == (len(codes), 3)
    np.testing.assert_allclose(effect["before"], model.predict(codes), atol=1e-6)
    one = strand.explain.marginalize(model, codes, "CAGCTG", task="task_2", activation=True)
    assert one["tasks"] == ["task_2"]
    np.testing.assert_allclose(one["after"][:, 0], effect["after"][:, 2], atol=1e-6)


def test_profile_outputs_are_explained_through_their_summary():
    model = strand.build("bpnet", length=300, tasks=1, profile_tracks=2, profile_length=200)
    codes = encode(random_sequences(np.random.default_rng(4), 2, 300))
    details = strand.explain.deep_lift_shap(model, codes, output="profile", task="all",
                                            references=3, details=True)
    assert details["actual"].shape == (2, 4, 300)
    assert np.all(details["relative_deviation"] < 1e-3)
    fast = strand.explain.ism(model, codes, output="profile", task=1, start=100, end=110,
                              details=True)
    brute = strand.explain.ism(model, codes, output="profile", task=1, start=100, end=110,
                               path="brute_force")
    assert fast["fast"] and fast["effects"].shape == (2, 4, 10)
    np.testing.assert_allclose(fast["effects"], brute, atol=1e-4)
    # A profile's softmax summary has no "predictions" to explain.
    expect_error("activation", strand.explain.gradient, model, codes, output="profile",
                 task="all", activation=True)
    expect_error("output", strand.explain.gradient, model, codes, output="profiles")


def test_no_sequences_give_empty_arrays(reference_model):
    empty = np.zeros((0, reference_model.input_length), dtype=np.uint8)
    assert strand.explain.ism(reference_model, empty).shape == (0, 4, 120)
    assert strand.explain.deep_lift_shap(reference_model, empty).shape == (0, 4, 120)
    assert strand.explain.gradient(reference_model, []).shape == (0, 4, 120)
    assert strand.explain.marginalize(reference_model, empty, "ACGT")["after"].shape == (0, 1)


def expect_error(argument, call, *args, **kwargs):
    with pytest.raises(ValueError) as raised:
        call(*args, **kwargs)
    assert str(raised.value).startswith(argument + ":"), str(raised.value)
    assert isinstance(raised.value, strand.ConfigError)
    return str(raised.value)


def test_bad_arguments_raise_errors_naming_them(reference_model, codes):
    model = reference_model
    explain = strand.explain
    expect_error("x", explain.ism, model, np.zeros((2, 100), dtype=np.uint8))
    expect_error("x", explain.ism, model, np.zeros((2, 120)))
    expect_error("x", explain.gradient, model, "ACGT" * 30)
    expect_error("x", explain.ism, model, one_hot(codes) * 0.5)  # not one-hot
    expect_error("x", explain.deep_lift_shap, model, codes[:, ::2])
    message = expect_error("task", explain.ism, model, codes, task="no_such_task")
    assert model.tasks[0] in message
    expect_error("task", explain.ism, model, codes, task=7)
    expect_error("task", explain.ism, model, codes, task=1.5)
    expect_error("output", explain.gradient, model, codes, output="profile")
    expect_error("start", explain.ism, model, codes, start=120)
    expect_error("end", explain.ism, model, codes, start=10, end=10)
    expect_error("end", explain.ism, model, codes, end=121)
    expect_error("path", explain.ism, model, codes, path="slow")
    # app::PassOptions::validate, the rule of `strand explain --batch-size`.
    assert (expect_error("batch_size", explain.ism, model, codes, batch_size=0) ==
            "batch_size: must be in [1, 1048576], got 0")
    expect_error("batch_size", explain.deep_lift_shap, model, codes, batch_size=0)
    expect_error("threads", explain.gradient, model, codes, threads=0)
    expect_error("layout", explain.ism, model, one_hot(codes), layout="LNC")
    expect_error("references", explain.deep_lift_shap, model, codes, references=0)
    expect_error("references", explain.deep_lift_shap, model, codes,
                 references=np.zeros((3, 2, 120), dtype=np.uint8))
    expect_error("references", explain.deep_lift_shap, model, codes,
                 references=np.full((4, 2, 120), 9, dtype=np.uint8))
    expect_error("references", explain.deep_lift_shap, model, codes, references="shuffles")
    expect_error("motif", explain.marginalize, model, codes, "CAGXTG")
    expect_error("motif", explain.marginalize, model, codes, "A" * 121)
    expect_error("start", explain.marginalize, model, codes, "CAGCTG", start=118)
    expect_error("start", explain.marginalize, model, codes, ["CAG", "CTG"], start=[1])
    expect_error("a", explain.marginalize_spacing, model, codes, "", "CAGCTG", 0, 2)
    expect_error("last", explain.marginalize_spacing, model, codes, "CAGCTG", "GATA", 0, 200)
    expect_error("last", explain.marginalize_spacing, model, codes, "CAGCTG", "GATA", 3, 2)


def test_deep_lift_shap_warns_when_the_sums_miss(reference_model, codes):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converging attributions do not warn
        strand.explain.deep_lift_shap(reference_model, codes, references=4)
    with pytest.warns(RuntimeWarning, match="miss the summation"):
        # Ns break the summation (their references' terms have no actual contribution).
        with_n = codes.copy()
        with_n[:, 40:80] = 4
        strand.explain.deep_lift_shap(reference_model, with_n, references=4,
                                      warning_threshold=0.0)


def test_the_gil_is_released_while_explaining(reference_model):
    """A thread that runs only when the main thread lets go of the GIL (a switch interval far
    longer than the test) counts while ISM runs: it can only have counted if ism released it."""
    codes = encode(random_sequences(np.random.default_rng(2), 64, reference_model.input_length))
    during, _ = ticks_while(
        lambda: strand.explain.ism(reference_model, codes, path="brute_force", threads=1)
    )
    assert during > 0
