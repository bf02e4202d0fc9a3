// Interval files with labels: BED, narrowPeak and ENCODE-DREAM style TSV.
//
// Formats (tab-separated, 0-based half-open coordinates; CRLF accepted, blank lines skipped):
//   BED         chrom start end [more columns]; lines starting '#', and 'track' / 'browser'
//               lines (the keyword, then a space, a tab or the end of the line) are skipped.
//               Labels: label_columns (1-based), default {4}. Numbers checked per
//               LabelOptions (data/labels.h); '.', 'NA', 'nan', '-nan' mean missing (masked).
//   narrowPeak  BED6+4; column 10 is the summit offset from start (-1: none; any other value
//               must lie in [0, end - start), else an error). Labels default to column 7
//               (signalValue).
//   DREAM TSV   header "chrom start end CELL1 CELL2 ..."; one label column per cell type with
//               B (bound) -> 1, U (unbound) -> 0, A (ambiguous) -> masked.
// Masked labels are stored as 0.0 with label_mask 0, so a loss that ignores the mask sees a
// finite value; a loss must multiply by the mask to skip them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/fasta_reader.h"
#include "data/labels.h"

namespace strand::data {

/// Interval file formats (see the file comment).
enum class IntervalFormat { kBed, kNarrowPeak, kDreamTsv };

/// What to do with an interval that is invalid for the file or the genome.
enum class BadIntervalPolicy {
  kError,  ///< throw DataError naming file and line (default)
  kSkip,   ///< drop it and count it in IntervalStats::skipped
  kClip,   ///< clip start < 0 and end past the contig to the contig; drop the rest (skipped)
};

/// Counts of what reading/validating did, so a kinder policy never hides data loss.
struct IntervalStats {
  int64_t lines = 0;          ///< lines read, including header, comments and blanks
  int64_t intervals = 0;      ///< intervals kept
  int64_t skipped = 0;        ///< intervals dropped by kSkip/kClip
  int64_t clipped = 0;        ///< intervals clipped to the contig by kClip
  int64_t masked_labels = 0;  ///< ambiguous label values (mask 0)
};

/// One interval; `line` is its 1-based line in the file, kept for error messages.
struct Interval {
  std::string contig;   ///< contig (chromosome) name
  int64_t start = 0;    ///< 0-based first base
  int64_t end = 0;      ///< 0-based one past the last base
  int64_t summit = -1;  ///< absolute 0-based summit position, -1 when none
  int64_t line = 0;     ///< 1-based line in the file
};

/// Intervals with their labels; labels and label_mask are (N, T) row-major.
struct IntervalSet {
  std::string path;                       ///< the file read
  std::vector<Interval> intervals;        ///< (N)
  std::vector<std::string> target_names;  ///< (T) DREAM cell types, else "columnK" for column K
  std::vector<float> labels;              ///< (N, T); 0.0 where masked
  std::vector<uint8_t> label_mask;        ///< 1 = valid label, 0 = ambiguous
  IntervalStats stats;                    ///< counts from reading and validation

  /// N, the number of intervals.
  int64_t size() const { return static_cast<int64_t>(intervals.size()); }
  /// T, the number of label columns.
  int64_t num_targets() const { return static_cast<int64_t>(target_names.size()); }
};

/// Settings of read_intervals().
struct IntervalReadOptions {
  IntervalFormat format = IntervalFormat::kBed;  ///< the file's format
  /// 1-based label columns; empty means the format's default (see file comment).
  std::vector<int> label_columns;
  BadIntervalPolicy policy = BadIntervalPolicy::kError;  ///< invalid coordinates
  LabelOptions labels;  ///< what a valid numeric label is (DREAM labels are always binary)
  /// false: only coordinates (and summits) are read, no label column (T = 0), e.g. when the
  /// labels come from bigWig tracks; not for DREAM files.
  bool read_labels = true;
};

/// Reads an interval file. Throws DataError naming file and line for non-numeric coordinates,
/// start < 0 or start >= end (under kError), a missing label column or a label that is not
/// valid for options.labels, a bad header, a file with no intervals, or (require_valid) one
/// whose every label is missing.
IntervalSet read_intervals(const std::string& path, const IntervalReadOptions& options);

/// Checks every interval against the FASTA's contigs: unknown contig or end past the contig
/// is an error (kError), dropped (kSkip) or clipped (kClip, unknown contigs dropped).
/// Updates set.stats; throws if nothing is left, or when `labels.require_valid` and every
/// interval that had a valid label was dropped (kSkip/kClip could otherwise leave a set whose
/// labels are all missing, on which training "succeeds" with loss 0).
void validate_intervals(IntervalSet& set, const std::vector<Contig>& contigs,
                        const std::string& fasta_path, BadIntervalPolicy policy,
                        const LabelOptions& labels = {});

/// Parses a format name: "bed", "narrowpeak", "dream" (case-insensitive).
IntervalFormat parse_interval_format(const std::string& name);

}  // namespace strand::data
