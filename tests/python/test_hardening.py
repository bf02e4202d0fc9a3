"""Issue 38 (hardening, round 3), the Python package: thread counts the CLI refuses crashed the
interpreter, sequence strings with digits and one-hot arrays with NaN were predicted without a
word, Ctrl-C during deep_lift_shap or ism waited for the whole job, and references=10**9 failed
with an allocation size. Each case is the issue's reproducer."""
import os
import signal
import threading

import numpy as np
import pytest

import strand
from conftest import random_sequences

LENGTH = 120


@pytest.fixture(scope="module")
def sequences():
    return random_sequences(np.random.default_rng(38), 6, LENGTH)


@pytest.fixture(scope="module")
def genome(tmp_path_factory):
    """A FASTA of one 3,000-base contig and a VCF of SNVs on it: (fasta, vcf)."""
    root = tmp_path_factory.mktemp("round3_genome")
    sequence = "".join(np.random.default_rng(39).choice(list("ACGT"), size=3000))
    (root / "g.fa").write_text(">chr1\n" + sequence + "\n")
    lines = ["##fileformat=VCFv4.2", "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO"]
    for pos in range(200, 2800, 50):
        ref = sequence[pos - 1]
        lines.append(f"chr1\t{pos}\tv{pos}\t{ref}\t{'A' if ref != 'A' else 'C'}\t.\t.\t.")
    (root / "v.vcf").write_text("\n".join(lines) + "\n")
    return root / "g.fa", root / "v.vcf"


def long_calls(model, sequences, genome):
    """Every long call of the package, by name, on small inputs."""
    fasta, vcf = genome
    return {
        "predict": lambda **kw: model.predict(sequences, batch_size=2, **kw),
        "ism": lambda **kw: strand.explain.ism(model, sequences, batch_size=8, **kw),
        "deep_lift_shap": lambda **kw: strand.explain.deep_lift_shap(
            model, sequences, references=4, batch_size=4, **kw),
        "gradient": lambda **kw: strand.explain.gradient(model, sequences, batch_size=2, **kw),
        "input_x_gradient": lambda **kw: strand.explain.input_x_gradient(
            model, sequences, batch_size=2, **kw),
        "marginalize": lambda **kw: strand.explain.marginalize(
            model, sequences, "CAGCTG", batch_size=2, **kw),
        "marginalize_spacing": lambda **kw: strand.explain.marginalize_spacing(
            model, sequences, "CAGCTG", "GATAA", 8, 10, batch_size=2, **kw),
        "variants.score": lambda **kw: strand.variants.score(model, fasta, vcf, batch_size=4, **kw),
    }


@pytest.mark.parametrize("threads", [100000, 10000, 0, -1, 2**40])
def test_thread_counts_beyond_the_cap_are_refused_by_every_call(
        reference_model, sequences, genome, threads):
    # Issue 38: threads=100000 killed the interpreter (SIGSEGV), 10000 made libgomp exit it.
    for name, call in long_calls(reference_model, sequences, genome).items():
        with pytest.raises(strand.ConfigError, match=r"threads: must be in \[1, \d+\] \(the cap "
                                                     r"is the larger of 64"):
            call(threads=threads)
    assert reference_model.predict(sequences, threads=1).shape == (6, 1)


def test_sequence_strings_take_only_base_letters(reference_model, sequences):
    # Issue 38: digits, spaces and GenBank-style position numbers were predicted as N.
    with_digit = sequences[0][:5] + "7" + sequences[0][6:]
    with pytest.raises(strand.ConfigError,
                       match=r"x\[1\]: '7' at position 5 is not a base letter .*position number"):
        reference_model.predict([sequences[1], with_digit])
    genbank = ("        1 " + sequences[0])[:LENGTH]
    with pytest.raises(strand.ConfigError, match=r"x\[0\]: a space at position 0"):
        reference_model.predict([genbank])
    for symbol in ".*":
        text = sequences[0][:LENGTH - 1] + symbol
        with pytest.raises(strand.ConfigError, match=rf"x\[0\]: '\{symbol}' at position 119"):
            strand.explain.ism(reference_model, [text])
    # IUPAC codes, other letters and '-' are letters (read as N), as in a FASTA.
    iupac = "RYKMXN-" + sequences[0][7:]
    assert np.isfinite(reference_model.predict([iupac])).all()


def test_one_hot_with_nan_or_inf_is_refused_naming_the_element(reference_model, sequences):
    codes = np.frombuffer("".join(sequences).encode(), dtype=np.uint8).reshape(6, LENGTH)
    table = np.full(256, 4, dtype=np.uint8)
    for code, base in enumerate(b"ACGT"):
        table[base] = code
    one_hot = np.zeros((6, 4, LENGTH), dtype=np.float32)
    for n in range(6):
        one_hot[n, table[codes[n]], np.arange(LENGTH)] = 1.0
    assert np.isfinite(reference_model.predict(one_hot)).all()
    # Issue 38: a NaN gave NaN predictions without an exception.
    bad = one_hot.copy()
    bad[2, 1, 7] = np.nan
    with pytest.raises(strand.ConfigError, match=r"x\[2, 1, 7\] is nan; the values must be finite"):
        reference_model.predict(bad)
    bad = np.ascontiguousarray(one_hot.transpose(0, 2, 1))
    bad[0, 9, 3] = -np.inf
    with pytest.raises(strand.ConfigError, match=r"x\[0, 9, 3\] is -inf"):
        reference_model.predict(bad, layout="NLC")


def test_references_far_beyond_any_use_are_refused_naming_them(reference_model, sequences):
    # Issue 38: references=10**9 failed with "out of host memory: 200000000000 bytes".
    for references in (10**9, 10**30, 0, -3, 100001):
        with pytest.raises(strand.ConfigError, match=r"references: DeepLIFT/SHAP takes \[1, "
                                                     r"100000\] dinucleotide shuffles"):
            strand.explain.deep_lift_shap(reference_model, sequences, references=references)


def test_marginalize_spacing_leaves_out_overlapping_spacings(reference_model, sequences):
    # Issue 38: overlapping motifs gave an "interaction" that was an overwrite artefact.
    result = strand.explain.marginalize_spacing(reference_model, sequences, "CAGCTG", "GATAA",
                                                -8, 8)
    assert list(result["spacing"]) == [-8, -7, -6, 5, 6, 7, 8]
    with pytest.raises(strand.ConfigError, match="overlap at every spacing"):
        strand.explain.marginalize_spacing(reference_model, sequences, "CAGCTG", "GATAA", -2, 2)


@pytest.mark.parametrize("name", ["predict", "ism", "deep_lift_shap", "gradient",
                                  "input_x_gradient", "marginalize", "marginalize_spacing",
                                  "variants.score"])
def test_ctrl_c_raises_keyboard_interrupt_at_the_next_batch(reference_model, sequences, genome,
                                                            name):
    # Issue 38: deep_lift_shap and ism ignored Ctrl-C until the job ended. The testing aid
    # raises SIGINT at the call's second poll, as a user's Ctrl-C would arrive mid-job.
    call = long_calls(reference_model, sequences, genome)[name]
    previous = signal.getsignal(signal.SIGINT)
    strand._strand._raise_signal_at_poll(2, signal.SIGINT)
    try:
        with pytest.raises(KeyboardInterrupt):
            call(threads=1)
    finally:
        strand._strand._raise_signal_at_poll(0, signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is previous  # Python's handler is back
    call(threads=1)  # no request lingers


def test_a_real_sigint_stops_deep_lift_shap(reference_model):
    # A signal from another thread of the process, as a terminal's Ctrl-C: the job (tens of
    # seconds) stops at its next batch instead of running to the end.
    many = random_sequences(np.random.default_rng(40), 3000, LENGTH)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            strand.explain.deep_lift_shap(reference_model, many, references=50, threads=1)
    finally:
        timer.cancel()


PER_STRAND_COUNTS = {
    "data": {"source": "files", "format": "narrowpeak", "fasta": "g.fa",
             "intervals": "peaks.narrowPeak", "window": LENGTH, "targets": "counts",
             "profile_bigwigs": ["plus.bw,minus.bw"], "profile_length": LENGTH},
    "model": {
        "nodes": [
            {"name": "conv", "type": "Conv1D", "filters": 8, "kernel_size": 11,
             "inputs": ["sequence"]},
            {"name": "relu", "type": "ReLU"},
            {"name": "pool", "type": "GlobalAvgPool1D"},
            {"name": "counts", "type": "Dense", "units": "profile_tracks"},
        ],
        "outputs": [{"name": "counts", "node": "counts", "loss": "mse", "target": "log_counts"}],
    },
}


def reverse_complement(text):
    return text[::-1].translate(str.maketrans("ACGT", "TGCA"))


def test_rc_average_swaps_the_strands_of_per_strand_counts(sequences):
    # Issue 38: one averaging rule for predict, variants and Python. A stranded pair's plus
    # averages with the reverse complement's minus.
    model = strand.build(PER_STRAND_COUNTS, length=LENGTH, profile_tracks=2)
    forward = model.predict(sequences)
    reverse = model.predict([reverse_complement(s) for s in sequences])
    averaged = model.predict(sequences, rc_average=True)
    np.testing.assert_allclose(averaged[:, 0], (forward[:, 0] + reverse[:, 1]) / 2, rtol=1e-6)
    np.testing.assert_allclose(averaged[:, 1], (forward[:, 1] + reverse[:, 0]) / 2, rtol=1e-6)
    assert np.abs(reverse[:, 0] - reverse[:, 1]).max() > 1e-4  # else the swap would go unseen
