// The batch size and thread count of one scoring call (`strand predict` and `strand explain`;
// strand.Model.predict and strand.explain's functions): their defaults and their one rule, so
// the CLI's flags, Python's keyword arguments and C++ callers are checked alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace strand::app {

/// predict's batch: sequences per pass (`strand predict --batch-size`, Model.predict's
/// batch_size).
inline constexpr int64_t kPredictBatchSize = 256;

/// explain's batch for `method` when none is given, on the CPU: 256 mutants for ism, else 64
/// sequences (or sequence-reference pairs for deeplift_shap). (`strand explain` on a GPU runs
/// ISM with as many mutants as fit.)
int64_t default_explain_batch(const std::string& method);

/// How a caller's messages name the settings: the CLI's flags by default.
struct PassOptionNames {
  std::string batch_size = "--batch-size";
  std::string threads = "--threads";

  /// The names of the Python API's keyword arguments: batch_size, threads.
  static PassOptionNames keyword_names();
};

/// Items per pass and the OpenMP threads of one scoring call.
struct PassOptions {
  int64_t batch_size = kPredictBatchSize;
  std::optional<int64_t> threads;  ///< none: as set (the CLI: every core)

  /// Throws ConfigError naming the setting (by `names`) for a batch size outside
  /// [1, data::kMaxBatchSize] or a thread count outside [1, the thread cap].
  void validate(const PassOptionNames& names = {}) const;
};

}  // namespace strand::app
