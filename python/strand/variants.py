"""Variant effect scores of a trained strand model: what `strand variants` computes, as a table.

    model = strand.load("runs/gata")
    scores = strand.variants.score(model, fasta="genome.fa", vcf="variants.vcf")
    scores.sort_values("output.diff")      # a pandas DataFrame: one row per ALT allele

For every ALT allele of a VCF (plain or bgzipped), BCF or chrombpnet's variant TSV, the model
scores a window of the reference allele and one of the alternate allele (chrombpnet's windows:
the allele starts at the window's centre, L // 2) and reports, per output and task, the
predictions ref and alt and their difference (diff), log2 fold changes for count outputs and
the Jensen-Shannon distance (jsd) for profiles; with null_shuffles, empirical p-values too.
"""
import os
from typing import Dict, Optional, Sequence, Union

import numpy as np

from . import _strand

__all__ = ["score"]

_TEXT_COLUMNS = ("id", "chrom", "ref", "alt")


def _names(value: Union[None, str, int, Sequence[Union[str, int]]], argument: str):
    """None, one name (or index) or several, as a list of strings."""
    if value is None:
        return []
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [str(value)]
    try:
        return [str(item) for item in value]
    except TypeError:
        raise _strand.ConfigError(
            f"{argument}: expected a name, an index or a list of them, got {type(value).__name__}"
        ) from None


def score(
    model: _strand.Model,
    fasta: Union[str, os.PathLike],
    vcf: Union[str, os.PathLike],
    output: Union[None, str, Sequence[str]] = None,
    task: Union[None, str, int, Sequence[Union[str, int]]] = None,
    rc_average: bool = False,
    batch_size: Optional[int] = None,
    ref_mismatch: str = "error",
    contig_end: str = "pad",
    chrom_alias: Union[None, str, os.PathLike] = None,
    null_shuffles: int = 0,
    seed: int = 1,
    threads: Optional[int] = None,
):
    """Scores every ALT allele of `vcf` with `model` against the genome `fasta`
    (variants::score_variants, as `strand variants` does).

    Returns a pandas DataFrame when pandas is installed, else a dict of numpy arrays by column
    (strings as object arrays), with the columns of `strand variants`' TSV in its order: id,
    chrom, pos (1-based), ref, alt ("-" for an empty allele), then per scored output and task
    "<task>.ref", "<task>.alt", "<task>.diff" (plus "<task>.log2fc" for count outputs, or
    "<task>.jsd" for a profile), each followed by "..._pval" with null_shuffles. One row per ALT
    allele, in input order; an allele that was not scored (symbolic, '*', too long for the
    window, or skipped by a policy below) has NaN scores.

    output: the outputs to score, by name (default: every output of one value per task, and
    every profile). task: the tasks or profile tracks to score, names or indices (default:
    all). rc_average: average each prediction with the reverse complement's. batch_size:
    variants per forward pass (two windows each; None: as `strand variants`, 64, on a GPU as many
    as fit, up to 1024). ref_mismatch: when REF differs from the
    FASTA, "error" (raise, listing the first ones), "skip" or "warn" (score with REF).
    contig_end: windows past a contig's end are "pad"ded with N or "skip"ped. chrom_alias: a
    file of VARIANTS_NAME<TAB>FASTA_NAME lines. null_shuffles: also score each variant in this
    many dinucleotide-shuffled backgrounds for empirical p-values (seeded by `seed`). threads:
    OpenMP threads for this call (None: as set).

    Raises strand.DataError naming the file and line for bad input (a contig missing from the
    FASTA, a REF mismatch under "error", a malformed line) and strand.ConfigError naming the
    argument for bad options; both are ValueErrors. Ctrl-C (a notebook's interrupt) stops
    scoring at the next batch and raises KeyboardInterrupt.
    """
    columns: Dict[str, object] = _strand._variants_score(
        model,
        os.fspath(fasta),
        os.fspath(vcf),
        _names(output, "output"),
        _names(task, "task"),
        rc_average,
        batch_size,
        ref_mismatch,
        contig_end,
        None if chrom_alias is None else os.fspath(chrom_alias),
        null_shuffles,
        seed,
        threads,
    )
    try:
        import pandas
    except ImportError:
        return {
            name: np.array(values, dtype=object) if name in _TEXT_COLUMNS else values
            for name, values in columns.items()
        }
    return pandas.DataFrame(columns)
