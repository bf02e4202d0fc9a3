// `strand marginalize`: write a motif into background sequences and report each task's mean
// prediction before and after (in-silico motif insertion, as tangermeme's marginalize); with two
// motifs and --spacing a:b, each spacing's effect of A alone, B alone and both, and their
// interaction (cooperativity, as in the BPNet paper). Backgrounds are dinucleotide shuffles of
// the sequences `strand predict` would score (or those sequences themselves, --no-shuffle).
// Motifs are consensus strings or PWMs from a MEME file (their likeliest letters).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "app/scoring_inputs.h"

namespace strand::cli {

struct MarginalizeOptions {
  std::string model;
  std::string config;
  bool with_bias = true;  // false: a bias-factorized model without its bias model (--no-bias)
  app::ScoringInputs inputs;
  std::vector<std::string> motifs;  // consensus strings, or names of --meme motifs
  std::string meme;                 // a MEME file the motif names come from
  std::string position;             // 1-based start of a single motif; default: centred
  std::string spacing;              // "a:b" centre-to-centre distances of two motifs
  int64_t backgrounds = 100;        // the first N sequences (0: all)
  bool shuffle = true;              // false: insert into the sequences themselves
  uint64_t seed = 0;                // the shuffles' seed
  std::string output;               // the model's output
  std::string task;                 // a task, or all (default: every task in the table)
  bool logits = false;              // report logits, not predictions
  std::string out;                  // the TSV
  int64_t batch_size = 256;
  int64_t threads = 0;
  std::string device = "cpu";  // where the model runs: cpu or cuda[:N]
};

/// The rows of MarginalizeOptions: every flag of `strand marginalize`.
const std::vector<app::ConfigKey>& marginalize_keys();

/// Runs `strand marginalize`; messages go to `log`. Throws ConfigError naming the flag, file or
/// line for bad input (an unparsable MEME file, a motif letter outside ACGT, a spacing beyond
/// the sequence), writing nothing then.
void run_marginalize(const MarginalizeOptions& options, std::ostream& log);

}  // namespace strand::cli
