// The run directory: <output_dir>/<run name>/ with config.json, metrics.csv, steps.csv,
// tensorboard/, checkpoints/{best,last}.safetensors and report.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace strand::cli {

struct RunPaths {
  std::filesystem::path root;
  std::filesystem::path config() const { return root / "config.json"; }
  std::filesystem::path metrics() const { return root / "metrics.csv"; }
  std::filesystem::path steps() const { return root / "steps.csv"; }
  std::filesystem::path tensorboard() const { return root / "tensorboard"; }
  std::filesystem::path checkpoints() const { return root / "checkpoints"; }
  std::filesystem::path best_checkpoint() const { return checkpoints() / "best.safetensors"; }
  std::filesystem::path last_checkpoint() const { return checkpoints() / "last.safetensors"; }
  std::filesystem::path report() const { return root / "report.json"; }
  /// The CUDA conv engine's choices and cuDNN algorithms (train/cuda_plans.h).
  std::filesystem::path cuda_plans() const { return root / "cuda_plans.json"; }
};

/// "20240131-142501-seed0": local date-time plus seed.
std::string default_run_name(uint64_t seed);

/// Creates <output_dir>/<name> (name empty: default_run_name). A directory that already holds a
/// run (config.json) is an error pointing at --resume; a taken default name gets a suffix.
RunPaths create_run_directory(const std::filesystem::path& output_dir, const std::string& name,
                              uint64_t seed);

/// Writes pretty-printed JSON atomically.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& value);

/// Keeps the header and the rows whose first column is <= `last_kept` (numeric), dropping the
/// rest and any torn last line; rewrites the file atomically. Returns the rows dropped. A
/// missing file is left missing.
int64_t truncate_csv_rows(const std::filesystem::path& path, double last_kept);

}  // namespace strand::cli
