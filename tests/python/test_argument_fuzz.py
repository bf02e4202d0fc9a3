"""Fuzzing the Python argument layer (issue 38): random values for every argument of the long
calls (sequences as strings, codes and one-hot arrays of random dtypes, shapes and contents,
NaN and infinities; thread counts, batch sizes, references, layouts, outputs and tasks of any
size and type) must give a result of the documented shape or raise one of the package's
errors (strand.Error and its ConfigError, or TypeError for a value of the wrong Python type).
Never a crash of the interpreter (threads=100000 was one), never a result from an input the
package refuses to read as bases (a NaN or an infinity in a float array, a string with a digit,
a space, '.' or '*': they gave NaN or N-based predictions), never NaN from finite inputs.
Hypothesis comes from PyPI (scripts/quickstart.sh installs it in the test venv); without it the
file skips. derandomize=True: the same examples every run."""
import numpy as np
import pytest

import strand
from conftest import random_sequences

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

LENGTH = 120
EXPECTED = (strand.Error, TypeError)
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# Integers around every boundary the layer checks: 0, 1, the thread cap, int32 and int64.
edge_ints = st.one_of(
    st.integers(min_value=-3, max_value=70),
    st.sampled_from([257, 1000, 10000, 100000, 2**31 - 1, 2**31, 2**32, 2**40, 2**63 - 1, 2**63,
                     2**64, -(2**63), 10**30]),
)
texts = st.one_of(
    st.text(alphabet="ACGTNacgtn", min_size=LENGTH, max_size=LENGTH),
    st.text(min_size=0, max_size=LENGTH + 5),
    st.text(alphabet="ACGT0123456789 .*-\t", min_size=LENGTH, max_size=LENGTH),
)
dtypes = st.sampled_from([np.uint8, np.int8, np.float32, np.float64, np.int64, np.bool_])
special_floats = st.sampled_from([0.0, 1.0, 0.5, -1.0, np.nan, np.inf, -np.inf, 1e38, 255.0])


SHAPES = [(), (3,), (0,), (2, LENGTH), (3, LENGTH + 1), (0, LENGTH), (2, 4, LENGTH),
          (2, LENGTH, 4), (1, 4, LENGTH - 1), (0, 4, LENGTH), (2, 3, LENGTH), (2, 4, 4),
          (2, 2, 4, LENGTH), (2, 2, LENGTH), (1, 1, 1, 1)]


@st.composite
def arrays(draw):
    """A numpy array of a random dtype and shape: one-hot-like, code-like or random values, with
    a few special values (NaN, infinities, out-of-range codes) at random places."""
    shape = draw(st.sampled_from(SHAPES))
    dtype = draw(dtypes)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["one_hot", "codes", "random"]))
    if kind == "one_hot" and len(shape) >= 2:
        values = np.zeros(shape)
        channel = 1 if shape[1] == 4 else len(shape) - 1
        index = list(np.indices(shape))
        index[channel] = rng.integers(0, shape[channel], size=shape)
        values[tuple(index)] = 1.0
    elif kind == "codes":
        values = rng.integers(0, 5, size=shape).astype(np.float64)
    else:
        values = rng.normal(size=shape)
    for special in draw(st.lists(special_floats, max_size=3)):
        if values.size:
            values.flat[int(rng.integers(0, values.size))] = special
    with np.errstate(invalid="ignore", over="ignore"):
        if np.issubdtype(dtype, np.integer) or dtype is np.bool_:
            values = np.nan_to_num(values, nan=0, posinf=9, neginf=0)
        array = values.astype(dtype)
    if draw(st.booleans()) and array.ndim >= 2:
        array = array.swapaxes(0, 1)  # not C-contiguous
    return array


inputs = st.one_of(
    st.lists(texts, min_size=0, max_size=3),
    arrays(),
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


LETTERS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-")


def finite_input(x):
    return not isinstance(x, np.ndarray) or not np.issubdtype(x.dtype, np.floating) or bool(
        np.isfinite(x).all())


def readable_input(x):
    """Whether x holds only what the package reads as bases: finite floats, base letters."""
    if isinstance(x, (list, tuple)):
        return all(not isinstance(s, str) or set(s) <= LETTERS for s in x)
    return finite_input(x)


def check_result(result, x):
    assert readable_input(x), "a result from a NaN, an infinity or a non-letter in the input"
    values = [result] if isinstance(result, np.ndarray) else [
        v for v in (result.values() if isinstance(result, dict) else []) if isinstance(v, np.ndarray)]
    for value in values:
        if finite_input(x) and np.issubdtype(value.dtype, np.floating):
            assert np.isfinite(value).all(), "NaN or inf from finite inputs"


@pytest.fixture(scope="module")
def model(reference_model):
    return reference_model


@SETTINGS
@given(x=inputs, batch_size=edge_ints, threads=st.one_of(st.none(), edge_ints),
       rc_average=st.booleans(), layout=st.sampled_from(["NCL", "NLC", "", "ncl", "NCHW"]),
       output=st.one_of(st.none(), st.sampled_from(["output", "", "profile"])))
def test_predict_arguments(model, x, batch_size, threads, rc_average, layout, output):
    try:
        result = model.predict(x, batch_size=batch_size, rc_average=rc_average, output=output,
                               layout=layout, threads=threads)
    except EXPECTED:
        return
    assert result.shape[1:] == (1,)
    check_result(result, x)


@SETTINGS
@given(x=inputs, references=st.one_of(edge_ints, arrays()), seed=st.integers(0, 2**64 - 1),
       batch_size=edge_ints, threads=st.one_of(st.none(), edge_ints),
       task=st.one_of(st.none(), st.integers(-2, 3), st.sampled_from(["all", "task_0", "x"])))
def test_deep_lift_shap_arguments(model, x, references, seed, batch_size, threads, task):
    try:
        result = strand.explain.deep_lift_shap(model, x, references=references, seed=seed,
                                               batch_size=batch_size, threads=threads, task=task,
                                               warning_threshold=None)
    except EXPECTED:
        return
    check_result(result, x)


@SETTINGS
@given(x=inputs, start=edge_ints, end=st.one_of(st.none(), edge_ints),
       path=st.sampled_from(["auto", "fast", "brute", "brute_force", "quick"]),
       batch_size=edge_ints, threads=st.one_of(st.none(), edge_ints))
def test_ism_arguments(model, x, start, end, path, batch_size, threads):
    try:
        result = strand.explain.ism(model, x, start=start, end=end, path=path,
                                    batch_size=batch_size, threads=threads)
    except EXPECTED:
        return
    check_result(result, x)


@SETTINGS
@given(a=st.text(alphabet="ACGTNacgt5 ", max_size=12), b=st.text(alphabet="ACGT", max_size=12),
       first=edge_ints, last=edge_ints, threads=st.one_of(st.none(), edge_ints))
def test_marginalize_spacing_arguments(model, a, b, first, last, threads):
    backgrounds = random_sequences(np.random.default_rng(5), 2, LENGTH)
    try:
        result = strand.explain.marginalize_spacing(model, backgrounds, a, b, first, last,
                                                    threads=threads)
    except EXPECTED:
        return
    assert len(result["spacing"]) >= 1
    check_result(result, backgrounds)
