"""strand.variants.score: every ALT's ref and alt predictions equal Model.predict on the windows
chrombpnet's rule cuts, the table has the CLI's columns, and bad input raises clear errors."""
import subprocess
import sys

import numpy as np
import pytest

import strand
from conftest import ticks_while

TEXT_COLUMNS = ["id", "chrom", "pos", "ref", "alt"]


@pytest.fixture(scope="module")
def small_genome(tmp_path_factory):
    """A random two-contig genome: (fasta path, {contig: sequence})."""
    root = tmp_path_factory.mktemp("variant_genome")
    rng = np.random.default_rng(17)
    sequences = {name: "".join(rng.choice(list("ACGT"), size=length))
                 for name, length in {"chr1": 3000, "chr2": 2000}.items()}
    with open(root / "genome.fa", "w") as fasta:
        for name, sequence in sequences.items():
            fasta.write(f">{name}\n")
            for i in range(0, len(sequence), 60):
                fasta.write(sequence[i : i + 60] + "\n")
    return root / "genome.fa", sequences


def other_letters(base):
    return [b for b in "ACGT" if b != base]


@pytest.fixture(scope="module")
def variant_records(small_genome):
    """(chrom, pos, id, ref, [alts]) of a VCF: SNVs, an MNV, a deletion, an insertion, a
    multi-allelic site, a symbolic ALT, and SNVs whose windows run past a contig's ends."""
    _, genome = small_genome

    def at(chrom, pos, width=1):
        return genome[chrom][pos - 1 : pos - 1 + width]

    records = [
        ("chr1", 500, "snv1", at("chr1", 500), [other_letters(at("chr1", 500))[0]]),
        ("chr1", 800, "mnv", at("chr1", 800, 2),
         [other_letters(at("chr1", 800))[1] + other_letters(at("chr1", 801))[2]]),
        ("chr1", 1000, "deletion", at("chr1", 1000, 5), [at("chr1", 1000)]),
        ("chr1", 1200, "insertion", at("chr1", 1200), [at("chr1", 1200) + "TTTTGA"]),
        ("chr1", 1500, "multi", at("chr1", 1500), other_letters(at("chr1", 1500))),
        ("chr1", 1700, "structural", at("chr1", 1700), ["<DEL>"]),
        ("chr1", 20, "near_start", at("chr1", 20), [other_letters(at("chr1", 20))[2]]),
        ("chr2", 1990, "near_end", at("chr2", 1990), [other_letters(at("chr2", 1990))[0]]),
        ("chr2", 100, ".", at("chr2", 100), [other_letters(at("chr2", 100))[1]]),
    ]
    return records


def write_vcf(path, records, genome):
    with open(path, "w") as vcf:
        vcf.write("##fileformat=VCFv4.2\n")
        for name, sequence in genome.items():
            vcf.write(f"##contig=<ID={name},length={len(sequence)}>\n")
        vcf.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        for chrom, pos, name, ref, alts in records:
            vcf.write(f"{chrom}\t{pos}\t{name}\t{ref}\t{','.join(alts)}\t.\t.\t.\n")
    return path


@pytest.fixture(scope="module")
def vcf(small_genome, variant_records, tmp_path_factory):
    return write_vcf(tmp_path_factory.mktemp("vcf") / "variants.vcf", variant_records,
                     small_genome[1])


def allele_windows(sequence, pos, ref, alt, length):
    """chrombpnet's windows of a variant (variants/allele_windows.h): the first L/2 bases before
    the variant, then the allele, then the bases after REF; N beyond the contig."""
    half = length // 2
    begin = pos - 1 - half
    extra = max(0, len(ref) - len(alt))
    source = "".join(sequence[i] if 0 <= i < len(sequence) else "N"
                     for i in range(begin, begin + length + extra))
    ref_window = source[:half] + ref + source[half + len(ref) : length]
    alt_window = source[:half] + alt + source[half + len(ref) : length + len(ref) - len(alt)]
    assert len(ref_window) == len(alt_window) == length
    return ref_window, alt_window


def as_columns(table):
    """The table as {column: list or array}, from a DataFrame or a dict."""
    if isinstance(table, dict):
        return table
    return {name: table[name].to_numpy() for name in table.columns}


def task_name(model):
    return model.tasks[0] if len(model.tasks) == 1 else "output"


def check_scores(model, genome, records, columns, rc_average=False):
    """Every scored ALT's ref and alt equal Model.predict on its windows; the rest are NaN."""
    t = task_name(model)
    rows = [(chrom, pos, name, ref, alt) for chrom, pos, name, ref, alts in records
            for alt in alts]
    assert list(columns["id"]) == [row[2] for row in rows]
    assert list(columns["chrom"]) == [row[0] for row in rows]
    assert list(columns["pos"]) == [row[1] for row in rows]
    assert list(columns["ref"]) == [row[3] or "-" for row in rows]
    assert list(columns["alt"]) == [row[4] or "-" for row in rows]
    scored = [i for i, row in enumerate(rows) if not row[4].startswith("<")]
    windows = [allele_windows(genome[rows[i][0]], rows[i][1], rows[i][3], rows[i][4],
                              model.input_length) for i in scored]
    ref = model.predict([w[0] for w in windows], rc_average=rc_average)[:, 0]
    alt = model.predict([w[1] for w in windows], rc_average=rc_average)[:, 0]
    np.testing.assert_allclose(columns[f"{t}.ref"][scored], ref, atol=2e-6)
    np.testing.assert_allclose(columns[f"{t}.alt"][scored], alt, atol=2e-6)
    np.testing.assert_allclose(columns[f"{t}.diff"][scored], alt - ref, atol=4e-6)
    unscored = [i for i in range(len(rows)) if i not in scored]
    for name in (f"{t}.ref", f"{t}.alt", f"{t}.diff"):
        assert np.all(np.isnan(columns[name][unscored]))


def test_ref_and_alt_equal_predictions_of_the_windows(reference_model, small_genome, vcf,
                                                      variant_records, monkeypatch):
    fasta, genome = small_genome
    monkeypatch.setitem(sys.modules, "pandas", None)  # the dict of numpy arrays
    table = strand.variants.score(reference_model, fasta, vcf)
    assert isinstance(table, dict)
    t = task_name(reference_model)
    assert list(table) == TEXT_COLUMNS + [f"{t}.ref", f"{t}.alt", f"{t}.diff"]
    assert table["pos"].dtype == np.int64 and table[f"{t}.ref"].dtype == np.float32
    assert table["id"].dtype == object
    check_scores(reference_model, genome, variant_records, table)


def test_a_dataframe_where_pandas_is_installed(reference_model, small_genome, vcf,
                                               variant_records):
    pandas = pytest.importorskip("pandas")
    fasta, genome = small_genome
    table = strand.variants.score(reference_model, str(fasta), str(vcf))
    assert isinstance(table, pandas.DataFrame)
    t = task_name(reference_model)
    assert list(table.columns) == TEXT_COLUMNS + [f"{t}.ref", f"{t}.alt", f"{t}.diff"]
    check_scores(reference_model, genome, variant_records, as_columns(table))


def test_rc_average_and_batch_sizes(reference_model, small_genome, vcf, variant_records,
                                    monkeypatch):
    fasta, genome = small_genome
    monkeypatch.setitem(sys.modules, "pandas", None)
    averaged = strand.variants.score(reference_model, fasta, vcf, rc_average=True, batch_size=3,
                                     threads=1)
    check_scores(reference_model, genome, variant_records, averaged, rc_average=True)


def test_chrombpnet_tsv_input_with_empty_alleles(reference_model, small_genome, tmp_path,
                                                 monkeypatch):
    fasta, genome = small_genome
    monkeypatch.setitem(sys.modules, "pandas", None)
    base = genome["chr2"][700]
    records = [("chr2", 701, "snv", base, [other_letters(base)[0]]),
               ("chr2", 900, "insertion", "", ["GATTACA"])]
    with open(tmp_path / "variants.tsv", "w") as tsv:
        for chrom, pos, name, ref, alts in records:
            tsv.write(f"{chrom}\t{pos}\t{ref or '-'}\t{alts[0] or '-'}\t{name}\n")
    table = strand.variants.score(reference_model, fasta, tmp_path / "variants.tsv")
    check_scores(reference_model, genome, records, table)


def test_null_shuffles_add_p_values(reference_model, small_genome, vcf, monkeypatch):
    fasta, _ = small_genome
    monkeypatch.setitem(sys.modules, "pandas", None)
    table = strand.variants.score(reference_model, fasta, vcf, null_shuffles=4, seed=2)
    t = task_name(reference_model)
    assert f"{t}.diff_pval" in table
    p = table[f"{t}.diff_pval"]
    scored = ~np.isnan(table[f"{t}.diff"])
    assert np.all((p[scored] > 0) & (p[scored] <= 1))


def test_columns_and_values_equal_the_cli(reference_run, reference_model, small_genome, vcf,
                                          strand_exe, tmp_path, monkeypatch):
    if strand_exe is None:
        pytest.skip("STRAND_EXE is not set (CTest sets it)")
    fasta, _ = small_genome
    out = tmp_path / "scores.tsv"
    subprocess.run([str(strand_exe), "variants", "--model", reference_run.run_dir, "--fasta",
                    str(fasta), "--vcf", str(vcf), "--out", str(out), "--threads", "2"],
                   check=True, capture_output=True)
    lines = out.read_text().splitlines()
    header = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:]]
    monkeypatch.setitem(sys.modules, "pandas", None)
    table = strand.variants.score(reference_model, fasta, vcf)
    assert list(table) == header
    for c, name in enumerate(header):
        cli = [row[c] for row in rows]
        if name in ("id", "chrom", "ref", "alt"):
            assert list(table[name]) == cli
        elif name == "pos":
            assert list(table[name]) == [int(v) for v in cli]
        else:
            values = np.array([np.nan if v == "NA" else float(v) for v in cli], dtype=np.float32)
            np.testing.assert_allclose(table[name], values, atol=1e-6)


def test_ref_mismatches_and_missing_contigs(reference_model, small_genome, tmp_path,
                                            monkeypatch):
    fasta, genome = small_genome
    monkeypatch.setitem(sys.modules, "pandas", None)
    base = genome["chr1"][299]
    wrong = other_letters(base)[0]
    records = [("chr1", 300, "wrong_ref", wrong, [other_letters(wrong)[0]])]
    path = write_vcf(tmp_path / "mismatch.vcf", records, genome)
    with pytest.raises(ValueError) as raised:
        strand.variants.score(reference_model, fasta, path)
    assert isinstance(raised.value, strand.DataError) and "mismatch.vcf" in str(raised.value)
    skipped = strand.variants.score(reference_model, fasta, path, ref_mismatch="skip")
    assert np.isnan(skipped[f"{task_name(reference_model)}.alt"][0])
    # "warn" scores the VCF's REF in the ref window.
    warned = strand.variants.score(reference_model, fasta, path, ref_mismatch="warn")
    check_scores(reference_model, {"chr1": genome["chr1"][:299] + wrong + genome["chr1"][300:]},
                 records, warned)
    missing = write_vcf(tmp_path / "missing.vcf", [("chr9", 10, "x", "A", ["C"])],
                        {"chr9": "A" * 100})
    with pytest.raises(strand.DataError, match="chr9"):
        strand.variants.score(reference_model, fasta, missing)


def expect_error(argument, *args, **kwargs):
    with pytest.raises(ValueError) as raised:
        strand.variants.score(*args, **kwargs)
    assert str(raised.value).startswith(argument + ":"), str(raised.value)
    assert isinstance(raised.value, strand.ConfigError)


def test_bad_arguments_raise_errors_naming_them(reference_model, small_genome, vcf):
    fasta, _ = small_genome
    model = reference_model
    expect_error("output", model, fasta, vcf, output="no_such_output")
    expect_error("task", model, fasta, vcf, task="no_such_task")
    expect_error("task", model, fasta, vcf, task=5)
    expect_error("ref_mismatch", model, fasta, vcf, ref_mismatch="maybe")
    expect_error("contig_end", model, fasta, vcf, contig_end="wrap")
    expect_error("batch_size", model, fasta, vcf, batch_size=0)
    expect_error("null_shuffles", model, fasta, vcf, null_shuffles=-1)
    expect_error("threads", model, fasta, vcf, threads=0)
    with pytest.raises(ValueError, match="no_such.vcf"):
        strand.variants.score(model, fasta, vcf.parent / "no_such.vcf")


def test_the_gil_is_released_while_scoring(reference_model, small_genome, tmp_path, monkeypatch):
    """A thread that runs only when the main thread lets go of the GIL counts while scoring."""
    fasta, genome = small_genome
    monkeypatch.setitem(sys.modules, "pandas", None)
    records = [("chr1", pos, f"v{pos}", genome["chr1"][pos - 1],
                [other_letters(genome["chr1"][pos - 1])[0]]) for pos in range(100, 2900)]
    path = write_vcf(tmp_path / "many.vcf", records, genome)
    during, table = ticks_while(
        lambda: strand.variants.score(reference_model, fasta, path, threads=1)
    )
    assert during > 0 and len(table["id"]) == len(records)
