// `strand prepare`: positive and negative FASTAs into a labelled records dataset (FASTA + label
// TSV with a header) that `strand train --format records` reads, whole or split by fractions.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace strand::cli {

struct PrepareOptions {
  std::string positives;   // FASTAs, comma-separated: one task each, named by the file stem
  std::string negatives;   // FASTA of negatives for every task; optional with several tasks
  std::string task_names;  // names for the tasks instead of the stems, comma-separated
  std::string out;         // the output directory
  double valid_fraction = 0.0;
  double test_fraction = 0.0;
  uint64_t seed = 0;
};

/// Writes DIR/sequences.fa + DIR/labels.tsv, or with fractions DIR/{train,valid,test}.{fa,tsv}
/// (stratified by any positive task, seeded), every file atomically and only once every input
/// has been read. A record of positives file t is labelled 1 for task t and 0 for the others; a
/// negatives record 0 for all. Record names are kept when unique across the inputs, else every
/// record is renamed STEM:NAME. Prints what it wrote and the `strand train` command to run.
/// Returns the number of records. Throws ConfigError naming the flag or file for bad input.
int64_t run_prepare(const PrepareOptions& options, std::ostream& log);

}  // namespace strand::cli
