// A training run and its continuation: build everything (failing early), wire the callbacks that
// fill the run directory, fit, then evaluate and report.
#include "app/training_run.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>

#include "app/bias_model.h"
#include "app/command_paths.h"
#include "app/data_builder.h"
#include "app/model_builder.h"
#include "app/monitor.h"
#include "app/run_fingerprint.h"
#include "app/unscored_tasks.h"
#include "core/parse_number.h"
#include "core/stop_signal.h"
#include "data/warnings.h"
#include "dist/strategy.h"
#include "io/atomic_file.h"
#include "layers/activations.h"
#include "tensor/cuda_runtime.h"
#include "tensor/determinism.h"
#include "tensor/precision.h"
#include "train/callbacks.h"
#include "train/checkpoint.h"
#include "train/cuda_plans.h"
#include "train/lr_callbacks.h"
#include "train/metric_names.h"
#include "train/partial_epoch.h"

namespace strand::app {

namespace {

// What the first SIGINT/SIGTERM prints while training: fit() checkpoints at the next step.
constexpr const char* kTrainStopMessage =
    "\nstrand: stopping after the current step and saving checkpoints/last.safetensors "
    "(signal again to stop at once)\n";

using Clock = std::chrono::steady_clock;

// Thrown by StopAfterEpochs to leave fit() the way a killed process would: mid-epoch, with
// nothing after the last checkpoint saved on purpose.
struct RunInterrupted {};

class StopAfterEpochs : public train::Callback {
 public:
  explicit StopAfterEpochs(int64_t epochs) : epochs_(epochs) {}
  void on_batch_end(train::FitContext&, const train::BatchLogs& logs) override {
    // A couple of steps of the next epoch reach steps.csv first, so resume must drop them.
    if (logs.epoch == epochs_ &&
        logs.step_in_epoch >= std::min<int64_t>(1, logs.steps_per_epoch - 1)) {
      throw RunInterrupted{};
    }
  }

 private:
  int64_t epochs_;
};

// Testing aid for the signal path: raises SIGTERM in this process after global step N, as a
// scheduler preempting the job then would; the handler's request stops fit() at the next step.
// When step N ends an epoch, the signal comes after that epoch's validation and checkpoints
// (after the last epoch: before the final evaluation).
class RaiseSignalAfterSteps : public train::Callback {
 public:
  explicit RaiseSignalAfterSteps(int64_t steps) : steps_(steps) {}
  void on_batch_end(train::FitContext&, const train::BatchLogs& logs) override {
    if (logs.global_step == steps_ && logs.step_in_epoch + 1 < logs.steps_per_epoch) {
      std::raise(SIGTERM);
    }
  }
  void on_epoch_end(train::FitContext&, const train::EpochLogs& logs) override {
    if (logs.global_step == steps_) std::raise(SIGTERM);
  }

 private:
  int64_t steps_;
};

// A count from the checkpoint's metadata, read in full: "-5" or "1x" is a damaged file.
int64_t metadata_int(const train::CheckpointMetadata& metadata, const std::string& key,
                     const std::filesystem::path& path) {
  auto it = metadata.find(key);
  if (it == metadata.end()) {
    throw ConfigError(
        fmt::format("checkpoint '{}' has no '{}' in its metadata", path.string(), key));
  }
  const std::optional<int64_t> value = parse_int64(it->second);
  if (!value || *value < 0) {
    throw ConfigError(
        fmt::format("checkpoint '{}': metadata '{}' is '{}', expected an integer >= 0",
                    path.string(), key, it->second));
  }
  return *value;
}

// Discards what it is given: ranks other than 0 of a data-parallel run print nothing.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

dist::StrategyConfig strategy_config(const DistributedConfig& d, Device device) {
  dist::StrategyConfig config;
  config.mode = d.mode;
  config.bucket_bytes = static_cast<int64_t>(d.bucket_mb * 1024 * 1024);
  config.average_every = d.average_every;
  config.average_optimizer_state = d.average_optimizer_state;
  config.communicator.timeout =
      std::chrono::milliseconds(static_cast<int64_t>(d.timeout_s * 1000.0));
  config.device = device;
  return config;
}

// Where a run that a signal stopped stands: inside fit() (History::interrupted) or after its
// last epoch, before the final evaluation.
InterruptedReport interrupted_report(const RunPaths& paths, const train::History& history,
                                     const train::FitOptions& fit_options,
                                     int64_t steps_per_epoch) {
  InterruptedReport report;
  report.run_dir = paths.root.string();
  report.steps_per_epoch = steps_per_epoch;
  report.train_seconds = history.seconds;
  if (history.interrupted) {
    report.epochs_completed = history.interrupted->epoch;
    report.steps_in_epoch = history.interrupted->steps;
    report.global_step = history.interrupted->global_step;
  } else {
    report.epochs_completed =
        fit_options.initial_epoch + static_cast<int64_t>(history.epochs.size());
    report.global_step = history.epochs.empty() ? fit_options.initial_global_step
                                                : history.epochs.back().global_step;
    report.evaluation_skipped = true;
  }
  return report;
}

// The callback of config.lr_schedule, or null for "none". Cosine decays to the last step of the
// last epoch; plateau follows the early-stopping monitor.
std::shared_ptr<train::Callback> learning_rate_schedule(const RunConfig& config,
                                                        const std::string& monitor,
                                                        int64_t steps_per_epoch) {
  const LrScheduleConfig& s = config.lr_schedule;
  const double rate = config.optimizer.learning_rate();
  try {
    if (s.name == "step") {
      return std::make_shared<train::LearningRateScheduler>(
          std::make_shared<StepDecay>(rate, s.step));
    }
    if (s.name == "cosine") {
      return std::make_shared<train::LearningRateScheduler>(
          std::make_shared<CosineWithWarmup>(rate, config.fit.epochs * steps_per_epoch, s.cosine));
    }
    if (s.name == "plateau") {
      train::ReduceLROnPlateauOptions options = s.plateau;
      options.monitor = monitor;
      return std::make_shared<train::ReduceLROnPlateau>(options);
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& error) {
    throw ConfigError(fmt::format("lr_schedule: {}", error.what()));
  }
  return nullptr;
}

// Whether the objective scores the labels (a layer list always does; a graph when an output
// trains on them). Count targets are sums of bigWigs, computed per window: not checked here.
bool scores_labels(const RunConfig& config) {
  if (config.data.source == "files" &&
      config.data.files.loader.signals.targets == data::TargetSource::kCounts) {
    return false;
  }
  if (!config.model.graph()) return true;
  return std::any_of(config.model.outputs.begin(), config.model.outputs.end(),
                     [](const OutputSpec& output) { return output.target == "labels"; });
}

// Warns (on the chief) about every task a split cannot score or learn, and returns those of the
// validation and test splits for report.json.
std::map<std::string, std::map<std::string, std::string>> warn_unscorable_tasks(
    const RunConfig& config, const RunData& data, bool chief) {
  std::map<std::string, std::map<std::string, std::string>> unscored;
  if (!scores_labels(config)) return unscored;
  const data::LabelKind kind = training_label_options(config).kind;
  const char* figures =
      kind == data::LabelKind::kBinary ? "auROC and auPRC" : "Pearson and Spearman";
  for (const DataSplit* split : {&data.train, data.validation ? &*data.validation : nullptr,
                                 data.test ? &*data.test : nullptr}) {
    if (split == nullptr) continue;
    for (const auto& [task, why] : unscorable_tasks(*split->source, kind)) {
      if (split->name == "train") {
        if (chief) {
          data::warn(
              fmt::format("the training split's task '{}' has nothing to learn: {}", task, why));
        }
        continue;
      }
      unscored[split->name][task] = why;
      if (chief) {
        data::warn(fmt::format(
            "the {} split's task '{}' cannot be scored: {}; its {} are undefined (null in "
            "report.json, listed under unscored_tasks) and the means over tasks leave it out",
            split->name, task, why, figures));
      }
    }
  }
  return unscored;
}

struct Session {
  RunConfig config;
  RunPaths paths;
  bool resuming = false;
};

// What a session trains, built before the first step so that every config, data and model
// error comes first.
struct Training {
  RunData data;
  DataDimensions dimensions;
  std::shared_ptr<Model> model;
  std::optional<train::Objective> objective;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<data::DataLoader> train_loader;
  std::unique_ptr<data::DataLoader> valid_loader;
  LoaderPlacement placement;
  /// The validation and test splits' tasks that cannot be scored, by split (report.json).
  std::map<std::string, std::map<std::string, std::string>> unscored;
  std::vector<std::string> logged_metrics;  ///< metrics.csv's columns
  std::string monitor;                      ///< the figure early stopping follows
  std::shared_ptr<train::EarlyStopping> early_stopping;
  train::FitOptions fit_options;
  /// A resumed run whose early stopping had already stopped it: only evaluated.
  bool already_stopped = false;
};

// The process's threads and determinism for the run; prints them (and a precision other than
// fp32, which train_session sets). Returns the threads.
int set_up_process(const RunConfig& config, const dist::DistributedRun& run, std::ostream& out) {
  const int threads = resolved_threads(config);
  omp_set_num_threads(threads);
  set_deterministic(config.deterministic || deterministic());
  // The rank's own device (under mpirun each rank drives its own GPU, as its NCCL
  // communicator does).
  out << "device: " << run.device.to_string() << "\n";
  out << "threads: " << threads << (run.world_size > 1 ? " per rank" : "") << "\n";
  if (config.precision != "fp32") out << "precision: " << config.precision << "\n";
  if (run.world_size > 1) {
    out << fmt::format("data-parallel: {} ranks ({}), per-rank batch {}, effective batch {}\n",
                       run.world_size, config.distributed.mode, config.batch_size,
                       config.batch_size * run.world_size);
  }
  return threads;
}

// This rank's shard of the data, and where its batches land.
LoaderPlacement loader_placement(const dist::DistributedRun& run) {
  LoaderPlacement placement;
  placement.rank = run.rank;
  placement.world_size = run.world_size;
  // Batches land in pinned host memory so their copies to the GPU run asynchronously.
  // The device is passed through: loader threads allocate for it, not for GPU 0.
  const Device device = run.device;
  if (device.is_cuda()) {
    CudaRuntime& runtime = cuda_runtime();
    placement.allocator = {
        [&runtime, device](size_t bytes) { return runtime.pinned_allocate(bytes, device); },
        [&runtime](void* pointer, size_t bytes) { runtime.pinned_release(pointer, bytes); }};
  }
  return placement;
}

// The data, the model with its objective and optimizer, and the loaders; prints the data and
// the model table.
Training build_training(const Session& session, const dist::DistributedRun& run,
                        std::ostream& out) {
  const RunConfig& config = session.config;
  Training t;
  t.placement = loader_placement(run);
  t.data = build_run_data(config);
  out << "data: " << t.data.description << "\n";
  out << fmt::format("      train {}, validation {}, test {}\n", t.data.train.source->size(),
                     t.data.validation ? t.data.validation->source->size() : 0,
                     t.data.test ? t.data.test->source->size() : 0);
  t.unscored = warn_unscorable_tasks(config, t.data, run.is_chief());
  manual_seed(config.seed);
  t.dimensions = data_dimensions(*t.data.train.source);
  t.model = build_run_model(config, t.dimensions, session.paths.root);
  // BPNet's counts weight: the median total counts of the training windows, / 10.
  double auto_weight = 1.0;
  if (needs_auto_weight(config.model)) {
    const double median = median_total_counts(*t.data.train.source);
    auto_weight = std::max(median / 10.0, 1e-3);
    out << fmt::format("counts loss weight \"auto\": median total counts {} / 10 = {}\n", median,
                       auto_weight);
  }
  t.objective = build_objective(config, *t.model, t.dimensions, auto_weight);
  if (!config.init_weights.empty() && !session.resuming) {
    try {
      train::load_checkpoint(config.init_weights, *t.model);
    } catch (const std::exception& error) {
      throw ConfigError(fmt::format("init_weights: {}", error.what()));
    }
  }
  freeze_layers(*t.model, config.freeze);
  // Parameters move before the optimizer exists, so its state is created on the same device.
  if (run.device.is_cuda()) t.model->to(run.device);
  t.optimizer = build_optimizer(config.optimizer, *t.model);
  out << "model:\n" << t.model->summary(input_shapes(t.dimensions));
  t.train_loader = make_train_loader(config, t.data, t.placement);
  if (t.data.validation) {
    t.valid_loader = make_eval_loader(*t.data.validation, config.batch_size, 1, t.placement);
  }
  return t;
}

// The figures the run logs, known before training: metrics.csv's columns and what early
// stopping may monitor (a misspelt monitor fails here, not after the first epoch). Early
// stopping doubles as the tracker of the best epoch; disabled, it never stops. Without
// validation data (allowed when early stopping is off) it tracks the training metric of the
// same name: val_loss -> loss.
void set_up_early_stopping(const RunConfig& config, Training& t, std::ostream& out) {
  const std::vector<std::string> training_metrics = train::training_metric_names(*t.objective);
  const std::vector<std::string> evaluation_metrics =
      train::evaluation_keys(*t.model, *t.objective, t.data.train.source->task_names(),
                             t.model->output_shapes(input_shapes(t.dimensions)));
  t.logged_metrics = train::epoch_metric_names(
      training_metrics, t.data.validation ? evaluation_metrics : std::vector<std::string>{});
  const train::EarlyStoppingOptions& es = config.early_stopping.options;
  const MonitorChoice monitor_choice = choose_monitor(
      es.monitor, training_metrics, evaluation_metrics, t.data.validation.has_value());
  t.monitor = monitor_choice.key;
  if (!monitor_choice.note.empty()) out << monitor_choice.note << "\n";
  train::EarlyStoppingOptions options = es;
  options.monitor = t.monitor;
  if (!config.early_stopping.enabled) options.patience = std::numeric_limits<int64_t>::max();
  t.early_stopping = std::make_shared<train::EarlyStopping>(options);
}

// Resume: drops the rows the logs got after the checkpoint (they belong to the epoch being
// redone) and the temporary files killed writes left; prints where the run resumes.
void drop_rows_after_checkpoint(const RunPaths& paths, const Training& t, std::ostream& out) {
  const train::FitOptions& fit = t.fit_options;
  // A process killed while writing leaves "<file>.tmp.XXXXXX" beside the file it wrote.
  int64_t orphans = 0;
  for (const std::filesystem::path& file :
       {paths.config(), paths.report(), paths.metrics(), paths.steps(), paths.last_checkpoint(),
        paths.best_checkpoint(), paths.cuda_plans()}) {
    orphans += io::remove_orphan_temp_files(file);
  }
  if (orphans > 0) {
    out << fmt::format("resume: removed {} temporary file(s) left by interrupted writes\n",
                       orphans);
  }
  const int64_t dropped_epochs = truncate_csv_rows(paths.metrics(), fit.initial_epoch);
  const int64_t dropped_steps =
      truncate_csv_rows(paths.steps(), static_cast<double>(fit.initial_global_step));
  const int64_t steps_done = fit.partial_epoch ? fit.partial_epoch->steps : 0;
  const std::string position =
      steps_done > 0
          ? fmt::format("{} epochs and {} of {} steps of epoch {} done", fit.initial_epoch,
                        steps_done, t.train_loader->steps_per_epoch(), fit.initial_epoch + 1)
          : fmt::format("{} epochs done", fit.initial_epoch);
  out << fmt::format(
      "resume: {} (step {}); dropped {} epoch row(s) and {} step row(s) logged after the "
      "checkpoint\n",
      position, fit.initial_global_step, dropped_epochs, dropped_steps);
}

// Resume: the model, optimizer, early stopping and the position in training from the last
// checkpoint (and the best weights from the best one).
void restore_checkpoint(const Session& session, bool chief, Training& t, std::ostream& out) {
  const RunConfig& config = session.config;
  const std::filesystem::path last = session.paths.last_checkpoint();
  if (!std::filesystem::exists(last)) {
    throw ConfigError(
        fmt::format("--resume: '{}' does not exist (the run saved no epoch yet)", last.string()));
  }
  train::FitOptions& fit = t.fit_options;
  const train::CheckpointMetadata metadata =
      train::load_checkpoint(last, *t.model, t.optimizer.get());
  fit.initial_epoch = metadata_int(metadata, "epochs_completed", last);
  fit.initial_global_step = metadata_int(metadata, "global_step", last);
  // A checkpoint written when a signal stopped the run part-way through an epoch.
  try {
    fit.partial_epoch = train::read_partial_epoch(metadata);
  } catch (const Error& error) {
    throw ConfigError(fmt::format("checkpoint '{}': {}", last.string(), error.what()));
  }
  if (fit.partial_epoch && fit.partial_epoch->steps > t.train_loader->steps_per_epoch()) {
    throw ConfigError(fmt::format(
        "checkpoint '{}' stopped after {} steps of epoch {}, but an epoch has {} steps now: "
        "the training data or batch size changed since",
        last.string(), fit.partial_epoch->steps, fit.initial_epoch + 1,
        t.train_loader->steps_per_epoch()));
  }
  const train::EarlyStoppingOptions& es = config.early_stopping.options;
  std::vector<Tensor> best_weights;
  if (es.restore_best_weights && std::filesystem::exists(session.paths.best_checkpoint())) {
    std::shared_ptr<Model> best = build_run_model(config, t.dimensions, session.paths.root);
    train::load_checkpoint(session.paths.best_checkpoint(), *best);
    for (const Var& p : best->parameters()) best_weights.push_back(p.value().clone());
  }
  try {
    t.early_stopping->restore(metadata, std::move(best_weights));
  } catch (const Error& error) {
    throw ConfigError(fmt::format("checkpoint '{}': {}", last.string(), error.what()));
  }
  t.already_stopped = config.early_stopping.enabled &&
                      metadata_int(metadata, "early_stopping.wait", last) >= es.patience;
  // Rows logged after the checkpoint belong to the epoch being redone (only the chief logs).
  if (chief) drop_rows_after_checkpoint(session.paths, t, out);
  if (t.already_stopped || fit.initial_epoch >= config.fit.epochs) {
    out << "resume: the run had already finished; evaluating it\n";
    fit.epochs = fit.initial_epoch;  // no epoch runs; restores best weights
    fit.partial_epoch.reset();
  }
}

// The callbacks of a session: early stopping and the schedule on every rank; logs, TensorBoard,
// checkpoints and progress on the chief; the testing aids. `tensorboard` is the chief's logger.
std::vector<std::shared_ptr<train::Callback>> session_callbacks(
    const Session& session, bool chief, const Training& t, const TrainOptions& options,
    std::ostream& out, std::shared_ptr<train::TensorBoardLogger>& tensorboard) {
  const RunConfig& config = session.config;
  const RunPaths& paths = session.paths;
  // The data sizes and task names the model was built for travel with its checkpoints, so that
  // `strand predict` rebuilds it for any input (unlabelled files have no tasks to count). And
  // the config and data files, which a resume checks (app/run_fingerprint.h); only the chief
  // writes checkpoints.
  train::CheckpointMetadata model_metadata =
      model_checkpoint_metadata(t.dimensions, t.data.train.source->task_names());
  if (chief) model_metadata.merge(run_fingerprint(config));
  auto metadata = [early_stopping = t.early_stopping, seed = config.seed, model_metadata] {
    train::CheckpointMetadata m = early_stopping->state();
    m["seed"] = std::to_string(seed);
    m.insert(model_metadata.begin(), model_metadata.end());
    return m;
  };
  // Every rank runs early stopping (its decision rests on metrics reduced over ranks, so all
  // ranks stop together) and the learning-rate schedule; only the chief writes logs, events
  // and checkpoints.
  std::vector<std::shared_ptr<train::Callback>> callbacks = {t.early_stopping};
  if (std::shared_ptr<train::Callback> schedule =
          learning_rate_schedule(config, t.monitor, t.train_loader->steps_per_epoch())) {
    callbacks.push_back(schedule);
  }
  if (chief) {
    // Logs come before checkpoints: a crash between them leaves rows past the checkpoint,
    // which resume drops, rather than a checkpointed epoch without its rows.
    callbacks.push_back(std::make_shared<train::CsvEpochLogger>(paths.metrics(), t.logged_metrics));
    callbacks.push_back(std::make_shared<train::StepLossLogger>(paths.steps()));
    tensorboard = std::make_shared<train::TensorBoardLogger>(paths.tensorboard(),
                                                             config.tensorboard_every_steps);
    callbacks.push_back(tensorboard);
    // best.safetensors follows EarlyStopping's best, which survives resumes through its
    // restored state (a fresh tracker would overwrite the true best after a resume).
    auto is_best = [early_stopping = t.early_stopping](const train::EpochLogs& logs) {
      return early_stopping->best_epoch() == logs.epoch;
    };
    callbacks.push_back(std::make_shared<train::ModelCheckpoint>(paths.checkpoints(), t.monitor,
                                                                 true, true, metadata, is_best));
    callbacks.push_back(std::make_shared<train::ProgressLogger>(
        out, options.interactive, options.progress_every_steps, t.logged_metrics));
    callbacks.insert(callbacks.end(), options.callbacks.begin(), options.callbacks.end());
  }
  if (options.stop_after_epochs >= 0) {
    callbacks.push_back(std::make_shared<StopAfterEpochs>(options.stop_after_epochs));
  }
  if (options.signal_after_steps >= 0) {
    callbacks.push_back(std::make_shared<RaiseSignalAfterSteps>(options.signal_after_steps));
  }
  return callbacks;
}

// On a GPU: the test pass's batch sizes join those fit() plans in its warm-up step; the conv
// engine's plans of an earlier session of this run (a resume) and of STRAND_CUDA_PLANS (a file
// shared between runs) are adopted; and the chief saves them back to both after each epoch that
// added some (train/cuda_plans.h). Returns the savers, to run as callbacks.
std::vector<std::shared_ptr<train::Callback>> set_up_cuda_plans(const Session& session,
                                                                const dist::DistributedRun& run,
                                                                const Training& t,
                                                                std::ostream& out) {
  std::vector<std::shared_ptr<train::Callback>> savers;
  if (!run.device.is_cuda()) return savers;
  if (t.data.test) {
    cuda_runtime().plan_conv_batch_sizes(
        eval_batch_sizes(*t.data.test, session.config.batch_size, t.placement), false);
  }
  std::vector<std::filesystem::path> files = {session.paths.cuda_plans()};
  const char* shared = std::getenv("STRAND_CUDA_PLANS");
  if (shared != nullptr && *shared != '\0') files.emplace_back(shared);
  for (const std::filesystem::path& file : files) {
    const std::string warning = train::load_cuda_plans(file, run.device);
    if (!warning.empty()) out << warning << "\n";
    if (run.is_chief()) savers.push_back(std::make_shared<train::CudaPlanSaver>(file, run.device));
  }
  return savers;
}

// A run that a signal stopped (during fit(), or after its last step on any rank): report.json
// says where, and the result carries 128 + the signal. nullopt when training was not stopped.
std::optional<TrainResult> stopped_by_signal(const Session& session,
                                             const dist::DistributedRun& run, const Training& t,
                                             const train::History& history,
                                             Clock::time_point wall_start, std::ostream& out) {
  // A signal after the last step (during validation) skips the final evaluation; with several
  // ranks, every rank takes the same decision.
  bool stop_after_training = !history.interrupted && stop_signal() != 0;
  if (!history.interrupted && run.strategy != nullptr) {
    stop_after_training = run.strategy->sum({stop_after_training ? 1.0 : 0.0})[0] > 0.0;
  }
  if (!history.interrupted && !stop_after_training) return std::nullopt;
  const RunPaths& paths = session.paths;
  // A rank stopped by its peers' request has no signal of its own; SIGTERM is what they got.
  const int signal = stop_signal() != 0 ? stop_signal() : SIGTERM;
  InterruptedReport stopped =
      interrupted_report(paths, history, t.fit_options, t.train_loader->steps_per_epoch());
  stopped.signal = signal_name(signal);
  stopped.wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
  if (run.is_chief()) write_json_file(paths.report(), to_json(stopped));
  out << fmt::format(
      "interrupted by {} after {} epoch(s) and {} of {} steps (step {}){}; saved {}; continue "
      "with: strand train --resume {}\n",
      stopped.signal, stopped.epochs_completed, stopped.steps_in_epoch, stopped.steps_per_epoch,
      stopped.global_step, stopped.evaluation_skipped ? ", before the final evaluation" : "",
      paths.last_checkpoint().string(), paths.root.string());
  TrainResult result;
  result.paths = paths;
  result.interrupted = true;
  result.exit_code = signal_exit_status(signal);
  return result;
}

// The final evaluation of validation and test and the run's report (report.json on the chief,
// printed).
RunReport final_report(const Session& session, const dist::DistributedRun& run, Training& t,
                       const train::History& history, int threads,
                       train::TensorBoardLogger* tensorboard) {
  const RunConfig& config = session.config;
  RunReport report;
  report.run_dir = session.paths.root.string();
  report.device = config.device;
  report.threads = threads;
  report.precision = config.precision;
  report.seed = config.seed;
  report.train_size = t.data.train.source->size();
  report.task_names = t.data.train.source->task_names();
  report.unscored_tasks = t.unscored;
  if (t.objective->terms().size() > 1) {
    const std::vector<std::string> output_names = t.model->output_names();
    for (const size_t output : t.objective->bind(*t.model)) {
      report.term_outputs.push_back(output_names[output]);
    }
  }
  if (t.data.validation) {
    report.validation_size = t.data.validation->source->size();
    report.validation =
        train::evaluate(*t.model, *t.objective, *t.valid_loader, run.strategy.get());
  }
  if (t.data.test) {
    report.test_size = t.data.test->source->size();
    std::unique_ptr<data::DataLoader> test_loader =
        make_eval_loader(*t.data.test, config.batch_size, 1, t.placement);
    report.test = train::evaluate(*t.model, *t.objective, *test_loader, run.strategy.get());
  }
  report.epochs_run = t.fit_options.initial_epoch + static_cast<int64_t>(history.epochs.size());
  // TensorBoard's test run: the final figures at the last epoch's step, beside the curves.
  if (tensorboard != nullptr && report.test) {
    tensorboard->log_evaluation("test", report.test->values, report.epochs_run);
  }
  report.best_epoch = t.early_stopping->best_epoch() + 1;
  report.monitor = t.monitor;
  report.best_value = t.early_stopping->best_value();
  report.stopped_early = history.stopped_early || t.already_stopped;
  report.train_seconds = history.seconds;
  double samples = 0.0, seconds = 0.0;
  for (const train::EpochLogs& logs : history.epochs) {
    samples += logs.get("samples_per_second") * logs.get("epoch_seconds");
    seconds += logs.get("epoch_seconds");
  }
  report.samples_per_second = seconds > 0 ? samples / seconds : 0.0;
  if (report.device.starts_with("cuda")) report.cuda_graph_replays = history.replayed_steps;
  return report;
}

TrainResult train_session(const Session& session, const dist::DistributedRun& run,
                          const TrainOptions& options, std::ostream& chief_out) {
  const auto wall_start = Clock::now();
  const RunConfig& config = session.config;
  const bool chief = run.is_chief();
  NullBuffer null_buffer;
  std::ostream null_out(&null_buffer);
  std::ostream& out = chief ? chief_out : null_out;
  const Float32PrecisionScope precision(parse_float32_precision(config.precision));
  const int threads = set_up_process(config, run, out);
  Training t = build_training(session, run, out);
  set_up_early_stopping(config, t, out);
  t.fit_options = config.fit;
  t.fit_options.strategy = run.strategy.get();
  if (session.resuming) restore_checkpoint(session, chief, t, out);
  std::shared_ptr<train::TensorBoardLogger> tensorboard;
  std::vector<std::shared_ptr<train::Callback>> callbacks =
      session_callbacks(session, chief, t, options, out, tensorboard);
  for (auto& saver : set_up_cuda_plans(session, run, t, out)) callbacks.push_back(saver);
  // SIGINT/SIGTERM (StopSignalGuard, installed by run_train/resume_train) stop at the next step.
  t.fit_options.should_stop = [] { return stop_signal() != 0; };
  out << fmt::format("training: up to {} epochs, batch {}, {} (lr {}), run directory {}\n",
                     config.fit.epochs, config.batch_size, t.optimizer->name(),
                     config.optimizer.learning_rate(), session.paths.root.string());
  TrainResult result;
  result.paths = session.paths;
  train::History history;
  try {
    history = train::fit(*t.model, *t.objective, *t.optimizer, *t.train_loader,
                         t.valid_loader.get(), t.fit_options, callbacks);
  } catch (const RunInterrupted&) {
    out << fmt::format(
        "interrupted after {} epoch(s) (--stop-after-epochs); continue with: "
        "strand train --resume {}\n",
        options.stop_after_epochs, session.paths.root.string());
    result.interrupted = true;
    return result;
  }
  if (std::optional<TrainResult> stopped =
          stopped_by_signal(session, run, t, history, wall_start, out)) {
    return *stopped;
  }
  result.report = final_report(session, run, t, history, threads, tensorboard.get());
  result.report.wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
  if (chief) write_json_file(session.paths.report(), to_json(result.report));
  print_report(out, result.report);
  return result;
}

// What this invocation created, so that a failure removes nothing else.
struct Created {
  bool root = false;        // the run directory itself (else it existed, e.g. --run-name)
  bool output_dir = false;  // output_dir too
  bool may_remove = true;   // false for --resume: the run's earlier epochs are kept
};

// After a failed run: a run that never saved an epoch (no last checkpoint) is removed, so that
// no directory holding only config.json stays behind; otherwise report.json says it failed,
// with the error, and the run stays resumable. Never throws: the run's own error is the one
// to report.
void record_failure(const RunPaths& paths, const std::string& error, const Created& created) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  try {
    if (created.may_remove && !fs::exists(paths.last_checkpoint(), ignored)) {
      if (created.root) {
        fs::remove_all(paths.root, ignored);
      } else {  // a directory the user made: only what this run wrote goes
        for (const fs::path& file :
             {paths.config(), paths.metrics(), paths.steps(), paths.report()}) {
          fs::remove(file, ignored);
        }
        // Event files sit in TensorBoard's run directories (train/, validation/, test/).
        for (const char* run : {"train", "validation", "test"}) {
          const fs::path run_dir = paths.tensorboard() / run;
          std::vector<fs::path> events;
          for (const auto& entry : fs::directory_iterator(run_dir, ignored)) {
            if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0) {
              events.push_back(entry.path());
            }
          }
          for (const fs::path& file : events) fs::remove(file, ignored);
          fs::remove(run_dir, ignored);  // only if empty
        }
        fs::remove(paths.tensorboard(), ignored);  // only if empty
        fs::remove(paths.checkpoints(), ignored);  // only if empty
      }
      if (created.output_dir) fs::remove(paths.root.parent_path(), ignored);  // only if empty
      return;
    }
    nlohmann::json report = failed_report_json(paths.root.string(), error);
    // A resume that fails (e.g. to train longer) keeps the report of the run it continued.
    if (fs::exists(paths.report(), ignored)) {
      std::ifstream in(paths.report());
      nlohmann::json previous = nlohmann::json::parse(in, nullptr, false);
      if (previous.is_object() && previous.contains("previous")) previous = previous["previous"];
      if (previous.is_object() && previous.value("status", "") == "completed") {
        report["previous"] = std::move(previous);
      }
    }
    write_json_file(paths.report(), report);
  } catch (const std::exception&) {
    // Cleaning up must not hide the run's own error, which the caller rethrows.
  }
}

// Runs the session; on an error, records the failure in the run directory (chief only).
TrainResult train_or_record_failure(const Session& session, const dist::DistributedRun& run,
                                    const TrainOptions& options, std::ostream& out,
                                    const Created& created) {
  try {
    return train_session(session, run, options, out);
  } catch (const std::exception& error) {
    if (run.is_chief()) record_failure(session.paths, error.what(), created);
    throw;
  }
}

}  // namespace

TrainResult run_train(const RunConfig& given, const TrainOptions& options, std::ostream& out) {
  // From here on SIGINT/SIGTERM stop training at the next step, after checkpointing.
  const StopSignalGuard stop_signals(kTrainStopMessage);
  check_run_name(options.run_name, "--run-name");
  // config.json must name the same files when --resume runs from another directory.
  const RunConfig config = with_absolute_paths(given);
  validate_training_config(config);
  Session session;
  session.config = config;
  // A dry build first, so a bad model stops before a run directory exists: the simulated data's
  // sizes are known; files are read in the run (a model that names a data size waits for them).
  if (config.data.source == "simulated") {
    DataDimensions simulated;
    simulated.length = static_cast<int64_t>(config.data.simulated.simulation.seq_length);
    simulated.tasks = 1;
    build_objective(config, *build_model(config.model, simulated), simulated);
  }
  const dist::DistributedRun run = dist::make_strategy_from_environment(
      strategy_config(config.distributed, Device::parse(config.device)));
  // Only the chief makes the run directory; the other ranks never write.
  Created created;
  if (run.is_chief()) {
    created.output_dir = !std::filesystem::exists(config.output_dir);
    created.root =
        options.run_name.empty() ||
        !std::filesystem::exists(std::filesystem::path(config.output_dir) / options.run_name);
    session.paths = create_run_directory(config.output_dir, options.run_name, config.seed);
    try {
      write_json_file(session.paths.config(), to_json(config));
      keep_bias_run(config, session.paths.root);  // the run needs it, not the original
    } catch (const std::exception& error) {
      record_failure(session.paths, error.what(), created);
      throw;
    }
  }
  return train_or_record_failure(session, run, options, out, created);
}

TrainResult resume_train(const std::filesystem::path& run_dir, std::optional<int64_t> epochs,
                         std::optional<int64_t> threads, const TrainOptions& options,
                         std::ostream& out) {
  const StopSignalGuard stop_signals(kTrainStopMessage);
  Session session;
  session.paths.root = run_dir;
  session.resuming = true;
  if (!std::filesystem::exists(session.paths.config())) {
    throw ConfigError(
        fmt::format("--resume: '{}' is not a run directory (no config.json)", run_dir.string()));
  }
  session.config = load_config_file(session.paths.config());
  bool changed = false;
  if (epochs) session.config.fit.epochs = *epochs, changed = true;
  if (threads) session.config.threads = *threads, changed = true;
  validate_training_config(session.config);
  // Before anything trains: the config and data must be those the checkpoint was trained with.
  // (A checkpoint that cannot be read fails in the session, which records the failure.)
  if (std::filesystem::exists(session.paths.last_checkpoint())) {
    std::optional<train::CheckpointMetadata> recorded;
    try {
      recorded = train::read_checkpoint_metadata(session.paths.last_checkpoint());
    } catch (const std::exception&) {
      // Left to the session, which reports the damaged checkpoint.
    }
    if (recorded) {
      check_resume_fingerprint(session.config, *recorded, session.paths.last_checkpoint().string());
    }
  }
  const dist::DistributedRun run = dist::make_strategy_from_environment(
      strategy_config(session.config.distributed, Device::parse(session.config.device)));
  if (changed && run.is_chief()) write_json_file(session.paths.config(), to_json(session.config));
  return train_or_record_failure(session, run, options, out, Created{.may_remove = false});
}

}  // namespace strand::app
