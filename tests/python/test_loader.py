"""strand.data.Loader: batches as numpy views of strand's memory, equal to the FASTA's windows,
labels from the BED, epochs, augmentation, torch without copies, and clear errors."""
import gc
import json
import re
import subprocess

import numpy as np
import pytest

import strand
from conftest import window_codes


def make_loader(genome, **options):
    fasta, bed, _, _ = genome
    settings = dict(fasta=fasta, intervals=bed, window=100, batch_size=32, shuffle=False,
                    label_columns="4-5", threads=2)
    settings.update(options)
    return strand.data.Loader(**settings)


def test_batches_hold_the_fasta_windows_and_bed_labels(genome):
    _, _, sequences, intervals = genome
    loader = make_loader(genome)
    assert len(loader) == 7 and loader.size == 200 and loader.window == 100
    assert loader.tasks == ["task_0", "task_1"]
    seen = 0
    for batch in loader:
        assert batch["codes"].dtype == np.uint8 and batch["codes"].shape[1] == 100
        assert batch["labels"].dtype == np.float32 and batch["labels"].shape[1] == 2
        for row, index in enumerate(batch["sample_index"]):
            contig, start, end, label1, label2 = intervals[index]
            expected = window_codes(sequences[contig], start, end, 100)
            np.testing.assert_array_equal(batch["codes"][row], expected)
            np.testing.assert_allclose(batch["labels"][row], [label1, label2], atol=1e-6)
            assert batch["label_mask"][row].tolist() == [1, 1]
        seen += len(batch["codes"])
    assert seen == 200


def test_batch_arrays_view_strand_memory_and_keep_it_alive(genome):
    loader = make_loader(genome)
    batch = next(iter(loader))
    codes = batch["codes"]
    assert not codes.flags.owndata  # a view of the batch's memory
    first = codes.copy()
    del batch, loader
    gc.collect()
    np.testing.assert_array_equal(codes, first)  # still readable: the array owns the batch


def test_torch_sees_the_batch_without_a_copy(genome):
    torch = pytest.importorskip("torch")
    batch = next(iter(make_loader(genome)))
    for name in ("codes", "labels", "label_mask", "sample_index"):
        array = batch[name]
        from_numpy = torch.from_numpy(array)
        from_dlpack = torch.from_dlpack(array)
        assert from_numpy.data_ptr() == array.ctypes.data
        assert from_dlpack.data_ptr() == array.ctypes.data


def test_one_hot_batches(genome):
    loader = make_loader(genome, one_hot=True)
    batch = next(iter(loader))
    codes = next(iter(make_loader(genome)))["codes"]
    one_hot = batch["one_hot"]
    assert one_hot.shape == (32, 4, 100) and one_hot.dtype == np.float32
    for c in range(4):
        np.testing.assert_array_equal(one_hot[:, c, :], codes == c)
    channels_last = next(iter(make_loader(genome, one_hot=True, layout="NLC")))["one_hot"]
    np.testing.assert_array_equal(channels_last, one_hot.transpose(0, 2, 1))


def test_each_iteration_is_the_next_epoch(genome):
    loader = make_loader(genome, shuffle=True, seed=5)
    first = np.concatenate([b["sample_index"] for b in loader])
    second = np.concatenate([b["sample_index"] for b in loader])
    assert sorted(first) == sorted(second) == list(range(200))
    assert list(first) != list(second)
    assert loader.epoch == 2
    loader.epoch = 0
    again = np.concatenate([b["sample_index"] for b in loader])
    np.testing.assert_array_equal(again, first)
    other = make_loader(genome, shuffle=True, seed=5, threads=1)
    np.testing.assert_array_equal(np.concatenate([b["sample_index"] for b in other]), first)


def test_jitter_and_reverse_complement(genome):
    _, _, sequences, intervals = genome
    loader = make_loader(genome, rc=1.0)
    batch = next(iter(loader))
    assert batch["reverse"].tolist() == [1] * 32
    complement = np.array([3, 2, 1, 0, 4], dtype=np.uint8)
    for row, index in enumerate(batch["sample_index"]):
        contig, start, end, _, _ = intervals[index]
        forward = window_codes(sequences[contig], start, end, 100)
        np.testing.assert_array_equal(batch["codes"][row], complement[forward[::-1]])
    jittered = next(iter(make_loader(genome, jitter=20, seed=1)))
    plain = next(iter(make_loader(genome)))
    assert (jittered["codes"] != plain["codes"]).any()


def test_unlabelled_intervals(genome):
    batch = next(iter(make_loader(genome, labelled=False, label_columns=None)))
    assert batch["labels"].shape == (32, 0)


def test_bad_input_is_refused(genome, tmp_path):
    fasta, bed, _, _ = genome
    with pytest.raises(strand.DataError, match="no_such.fa"):
        strand.data.Loader(fasta=tmp_path / "no_such.fa", intervals=bed)
    with pytest.raises(strand.DataError, match="window"):
        make_loader(genome, window=0)
    with pytest.raises(ValueError, match="label_columns"):
        make_loader(genome, label_columns="x")
    with pytest.raises(strand.ConfigError, match="layout"):
        make_loader(genome, layout="LNC")
    broken = tmp_path / "broken.bed"
    broken.write_text("chr1\t100\t50\t1\t0\n")
    with pytest.raises(strand.DataError, match="broken.bed"):
        strand.data.Loader(fasta=fasta, intervals=broken, window=100)
    with pytest.raises(TypeError):
        strand.data.Loader(fasta=fasta)


def test_jitter_over_half_the_window_is_refused_in_the_words_of_the_cli(genome, strand_exe):
    # LoaderConfig::validate() holds the rule, so the Loader refuses what `strand train` does.
    reason = ("more than half the 100-base window (50): a shifted window would no longer hold "
              "its interval's centre")
    make_loader(genome, jitter=50)
    with pytest.raises(strand.DataError, match="jitter") as refused:
        make_loader(genome, jitter=51)
    assert reason in str(refused.value)
    if strand_exe is None:
        return
    fasta, bed, _, _ = genome
    cli = subprocess.run([str(strand_exe), "train", "--fasta", str(fasta), "--intervals", str(bed),
                          "--label-columns", "4-5", "--window", "100", "--jitter", "51",
                          "--print-config"], capture_output=True, text=True)
    assert cli.returncode == 1
    assert cli.stderr == f"error: data.jitter: 51 is {reason}\n"


def test_keyword_defaults_are_the_config_keys_defaults(genome, strand_exe):
    # Walks the config key table as `strand train --print-config` writes it for files data: each
    # keyword argument that is a config key defaults to that key's default (rc and threads once
    # differed from the library's).
    signature, _, values = strand.data.Loader.__init__.__nb_signature__[0]
    names = re.findall(r"(\w+): [^,]*? = \\(\d+)", signature)
    defaults = {name: values[int(index)] for name, index in names}
    keys = strand._strand._loader_argument_keys()
    assert {"window", "jitter", "rc", "threads", "prefetch", "format"} <= set(keys)
    assert set(keys) <= set(defaults)
    if strand_exe is None:
        pytest.skip("no strand program (STRAND_EXE)")
    fasta, bed, _, _ = genome
    printed = subprocess.run([str(strand_exe), "train", "--fasta", str(fasta), "--intervals",
                              str(bed), "--print-config"], capture_output=True, text=True,
                             check=True)
    config = json.loads(printed.stdout)
    for argument, key in keys.items():
        section, name = key.split(".")
        assert defaults[argument] == config[section][name], (argument, key)
    assert (defaults["rc"], defaults["threads"]) == (0.0, 2)


def test_bigwig_profiles_control_and_counts(strand_exe, tmp_path):
    if strand_exe is None:
        pytest.skip("STRAND_EXE is not set (CTest sets it): strand simulate writes the bigWigs")
    import subprocess

    subprocess.run([str(strand_exe), "simulate", "--simulation", "chip_nexus_profile", "--out",
                    str(tmp_path), "--contigs", "3", "--contig-length", "50000", "--peaks", "40"],
                   check=True, capture_output=True)
    pairs = [f"{tmp_path}/{m}.plus.bw,{tmp_path}/{m}.minus.bw" for m in ("POU5F1_known1", "SOX2_1")]

    def loader(rc):
        return strand.data.Loader(
            fasta=tmp_path / "genome.fa", intervals=tmp_path / "train.narrowPeak",
            format="narrowpeak", window=400, batch_size=16, shuffle=False, rc=rc,
            profile_bigwigs=pairs, control_bigwigs=[f"{tmp_path}/control.bw"],
            profile_length=200, targets="counts")

    forward = next(iter(loader(0.0)))
    assert forward["profile"].shape == (16, 4, 200) and forward["control"].shape == (16, 1, 400)
    assert forward["profile"].sum() > 0 and not forward["profile"].flags.owndata
    # Count labels are the sums of each stranded pair over the profile window.
    sums = forward["profile"].reshape(16, 2, 2, 200).sum(axis=(2, 3))
    np.testing.assert_allclose(forward["labels"], sums, rtol=1e-5)
    # Reverse complement: positions reversed, plus and minus strands swapped.
    backward = next(iter(loader(1.0)))
    np.testing.assert_array_equal(backward["profile"][:, 0], forward["profile"][:, 1, ::-1])
    np.testing.assert_array_equal(backward["profile"][:, 3], forward["profile"][:, 2, ::-1])
    np.testing.assert_array_equal(backward["control"][:, 0], forward["control"][:, 0, ::-1])
