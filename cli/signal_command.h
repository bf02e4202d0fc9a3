// `strand signal`: reads (SAM/BAM/CRAM or a 10x-style fragment file) to a bigWig of enzyme cut
// counts per base, with the assay's shift, read filters and a blacklist, and the cut motif that
// checks the shift (data/reads/cut_signal.h).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/config_keys.h"
#include "data/reads/cut_signal.h"

namespace strand::cli {

/// The settings of `strand signal`, set by its flags (signal_keys()).
struct SignalOptions {
  std::string reads;                        // SAM/BAM/CRAM or fragment file
  std::optional<data::ReadsFormat> format;  // default: detected from the file
  std::string fasta;                        // the genome
  std::optional<data::Assay> assay;         // required
  std::optional<int64_t> shift_plus;        // default: the assay's (data::default_cut_shift)
  std::optional<int64_t> shift_minus;
  int64_t min_mapq = 0;
  bool keep_duplicates = false;
  bool proper_pairs_only = false;
  std::string blacklist;  // BED; optional
  bool stranded = false;
  std::string out;  // bigWig
  int64_t motif_width = 24;
};

/// The rows of SignalOptions: every flag of `strand signal`.
const std::vector<app::ConfigKey>& signal_keys();

/// Writes the track(s) and the cut motif, and prints what was read, kept and dropped, the shift
/// used, the motif report and the files written. Throws ConfigError naming the flag or file for
/// bad input.
data::CutSignalSummary run_signal(const SignalOptions& options, std::ostream& log);

}  // namespace strand::cli
