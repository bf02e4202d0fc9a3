// Cuts of aligned reads in SAM, BAM or CRAM (HTSlib), streamed in file order: no index needed.
#pragma once

#include <memory>
#include <string>

#include "data/reads/read_cuts.h"

namespace strand::data {

/// A CutReader over an alignment file sorted by coordinate. Each kept record gives one cut:
/// its 5' base plus the strand's shift. Records are dropped when unmapped, secondary,
/// supplementary, QC-failed, duplicates (unless keep_duplicates), below min_mapq, not properly
/// paired (with proper_pairs_only) or on a contig the FASTA lacks. A CRAM file is decoded against
/// options.reference. Throws DataError naming the file when it cannot be opened or read, and
/// naming the record when it is not sorted by coordinate.
std::unique_ptr<CutReader> open_alignment_cuts(const std::string& path, const FastaReader& genome,
                                               const CutReaderOptions& options);

}  // namespace strand::data
