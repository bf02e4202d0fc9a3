// The shift defaults, format detection and the reader factory.
#include "data/reads/read_cuts.h"

#include <fmt/format.h>
#include <htslib/hts.h>

#include "data/data_error.h"
#include "data/reads/bam_cuts.h"
#include "data/reads/fragment_cuts.h"
#include "data/warnings.h"

namespace strand::data {

CutShift default_cut_shift(Assay assay, ReadsFormat format) {
  // Fragments: cellranger-atac already moved starts by +4 and ends by -5 (exclusive end), so
  // the cut of the end is end - 5 of the reads, i.e. the fragment's end (0-based): 0 / +1.
  if (format == ReadsFormat::kFragments) return CutShift{0, 1};
  return assay == Assay::kAtac ? CutShift{4, -4} : CutShift{0, 1};
}

ReadsFormat detect_reads_format(const std::string& path) {
  silence_htslib_log();
  htsFile* file = hts_open(path.c_str(), "r");
  if (file == nullptr) throw DataError(fmt::format("reads '{}': cannot open it", path));
  const htsExactFormat format = file->format.format;
  hts_close(file);
  const bool alignments = format == sam || format == bam || format == cram;
  return alignments ? ReadsFormat::kAlignments : ReadsFormat::kFragments;
}

std::unique_ptr<CutReader> open_cut_reader(const std::string& path, const FastaReader& genome,
                                           const CutReaderOptions& options) {
  if (options.format == ReadsFormat::kAlignments) {
    return open_alignment_cuts(path, genome, options);
  }
  return open_fragment_cuts(path, genome, options);
}

}  // namespace strand::data
