// `strand prepare`: a labelled dataset in one command, from positive and negative FASTAs (a
// records dataset: FASTA + label TSV with a header, whole or split by fractions) or from peak
// files on a genome (a multi-task BED: one 0/1 column per peak file, data/intervals/peak_tasks.h).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/config_keys.h"
#include "data/intervals/intervals.h"
#include "data/intervals/peak_tasks.h"

namespace strand::cli {

/// The settings of `strand prepare`, set by its flags (prepare_keys()).
struct PrepareOptions {
  std::vector<std::string> positives;          // FASTAs: one task each, named by the file stem
  std::vector<std::string> peaks;              // or: peak files on `fasta`, one task each
  std::string fasta;                           // the genome of the peaks
  std::optional<data::IntervalFormat> format;  // the peaks' format (default: by extension)
  /// The peaks' windows (the model's input length) and GC-matched negatives per window.
  data::PeakTaskOptions peak;
  std::string blacklist;                // regions negatives avoid (peaks only)
  std::string negatives;                // FASTA of negatives for every task; optional with several
  std::vector<std::string> task_names;  // names for the tasks instead of the stems
  std::string out;                      // the output directory
  double valid_fraction = 0.0;
  double test_fraction = 0.0;
  uint64_t seed = 0;  // seeds the split of records and the peaks' negatives
};

/// The rows of PrepareOptions: every flag of `strand prepare`.
const std::vector<app::ConfigKey>& prepare_keys();

/// Writes DIR/sequences.fa + DIR/labels.tsv, or with fractions DIR/{train,valid,test}.{fa,tsv}
/// (stratified by any positive task, seeded), every file atomically and only once every input
/// has been read. A record of positives file t is labelled 1 for task t and 0 for the others; a
/// negatives record 0 for all. Record names are kept when unique across the inputs, else every
/// record is renamed STEM:NAME. Prints what it wrote and the `strand train` command to run.
/// Returns the number of records. Throws ConfigError naming the flag or file for bad input.
int64_t run_prepare(const PrepareOptions& options, std::ostream& log);

/// With --peaks: reads each peak file (validated against the genome), labels their windows per
/// file (data/intervals/peak_tasks.h) and writes DIR/tasks.bed, a BED with the header '#chrom start
/// end TASK...' and one 0/1 column per file, sorted by contig and start, atomically; prints the
/// counts and the `strand train` command. Returns the number of windows. Throws ConfigError
/// naming the flag or file for bad input (fractions are refused: split such a dataset when
/// training, by --valid-chroms/--test-chroms or --valid-fraction/--test-fraction).
int64_t run_prepare_peaks(const PrepareOptions& options, std::ostream& log);

}  // namespace strand::cli
