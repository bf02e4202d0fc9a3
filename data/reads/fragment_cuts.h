// Cuts of 10x-style fragment files (cellranger-atac's fragments.tsv.gz, ArchR's and SnapATAC's
// exports): tab-separated chrom, start, end[, barcode, count], 0-based half-open, plain or
// (b)gzipped, '#' lines skipped. Each fragment's two ends are two cuts.
#pragma once

#include <memory>
#include <string>

#include "data/reads/read_cuts.h"

namespace strand::data {

/// A CutReader over a fragment file sorted by start within each contig (contigs in blocks, any
/// order). A fragment [start, end) gives a + cut at start + shift.plus and a - cut at
/// end - 1 + shift.minus, with weight 1, or its count column (5th, a positive integer) with
/// keep_duplicates. Lines on contigs the FASTA lacks are tallied and skipped. Throws DataError
/// naming the file and line for fewer than three columns, a start or end that is not an integer
/// with 0 <= start < end, a bad count, or a line out of order.
std::unique_ptr<CutReader> open_fragment_cuts(const std::string& path, const FastaReader& genome,
                                              const CutReaderOptions& options);

}  // namespace strand::data
