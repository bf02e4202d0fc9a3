"""strand.load and Model.predict: inputs as strings, base codes and one-hot arrays, outputs,
options, and clear errors for bad input."""
import subprocess

import numpy as np
import pytest

import strand
from conftest import random_sequences, ticks_while


def encode(sequences):
    table = np.full(256, 4, dtype=np.uint8)
    for code, base in enumerate(b"ACGT"):
        table[base] = code
        table[base + 32] = code
    return np.stack([table[np.frombuffer(s.encode(), dtype=np.uint8)] for s in sequences])


def one_hot(codes):
    out = np.zeros((codes.shape[0], 4, codes.shape[1]), dtype=np.float32)
    for c in range(4):
        out[:, c, :] = codes == c
    return out


@pytest.fixture(scope="module")
def sequences(reference_model):
    return random_sequences(np.random.default_rng(1), 37, reference_model.input_length)


def test_load_gives_the_run_and_its_shape(reference_run, reference_model):
    assert reference_model.input_length == 120
    assert reference_model.outputs == ["output"]
    assert reference_model.output_shapes == {"output": [1]}
    assert len(reference_model.tasks) == 1
    assert reference_model.checkpoint.endswith("best.safetensors")
    assert reference_model.config["model"][0]["type"] == "Conv1D"
    assert "Conv1D" in reference_model.summary() and "993" in reference_model.summary()
    assert "strand.Model" in repr(reference_model)


def test_load_takes_a_checkpoint_file(reference_run, sequences):
    by_dir = strand.load(reference_run.run_dir).predict(sequences)
    by_file = strand.load(reference_run.run_dir + "/checkpoints/best.safetensors").predict(sequences)
    np.testing.assert_array_equal(by_dir, by_file)


def test_strings_codes_and_one_hot_predict_the_same(reference_model, sequences):
    from_strings = reference_model.predict(sequences)
    codes = encode(sequences)
    from_codes = reference_model.predict(codes)
    from_one_hot = reference_model.predict(one_hot(codes))
    from_channels_last = reference_model.predict(
        np.ascontiguousarray(one_hot(codes).transpose(0, 2, 1)), layout="NLC"
    )
    assert from_strings.dtype == np.float32 and from_strings.shape == (37, 1)
    assert np.all((from_strings > 0) & (from_strings < 1))  # after the final Sigmoid
    np.testing.assert_array_equal(from_strings, from_codes)
    np.testing.assert_allclose(from_strings, from_one_hot, atol=1e-6)
    np.testing.assert_allclose(from_strings, from_channels_last, atol=1e-6)


def test_lowercase_and_n_bases_are_read(reference_model, sequences):
    lowered = [s.lower() for s in sequences]
    np.testing.assert_array_equal(reference_model.predict(lowered), reference_model.predict(sequences))
    with_n = ["N" * 10 + s[10:] for s in sequences]
    codes = encode(with_n)
    assert (codes[:, :10] == 4).all()
    np.testing.assert_array_equal(reference_model.predict(with_n), reference_model.predict(codes))


def test_batch_size_and_threads_do_not_change_scores(reference_model, sequences):
    reference = reference_model.predict(sequences)
    for batch_size in (1, 5, 256):
        np.testing.assert_allclose(
            reference_model.predict(sequences, batch_size=batch_size, threads=1), reference,
            atol=1e-6,
        )


def reverse_complement(sequence):
    return sequence[::-1].translate(str.maketrans("ACGT", "TGCA"))


def test_rc_average_is_the_mean_with_the_reverse_complement(reference_model, sequences):
    forward = reference_model.predict(sequences)
    backward = reference_model.predict([reverse_complement(s) for s in sequences])
    averaged = reference_model.predict(sequences, rc_average=True)
    np.testing.assert_allclose(averaged, (forward + backward) / 2, atol=1e-6)
    codes = encode(sequences)
    np.testing.assert_allclose(reference_model.predict(one_hot(codes), rc_average=True), averaged,
                               atol=1e-6)


def test_output_by_name(reference_model, sequences):
    np.testing.assert_array_equal(
        reference_model.predict(sequences, output="output"), reference_model.predict(sequences)
    )


def test_no_sequences_give_an_empty_array(reference_model):
    assert reference_model.predict([]).shape == (0, 1)
    assert reference_model.predict(np.zeros((0, 120), dtype=np.uint8)).shape == (0, 1)


def test_predictions_equal_the_cli(reference_run, reference_model, strand_exe, tmp_path):
    if strand_exe is None:
        pytest.skip("STRAND_EXE is not set (CTest sets it)")
    scores = tmp_path / "scores.tsv"
    subprocess.run([str(strand_exe), "predict", "--model", reference_run.run_dir, "--out",
                    str(scores)], check=True, capture_output=True)
    rows = [line.split("\t") for line in scores.read_text().splitlines()[1:]]
    # The CLI scores the run's simulated test split; the same sequences come from strand simulate.
    config = reference_model.config
    data = config["data"]
    simulated = tmp_path / "sim"
    subprocess.run([str(strand_exe), "simulate", "--motif", data["motif"], "--n-pos",
                    str(data["n_pos"]), "--n-neg", str(data["n_neg"]), "--length",
                    str(data["length"]), "--gc-fraction", str(data["gc_fraction"]),
                    "--validation", str(data["validation"]), "--test", str(data["test"]),
                    "--seed", str(config["seed"]), "--out", str(simulated)], check=True,
                   capture_output=True)
    records, name = {}, None
    for line in (simulated / "test.fa").read_text().splitlines():
        if line.startswith(">"):
            name = line[1:].split()[0]
            records[name] = ""
        else:
            records[name] += line.strip()
    ours = reference_model.predict([records[row[0]] for row in rows])[:, 0]
    np.testing.assert_allclose(ours, np.array([float(row[-1]) for row in rows]), atol=1e-5)


def test_the_gil_is_released_while_predicting(reference_model):
    """A thread that runs only when the main thread lets go of the GIL (a switch interval far
    longer than the test, so never by preemption) counts while predict runs: it can only have
    counted if predict released the GIL."""
    codes = encode(random_sequences(np.random.default_rng(2), 64, 120))
    codes = np.repeat(codes, 200, axis=0)  # 12,800 sequences
    during, _ = ticks_while(lambda: reference_model.predict(codes, threads=1))
    assert during > 0


# ---- bad input: clear exceptions, never a crash ------------------------------------------


def test_wrong_dtype_is_refused(reference_model):
    with pytest.raises(strand.ConfigError, match=r"x: expected .* got float64 \(2, 4, 120\)"):
        reference_model.predict(np.zeros((2, 4, 120)))
    with pytest.raises(ValueError, match=r"got int64 \(2, 120\)"):
        reference_model.predict(np.zeros((2, 120), dtype=np.int64))


def test_wrong_shape_is_refused(reference_model):
    with pytest.raises(strand.ConfigError, match=r"have length 100; the model takes 120"):
        reference_model.predict(np.zeros((2, 100), dtype=np.uint8))
    with pytest.raises(strand.ConfigError, match=r"one-hot \(2, 120, 4\) in layout NCL.*NLC"):
        reference_model.predict(np.zeros((2, 120, 4), dtype=np.float32))
    with pytest.raises(strand.ConfigError, match=r"got uint8 \(120,\)"):
        reference_model.predict(np.zeros(120, dtype=np.uint8))
    with pytest.raises(strand.ConfigError, match=r"x\[1\]: the sequence has 3 bases"):
        reference_model.predict(["A" * 120, "ACG"])


def test_non_contiguous_arrays_are_refused(reference_model):
    codes = np.zeros((4, 240), dtype=np.uint8)[:, ::2]
    with pytest.raises(strand.ConfigError, match="not C-contiguous.*ascontiguousarray"):
        reference_model.predict(codes)


def test_bad_codes_strings_and_types_are_refused(reference_model):
    codes = np.zeros((2, 120), dtype=np.uint8)
    codes[1, 7] = 9
    with pytest.raises(strand.ConfigError, match=r"base code 9 at \[1, 7\]"):
        reference_model.predict(codes)
    with pytest.raises(strand.ConfigError, match="got one string"):
        reference_model.predict("A" * 120)
    with pytest.raises(strand.ConfigError, match=r"x\[0\]: expected a string"):
        reference_model.predict([3])
    with pytest.raises(strand.ConfigError, match="got dict"):
        reference_model.predict({"a": 1})


def test_bad_options_are_refused(reference_model, sequences):
    with pytest.raises(strand.ConfigError, match="no output 'profile'; its outputs are output"):
        reference_model.predict(sequences, output="profile")
    # app::PassOptions::validate, the rule of `strand predict --batch-size`, naming the argument.
    with pytest.raises(strand.ConfigError, match=r"^batch_size: must be in \[1, 1048576\], got 0$"):
        reference_model.predict(sequences, batch_size=0)
    with pytest.raises(strand.ConfigError, match=r"threads: must be in \[1, "):
        reference_model.predict(sequences, threads=0)
    with pytest.raises(strand.ConfigError, match="layout: 'NHWC'"):
        reference_model.predict(sequences, layout="NHWC")
    with pytest.raises(strand.ConfigError, match="reads no control tracks"):
        reference_model.predict(sequences, control=np.zeros((37, 1, 120), dtype=np.float32))


def test_missing_files_are_refused(tmp_path):
    with pytest.raises(strand.ConfigError, match="neither a run directory nor a checkpoint"):
        strand.load(tmp_path / "no_such_run")
    (tmp_path / "empty_run").mkdir()
    with pytest.raises(strand.ConfigError, match="does not exist"):
        strand.load(tmp_path / "empty_run")
    with pytest.raises(strand.ConfigError, match="neither a config file nor a preset"):
        strand.build("no_such_config.json")


CONTROL_GRAPH = {
    "model": {
        "nodes": [
            {"name": "conv", "type": "Conv1D", "filters": 4, "kernel_size": 5, "padding": "same",
             "inputs": ["sequence"]},
            {"name": "joined", "type": "Concat", "inputs": ["conv", "control"]},
            {"name": "profile_conv", "type": "Conv1D", "filters": "profile_tracks",
             "kernel_size": 3, "padding": "same"},
            {"name": "profile", "type": "Softmax"},
            {"name": "pool", "type": "GlobalAvgPool1D", "inputs": ["joined"]},
            {"name": "counts", "type": "Dense", "units": 1},
        ],
        "outputs": [
            {"name": "profile", "node": "profile", "loss": "multinomial_nll",
             "target": "profile"},
            {"name": "counts", "node": "counts", "loss": "mse", "target": "log_total_counts"},
        ],
    }
}


def test_several_outputs_and_control_tracks():
    model = strand.build(CONTROL_GRAPH, length=50, profile_tracks=2, control_tracks=2)
    assert model.outputs == ["profile", "counts"] and model.control_tracks == 2
    assert model.output_shapes == {"profile": [2, 50], "counts": [1]}
    sequences = random_sequences(np.random.default_rng(8), 3, 50)
    control = np.random.default_rng(9).random((3, 2, 50), dtype=np.float32)
    both = model.predict(sequences, control=control)
    assert sorted(both) == ["counts", "profile"]
    assert both["profile"].shape == (3, 2, 50)
    np.testing.assert_allclose(both["profile"].sum(axis=-1), 1.0, atol=1e-5)  # a softmax
    counts = model.predict(sequences, control=control, output="counts")
    np.testing.assert_array_equal(counts, both["counts"])
    other = model.predict(sequences, control=control * 2, output="counts")
    assert not np.array_equal(other, counts)  # the control track is read
    with pytest.raises(strand.ConfigError, match=r"control: the model reads 2 control track"):
        model.predict(sequences)
    with pytest.raises(strand.ConfigError, match=r"control: expected float32 \(3, 2, 50\)"):
        model.predict(sequences, control=control[:, :1])
    with pytest.raises(strand.ConfigError, match="rc_average: output 'profile' gives"):
        model.predict(sequences, control=control, rc_average=True, output="profile")
    torch = pytest.importorskip("torch")
    module = model.to_torch()
    table = np.full(256, 4, dtype=np.uint8)
    for code, base in enumerate(b"ACGT"):
        table[base] = code
    codes = torch.from_numpy(table[np.stack([np.frombuffer(s.encode(), dtype=np.uint8)
                                              for s in sequences])])
    with torch.no_grad():
        theirs = module(codes, torch.from_numpy(control))
    for name in ("profile", "counts"):
        np.testing.assert_allclose(theirs[name].numpy(), both[name], atol=1e-5)


def test_no_bias_needs_a_bias_model(reference_run):
    # no_bias selects a ChromBPNet's accessibility model alone; a run trained without
    # --bias-model has none to drop, which is an error, not a silent full model.
    with pytest.raises(strand.ConfigError, match="has no bias model"):
        strand.load(reference_run.run_dir, no_bias=True)
    assert issubclass(strand.ConfigError, strand.Error)
