// RunConfig: everything a `strand train` run is made of (data, model, optimizer, schedule,
// outputs), its JSON form, and strict validation that names the offending key by JSON path.
// The struct fields' initialisers are the defaults; each key's path, range, flag and help are
// declared once in the config key table (app/config_keys.h), which the functions here follow.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "app/config_error.h"
#include "app/model_spec.h"
#include "app/usable_device.h"
#include "core/device.h"
#include "core/error.h"
#include "core/value_range.h"
#include "data/loader/loader_config.h"
#include "data/simulation/motif_simulation.h"
#include "data/sources/split_sources.h"
#include "layers/layer_catalog.h"
#include "optim/adam.h"
#include "optim/lr_schedule.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
#include "train/callbacks.h"
#include "train/fit.h"
#include "train/lr_callbacks.h"

namespace strand::app {

/// The built-in DragoNN-style simulated dataset (data.source = "simulated"): the motif, and
/// the simulation's own settings (data/simulation/motif_simulation.h; its seed is the run's).
struct SimulatedDataConfig {
  std::string motif = "TAL1_known4";
  std::string motif_file;  // empty: the motif file shipped with strand
  data::MotifSimulationConfig simulation;
};

/// Sequences from files (data.source = "files"): the loader's own settings
/// (data/loader/loader_config.h; the batch size and seed are the run's, below), how one file is
/// split (data/sources/split_sources.h), and the held-out files. For records the interval files
/// are name+label TSVs and the FASTA records are the samples, so each split may need its own
/// FASTA (valid_fasta / test_fasta; empty: `fasta`).
struct FilesDataConfig {
  data::LoaderSettings loader;
  data::SplitConfig split;
  std::string valid_fasta;
  std::string valid_intervals;
  std::string test_fasta;
  std::string test_intervals;
  /// ChromBPNet's bias model trains on non-peaks of low counts: with a peak file here, the
  /// training and validation windows keep those whose total counts are below
  /// bias_threshold_factor x the 1% quantile of the peaks' totals (app/bias_windows.h).
  std::string bias_peaks;
  double bias_threshold_factor = 0.5;
};

struct DataConfig {
  std::string source = "simulated";  // "simulated" or "files"
  SimulatedDataConfig simulated;
  FilesDataConfig files;
};

/// The optimizer by name, and each optimizer's own options (optim/): the keys of the chosen one
/// bind to its struct, so each keeps its own defaults (SGD's learning rate 0.01, RMSprop's eps
/// 1e-8). adamw is Adam with decoupled weight decay.
struct OptimizerConfig {
  std::string name = "adam";  // adam, adamw, sgd, rmsprop
  AdamOptions adam;
  SGDOptions sgd;
  RMSpropOptions rmsprop;

  /// The chosen optimizer's learning rate.
  double learning_rate() const {
    return name == "sgd" ? sgd.learning_rate
                         : (name == "rmsprop" ? rmsprop.learning_rate : adam.learning_rate);
  }
};

/// A learning-rate schedule by name and each schedule's options (optim/lr_schedule.h,
/// train/lr_callbacks.h; the plateau's monitor is early stopping's).
struct LrScheduleConfig {
  std::string name = "none";  // none, step, cosine, plateau
  StepDecayOptions step;
  CosineWithWarmupOptions cosine;
  train::ReduceLROnPlateauOptions plateau;
};

/// Early stopping (train/callbacks.h), which also tracks the best epoch; disabled, it never
/// stops.
struct EarlyStoppingConfig {
  bool enabled = true;
  train::EarlyStoppingOptions options;
};

/// Data-parallel training under mpirun (ignored in a single process). Its own struct because its
/// units are a person's (MB, seconds), not dist::StrategyConfig's (bytes, milliseconds).
struct DistributedConfig {
  std::string mode = "mirrored";  // or "averaging"
  double bucket_mb = 25.0;        // gradient bucket size for the mirrored all-reduce
  int64_t average_every = 8;      // averaging mode: local steps between parameter averages
  bool average_optimizer_state = false;
  double timeout_s = 300.0;  // a collective waiting longer aborts the job
};

/// A `strand train` run: the library's own option structs (the data loader's, fit()'s, each
/// optimizer's and schedule's, early stopping's) and the model, with what only a run has (its
/// seed, threads, device, output directory). The config keys bind to these fields.
struct RunConfig {
  /// A preset (app/presets.h) whose config is the base under this one's keys; empty: none.
  std::string preset;
  DataConfig data;
  ModelSpec model;
  std::string loss = "binary_crossentropy";  // or "mse"
  OptimizerConfig optimizer;
  /// Samples per training step; every loader of the run (simulated or files) takes it.
  int64_t batch_size = 128;
  /// fit()'s settings: epochs, clip_grad_norm, max_weight_norm, cuda_graph (the rest is set by
  /// the run: its strategy, a resume's starting point, the stop signal).
  train::FitOptions fit;
  LrScheduleConfig lr_schedule;
  EarlyStoppingConfig early_stopping;
  /// Seeds the data (simulation, shuffling, augmentation, negatives, splits) and the weights.
  uint64_t seed = 0;
  int64_t threads = 0;  // 0: OMP_NUM_THREADS when set, else every hardware core
  std::string output_dir = "runs";
  int64_t tensorboard_every_steps = 50;
  std::string device = "cpu";
  /// Bit-identical repeats on the same device: no timing-based kernel choices, deterministic
  /// cuDNN algorithms only (tensor/determinism.h).
  bool deterministic = false;
  /// Float32 matrix math: "fp32" (exact float32), "tf32" (GPU tensor cores, opt-in) or "bf16"
  /// (bfloat16 operands, float32 sums, as torch.autocast; tensor/precision.h).
  std::string precision = "fp32";
  std::string init_weights;     // checkpoint whose weights start training (fine-tuning)
  std::vector<int64_t> freeze;  // layer indices whose parameters are not trained
  /// A trained bias model's run (ChromBPNet, app/bias_model.h): frozen, its profile logits added
  /// to the model's and its log counts by log-sum-exp; empty: none.
  std::string bias_model;
  DistributedConfig distributed;
};

/// The value of one config key, as the C++ type of its RunConfig field (app/config_keys.h).
using ConfigValue = std::variant<int64_t, uint64_t, double, bool, std::string, std::vector<int64_t>,
                                 ModelSpec, std::vector<std::string>>;

/// The reference experiment: TAL1 simulation, Conv1D(16, 15) -> ReLU -> GlobalMaxPool1D ->
/// Dense(1) -> Sigmoid, Adam 1e-3, batch 128, early stopping on val_loss (patience 3).
RunConfig default_config();

/// Parses a config object, key by key of the config key table. With a "preset" key the preset's
/// config (app/presets.h) is the base: the object's keys win, its sections merge into the
/// preset's (a data section of another source, an optimizer of another name and the model
/// replace them). Absent keys take their defaults; an unknown key, a wrong type or an invalid enum
/// value throws ConfigError naming the key by its JSON path ("optimizer.learnig_rate: unknown key;
/// expected one of ...").
RunConfig parse_config(const nlohmann::json& json);
/// Reads and parses a JSON config file; errors name the file. A non-empty `preset` replaces the
/// file's "preset" key (the --model flag).
RunConfig load_config_file(const std::filesystem::path& path, const std::string& preset = "");

/// The fully resolved config: every key of the chosen data source and optimizer.
nlohmann::json to_json(const RunConfig& config);

/// The upper bound of config counts (sequence counts, epochs, patience, steps), used by the
/// ranges of the config key table. Each number is checked against its range so that no value
/// wraps, overflows a cast or asks for an impossible allocation; the data loader's ranges are
/// its own (data::loader_ranges), and layer options have theirs in layers/layer_catalog.h.
inline constexpr int64_t kMaxCount = 1'000'000'000;
using data::kMaxBatchSize;
using data::kMaxSequenceLength;

/// Range checks of every number of the config (no file access) from the config key table, and
/// of the checks spanning keys, each failure naming the key, its allowed range and the value:
/// "threads: must be in [0, 64] (...), got 2147483648".
void validate_numbers(const RunConfig& config);

/// Value checks that need the whole config (after flag overrides): validate_numbers(), existing
/// files, known device. Throws ConfigError naming the key.
void validate_config(const RunConfig& config);

/// The config with every file and directory key (data files, motif_file, init_weights,
/// output_dir) made absolute against the current directory, so that a run's config.json still
/// names the same files when --resume runs from another directory.
RunConfig with_absolute_paths(RunConfig config);

/// Whether training needs validation data: early stopping is on and monitors a val_ metric.
/// Otherwise a files run may have none (data.valid_intervals empty); the best checkpoint then
/// follows the training metric of the monitor's name (val_loss -> loss).
bool needs_validation(const RunConfig& config);

/// validate_config() plus what only training needs (a validation file when needs_validation).
void validate_training_config(const RunConfig& config);

/// Threads actually used: config.threads; when 0, OMP_NUM_THREADS (its first level) if set, else
/// the hardware's core count. A malformed OMP_NUM_THREADS throws ConfigError naming it.
int resolved_threads(const RunConfig& config);

/// Command-line flags that override config keys, by the key's JSON path; unset flags leave the
/// config alone. Which flag sets which key is declared in the config key table
/// (app/config_keys.h).
class ConfigOverrides {
 public:
  /// Sets the key at `path` ("data.jitter") to `value`, of the type of its RunConfig field; a
  /// list of layer indices (freeze) may also be given as a flag's text ("0,3"), read when
  /// applied. A later value of a key replaces the earlier one. Throws ConfigError for a path
  /// that is no config key.
  void set(const std::string& path, ConfigValue value);
  /// The value given for `path`, or nullptr.
  const ConfigValue* find(const std::string& path) const;
  /// The integer given for `path`, if any (e.g. --resume's epochs and threads).
  std::optional<int64_t> int_value(const std::string& path) const;
  /// The config keys set, in the order first set, e.g. {"epochs", "data.fasta"}.
  std::vector<std::string> keys() const;

 private:
  std::vector<std::pair<std::string, ConfigValue>> values_;
};

/// Applies the flags to `config` as if their keys were written in its config file, except that
/// a flag of another data source or optimizer (or --optimizer naming another one) starts that
/// section afresh at its defaults, and a flag changing data.format resets the keys whose
/// default depends on it (data.window). Throws ConfigError when flags of two data sources are
/// mixed.
void apply_overrides(RunConfig& config, const ConfigOverrides& overrides);

}  // namespace strand::app
