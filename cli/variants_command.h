// `strand variants`: scores the variants of a VCF/BCF/TSV with a trained model (variants/), as
// a TSV of one row per ALT or the input VCF/BCF with the scores as INFO fields.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "app/config_keys.h"

namespace strand::cli {

struct VariantsOptions {
  std::string model;      // a run directory or a checkpoint file
  std::string config;     // config.json to build the model from (default: the run's)
  bool with_bias = true;  // false: a bias-factorized model without its bias model (--no-bias)
  std::string fasta;      // the genome the variants were called on
  std::string vcf;        // VCF, bgzipped VCF, BCF, or chrombpnet's TSV
  std::string out;        // .tsv (or -), .vcf, .vcf.gz or .bcf
  std::string output;     // outputs to score, comma-separated names; default: every scorable one
  std::string task;  // tasks or tracks to score, comma-separated names or indices; default: all
  bool rc_average = false;
  int64_t threads = 0;         // 0: every core
  std::string device = "cpu";  // where the model runs: cpu or cuda[:N]
  int64_t batch_size = 0;      // variants per pass; 0: 64, on a GPU as many as fit (up to 1024)
  std::string ref_mismatch = "error";  // error, skip or warn
  std::string contig_end = "pad";      // pad or skip
  std::string chrom_alias;             // VARIANTS_NAME<TAB>FASTA_NAME lines
  int64_t null_shuffles = 0;
  uint64_t seed = 1;
  int64_t attributions = 0;      // DeepLIFT/SHAP of the K strongest variants; 0: none
  std::string attributions_out;  // their .npz; default: beside --out
};

/// The rows of VariantsOptions: every flag of `strand variants`.
const std::vector<app::ConfigKey>& variants_keys();

/// Scores every ALT of `vcf` and writes `out` (atomically: nothing is written on an error or
/// an interruption); progress and the summary go to `out` (to `err` with --out -). Returns the
/// exit status: 0, or 128 + the signal when SIGINT/SIGTERM stopped it. Throws ConfigError for
/// a bad flag and DataError for bad input.
int run_variants(const VariantsOptions& options, std::ostream& out, std::ostream& err);

}  // namespace strand::cli
