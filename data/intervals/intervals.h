// Interval files with labels: BED, narrowPeak and ENCODE-DREAM style TSV.
//
// Formats (tab-separated, 0-based half-open coordinates; CRLF accepted, blank lines skipped):
//   BED         chrom start end [more columns]; lines starting '#', and 'track' / 'browser'
//               lines (the keyword, then a space, a tab or the end of the line) are skipped.
//               Labels: label_columns (1-based), default {4}. Numbers checked per
//               LabelOptions (data/labels.h); '.', 'NA', 'nan', '-nan' mean missing (masked).
//               Task names: the first '#' line before the first interval whose fields at the
//               label columns are all task names (is_target_name: "#chrom start end CTCF JUN")
//               is the header and names the tasks; without one they are task_0, task_1, ...
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

#include "data/fasta/fasta_reader.h"
#include "data/labels.h"

namespace strand::data {

/// The formats of a dataset's interval file (see the file comment). kRecords is the one that
/// lists no intervals: a label TSV of FASTA record names, every record a sample
/// (data/sources/record_source.h); read_intervals() refuses it.
enum class IntervalFormat { kBed, kNarrowPeak, kDreamTsv, kRecords };

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
  std::string path;                 ///< the file read
  std::vector<Interval> intervals;  ///< (N)
  /// (T) the task names: DREAM cell types, a BED/narrowPeak '#' header's names at the label
  /// columns, else "task_0", "task_1", ...
  std::vector<std::string> target_names;
  std::vector<float> labels;        ///< (N, T); 0.0 where masked
  std::vector<uint8_t> label_mask;  ///< 1 = valid label, 0 = ambiguous
  IntervalStats stats;              ///< counts from reading and validation

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
  /// False: read coordinates only (T = 0; no label column is needed, a BED3 or BED6 is fine;
  /// a DREAM header is still required). For prediction and peak files.
  bool labelled = true;
  /// Stop before the first interval: the set holds the task names and no interval (read the
  /// names of a large file without reading it).
  bool names_only = false;
};

/// Reads an interval file. Throws DataError naming file and line for non-numeric coordinates,
/// start < 0 or start >= end (under kError), a missing label column or a label that is not
/// valid for options.labels, a bad header (or a BED header without its '#', or with a task
/// name twice), a file with no intervals, or (labelled and require_valid) one whose every
/// label is missing.
IntervalSet read_intervals(const std::string& path, const IntervalReadOptions& options);

/// Checks every interval against the FASTA's contigs: unknown contig or end past the contig
/// is an error (kError), dropped (kSkip) or clipped (kClip, unknown contigs dropped).
/// Updates set.stats; throws if nothing is left, or when `labels.require_valid` and every
/// interval that had a valid label was dropped (kSkip/kClip could otherwise leave a set whose
/// labels are all missing, on which training "succeeds" with loss 0).
void validate_intervals(IntervalSet& set, const std::vector<Contig>& contigs,
                        const std::string& fasta_path, BadIntervalPolicy policy,
                        const LabelOptions& labels = {});

/// Replaces the task names of `set` (e.g. by `--task-names`); throws DataError naming the file
/// unless there is one name per label column.
void set_task_names(IntervalSet& set, std::vector<std::string> names);

/// Peak files (negatives, strand prepare --peaks) are read without labels: every interval is a
/// peak. A BED whose column 4 holds 0/1 labels with some 0 lists non-peaks, which would become
/// peaks without a word: throws DataError naming the file, the first line labelled 0 and
/// `use` (what reads the file as peaks, e.g. "data.negatives_ratio"). A column 4 of names
/// ("peak1", "."), of other numbers (scores, ids) or absent (BED3) is not a label column.
void refuse_non_peaks(const std::string& path, IntervalFormat format, const std::string& use);

/// Every format by the name configs and flags give it, in enum order: bed, narrowpeak, dream,
/// records.
const std::vector<std::string>& interval_format_names();

/// The name of `format` in interval_format_names().
const std::string& interval_format_name(IntervalFormat format);

/// Parses a format name: "bed", "narrowpeak", "dream" (or "tsv"), "records" (case-insensitive);
/// throws DataError naming the word and the formats otherwise.
IntervalFormat parse_interval_format(const std::string& name);

}  // namespace strand::data
