// `strand motifs`: TF-MoDISco motif discovery from the contribution scores `strand explain`
// writes (motifs/discover.h), into a folder of results (motifs/results_files.h).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "app/config_keys.h"

namespace strand::cli {

/// The settings of `strand motifs`, set by its flags (motifs_keys()).
struct MotifsOptions {
  std::string scores;     ///< X.npz: arr_0, (N, 4, L) hypothetical contributions
  std::string sequences;  ///< one-hot bases; default: <stem>_onehot.npz beside --scores
  std::string out;        ///< the results folder
  std::string motif_db;   ///< a MEME file to match the patterns against; optional
  int64_t threads = 0;
  int64_t max_seqlets = 20000;
  int64_t window = 20;
  int64_t flank = 5;
  double target_fdr = 0.05;
  int64_t leiden_runs = 2;
  int64_t neighbours = 500;
};

/// The settings of `strand motifs hits` (motif_hits_keys(); their rows name the command
/// "motifs-hits").
struct MotifHitsOptions {
  std::string patterns;   ///< a folder `strand motifs` wrote
  std::string scores;     ///< X.npz
  std::string sequences;  ///< default: <stem>_onehot.npz beside --scores
  std::string out;        ///< hits.tsv
  double min_similarity = 0.3;
  int64_t threads = 0;
};

/// The rows of MotifHitsOptions: every flag of `strand motifs hits`.
const std::vector<app::ConfigKey>& motif_hits_keys();

/// Finds the patterns' instances in the scores and writes them as TSV (motifs/hits.h).
void run_motif_hits(const MotifHitsOptions& options, std::ostream& log);

/// The rows of MotifsOptions: every flag of `strand motifs`.
const std::vector<app::ConfigKey>& motifs_keys();

/// Runs the discovery and writes the results; prints each step and a table of the patterns.
/// Throws ConfigError naming the flag or file for bad input.
void run_motifs(const MotifsOptions& options, std::ostream& log);

}  // namespace strand::cli
