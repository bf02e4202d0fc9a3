// RunConfig: everything a `strand train` run is made of (data, model, optimizer, schedule,
// outputs), its JSON form, and strict validation that names the offending key by JSON path.
// The struct fields' initialisers are the defaults; each key's path, range, flag and help are
// declared once in the config key table (cli/config_keys.h), which the functions here follow.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cli/config_error.h"
#include "cli/model_spec.h"
#include "core/error.h"
#include "layers/layer_catalog.h"

namespace strand::cli {

/// The built-in DragoNN-style simulated dataset (data.source = "simulated").
struct SimulatedDataConfig {
  std::string motif = "TAL1_known4";
  std::string motif_file;  // empty: the motif file shipped with strand
  int64_t n_pos = 10000;
  int64_t n_neg = 10000;
  int64_t length = 500;
  double gc_fraction = 0.4;
  int64_t validation = 3200;
  int64_t test = 4000;
};

/// Sequences from files (data.source = "files"), mapped onto data::LoaderConfig. For
/// "records" the interval files are name+label TSVs and the FASTA records are the samples, so
/// each split may need its own FASTA (valid_fasta / test_fasta; empty: `fasta`).
struct FilesDataConfig {
  std::string fasta;
  std::string intervals;
  std::string format = "bed";
  std::string valid_fasta;
  std::string valid_intervals;
  std::string test_fasta;
  std::string test_intervals;
  // Tasks, one file split into train/validation/test, and background negatives (issue 14).
  std::string label_columns;  // 1-based, "4-167" or "4,6,9-12"; empty: the format's default
  std::string task_names;     // "CTCF,JUN", one per label column; empty: the file's names
  std::string valid_chroms;   // "chr8,chr9": their intervals validate
  std::string test_chroms;    // "chr1": their intervals test
  std::string folds;          // a chrombpnet fold JSON: train/valid/test chromosome lists
  double valid_fraction = 0.0;
  double test_fraction = 0.0;
  double negatives_ratio = 0.0;  // GC-matched negatives per peak; 0: none
  std::string blacklist;         // BED of regions negatives avoid
  int64_t window = 1000;
  int64_t jitter = 0;
  double rc_probability = 0.0;
  bool balanced = false;
  bool streaming = false;
  int64_t loader_threads = 2;
  int64_t prefetch = 2;
  // bigWig signal tracks (data/signals/signal_tracks.h): entries "a.bw" (unstranded) or
  // "plus.bw,minus.bw" (a stranded pair); bed and narrowpeak intervals only.
  std::vector<std::string> profile_bigwigs;
  std::vector<std::string> control_bigwigs;
  std::vector<std::string> count_bigwigs;
  int64_t profile_length = 0;      // 0: the window
  std::string targets = "labels";  // or "counts": labels are sums of count (else profile) tracks
};

struct DataConfig {
  std::string source = "simulated";  // "simulated" or "files"
  SimulatedDataConfig simulated;
  FilesDataConfig files;
};

struct OptimizerConfig {
  std::string name = "adam";  // adam, adamw (decoupled weight decay), sgd, rmsprop
  double learning_rate = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;  // adam
  double eps = 1e-7;                  // adam, rmsprop (rmsprop's default is 1e-8)
  double weight_decay = 0.0;
  double momentum = 0.0;   // sgd, rmsprop
  double dampening = 0.0;  // sgd
  bool nesterov = false;   // sgd
  double alpha = 0.99;     // rmsprop
  bool centered = false;   // rmsprop
};

/// A learning-rate schedule (optim/lr_schedule.h, train/lr_callbacks.h).
struct LrScheduleConfig {
  std::string name = "none";       // none, step, cosine, plateau
  int64_t step_size = 1000;        // step: optimizer steps between decays
  double gamma = 0.1;              // step: the factor of each decay
  int64_t warmup_steps = 0;        // cosine: linear warm-up steps before the decay
  double min_learning_rate = 0.0;  // cosine: the final rate; plateau: the lowest rate
  double factor = 0.1;             // plateau: the factor of each reduction
  int64_t patience = 10;           // plateau: epochs without improvement before reducing
};

struct EarlyStoppingConfig {
  bool enabled = true;
  std::string monitor = "val_loss";
  int64_t patience = 3;
  double min_delta = 0.0;
  bool restore_best_weights = true;
};

/// Data-parallel training under mpirun (ignored in a single process).
struct DistributedConfig {
  std::string mode = "mirrored";  // or "averaging"
  double bucket_mb = 25.0;        // gradient bucket size for the mirrored all-reduce
  int64_t average_every = 8;      // averaging mode: local steps between parameter averages
  bool average_optimizer_state = false;
  double timeout_s = 300.0;  // a collective waiting longer aborts the job
};

struct RunConfig {
  /// A preset (cli/presets.h) whose config is the base under this one's keys; empty: none.
  std::string preset;
  DataConfig data;
  ModelSpec model;
  std::string loss = "binary_crossentropy";  // or "mse"
  OptimizerConfig optimizer;
  int64_t batch_size = 128;
  int64_t epochs = 100;
  /// > 0: gradients are clipped to this global L2 norm before every update.
  double clip_grad_norm = 0.0;
  /// > 0: after every update each weight matrix or filter bank has its output units' norms
  /// capped at this (Basset's max-norm 7).
  double max_weight_norm = 0.0;
  LrScheduleConfig lr_schedule;
  EarlyStoppingConfig early_stopping;
  uint64_t seed = 0;
  int64_t threads = 0;  // 0: OMP_NUM_THREADS when set, else every hardware core
  std::string output_dir = "runs";
  int64_t tensorboard_every_steps = 50;
  std::string device = "cpu";
  /// Bit-identical repeats on the same device: no timing-based kernel choices, deterministic
  /// cuDNN algorithms only (tensor/determinism.h).
  bool deterministic = false;
  /// Single-GPU training replays each step from a CUDA graph (train::FitOptions::cuda_graph);
  /// false: every step runs eagerly.
  bool cuda_graph = true;
  /// Float32 matrix math on a GPU: "fp32" (exact float32) or "tf32" (tensor cores, opt-in;
  /// tensor/precision.h).
  std::string precision = "fp32";
  std::string init_weights;     // checkpoint whose weights start training (fine-tuning)
  std::vector<int64_t> freeze;  // layer indices whose parameters are not trained
  DistributedConfig distributed;
};

/// The value of one config key, as the C++ type of its RunConfig field (cli/config_keys.h).
using ConfigValue = std::variant<int64_t, uint64_t, double, bool, std::string, std::vector<int64_t>,
                                 ModelSpec, std::vector<std::string>>;

/// The reference experiment: TAL1 simulation, Conv1D(16, 15) -> ReLU -> GlobalMaxPool1D ->
/// Dense(1) -> Sigmoid, Adam 1e-3, batch 128, early stopping on val_loss (patience 3).
RunConfig default_config();

/// Parses a config object, key by key of the config key table. With a "preset" key the preset's
/// config (cli/presets.h) is the base: the object's keys win, its sections merge into the
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

/// Upper bounds of config numbers, used by the ranges of the config key table. Each number is
/// checked against its range so that no value wraps, overflows a cast or asks for an
/// impossible allocation.
// window, jitter, length (layer options have their bounds in layers/layer_catalog.h)
inline constexpr int64_t kMaxSequenceLength = 10'000'000;
inline constexpr int64_t kMaxCount = 1'000'000'000;  // sequence counts, epochs, patience, steps
inline constexpr int64_t kMaxBatchSize = int64_t{1} << 20;
inline constexpr int64_t kMaxPrefetch = 1024;
inline constexpr int kMinThreadCap = 64;  // max_threads() is never below this

/// std::thread::hardware_concurrency(), at least 1.
int hardware_threads();
/// Largest `threads` and `data.loader_threads`: 4 x hardware_threads(), at least kMinThreadCap.
int max_threads();

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
/// (cli/config_keys.h).
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

}  // namespace strand::cli
