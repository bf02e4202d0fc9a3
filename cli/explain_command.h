// `strand explain`: attributions of a trained model's predictions for the sequences
// `strand predict` scores (FASTA records, intervals of a genome, tiles): in-silico saturation
// mutagenesis, DeepLIFT/SHAP, gradient or input x gradient (explain/), written as the extension of
// each --out says: .npz (hypothetical contributions (N, 4, L) as "arr_0", the layout
// TF-MoDISco-lite reads, with the one-hot sequences in <stem>_onehot.npz beside it), .tsv (one
// row per base) or .bw (a bigWig of each base's score). Results stream to the files a batch at a
// time, so memory stays flat however many sequences there are.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "app/scoring_inputs.h"

namespace strand::cli {

struct ExplainOptions {
  std::string model;      // a run directory or a checkpoint file
  std::string config;     // config.json to build the model from (default: the run's)
  bool with_bias = true;  // false: a bias-factorized model without its bias model (--no-bias)
  app::ScoringInputs inputs;
  std::string method;             // ism, deeplift_shap, gradient, input_x_gradient
  std::vector<std::string> outs;  // .npz, .tsv, .bw files
  std::string output;             // the model's output; default: its first (B, T) output
  std::string task;               // name, index or "all"; default: the only task
  bool predictions = false;       // after the output's final Sigmoid/Exp (not logits)
  std::string positions;          // ism: "START-END", 1-based inclusive within each sequence
  std::string ism_path = "auto";  // auto, fast, brute
  int64_t references = 20;        // deeplift_shap: shuffles per sequence
  uint64_t seed = 0;              // deeplift_shap: the shuffles' seed
  std::string reference_fasta;    // deeplift_shap: references from a FASTA instead
  std::string save_references;    // deeplift_shap: write the references as a FASTA
  std::string deviations;         // deeplift_shap: per-sequence convergence TSV
  std::string plot;               // a logo of one sequence as SVG
  std::string plot_sequence;      // its name or 0-based index; default: the first
  std::string plot_range;      // "START-END" 1-based inclusive; default: 80 bases around the peak
  int64_t batch_size = 0;      // 0: the method's default
  int64_t threads = 0;         // 0: every core
  std::string device = "cpu";  // where the model runs: cpu or cuda[:N]
};

/// The rows of ExplainOptions: every flag of `strand explain`.
const std::vector<app::ConfigKey>& explain_keys();

/// Runs `strand explain`; messages go to `log`. Returns the number of sequences explained.
/// Throws ConfigError naming the flag, file or line for bad input (nothing is written then) and
/// Error for a model op without a DeepLIFT rule.
int64_t run_explain(const ExplainOptions& options, std::ostream& log);

}  // namespace strand::cli
