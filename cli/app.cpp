// Flag definitions (CLI11) for every subcommand and their dispatch.
#include "cli/app.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "cli/inspect_command.h"
#include "cli/predict_command.h"
#include "cli/run_config.h"
#include "cli/simulate_command.h"
#include "cli/summary_command.h"
#include "cli/train_command.h"
#include "core/parse_number.h"
#include "data/warnings.h"
#include "layers/layer_catalog.h"

namespace strand::cli {
namespace {

template <typename T>
CLI::Option* optional_flag(CLI::App* app, const std::string& name, std::optional<T>& target,
                           const std::string& help) {
  return app->add_option_function<T>(
      name, [&target](const T& value) { target = value; }, help);
}

CLI::Option* switch_flag(CLI::App* app, const std::string& name, std::optional<bool>& target,
                         bool value, const std::string& help) {
  return app->add_flag_function(
      name, [&target, value](int64_t) { target = value; }, help);
}

std::vector<int64_t> parse_index_list(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const std::optional<int64_t> index = parse_int64(item);
    if (!index) {
      throw ConfigError(
          fmt::format("--freeze: '{}' is not a layer index (e.g. --freeze 0,3)", item));
    }
    out.push_back(*index);
  }
  return out;
}

void add_config_flags(CLI::App* app, ConfigOverrides& o, std::string& freeze_text) {
  optional_flag(app, "--epochs", o.epochs, "Maximum epochs (config: epochs)");
  optional_flag(app, "--batch-size", o.batch_size, "Batch size (config: batch_size)");
  optional_flag(app, "--lr", o.learning_rate, "Learning rate (config: optimizer.learning_rate)");
  optional_flag(app, "--optimizer", o.optimizer,
                "adam, sgd or rmsprop (config: optimizer.name; resets its other options)");
  optional_flag(app, "--loss", o.loss, "binary_crossentropy or mse (config: loss)");
  optional_flag(app, "--seed", o.seed, "Seed of data, initialisation and shuffling (config: seed)");
  optional_flag(app, "--threads", o.threads,
                "CPU threads, 0 = OMP_NUM_THREADS or all cores (config: threads)");
  optional_flag(app, "--output-dir", o.output_dir,
                "Parent of the run directory (config: output_dir)");
  optional_flag(app, "--device", o.device,
                "cpu or cuda[:N]; cuda fails clearly where unsupported (config: device)");
  optional_flag(app, "--patience", o.patience,
                "Early-stopping patience in epochs (config: early_stopping.patience)");
  switch_flag(app, "--deterministic", o.deterministic, true,
              "Bit-identical repeats on one device: no timed kernel choices, deterministic "
              "cuDNN algorithms (config: deterministic)");
  switch_flag(app, "--no-early-stopping", o.early_stopping, false,
              "Train all epochs (config: early_stopping.enabled = false)");
  optional_flag(app, "--tensorboard-every", o.tensorboard_every_steps,
                "Step scalars every N steps, 0 = epoch scalars only (config: "
                "tensorboard_every_steps)");
  optional_flag(app, "--init-weights", o.init_weights,
                "Start from this checkpoint's weights, fine-tuning (config: init_weights)");
  app->add_option("--freeze", freeze_text,
                  "Comma-separated layer indices not to train, e.g. 0,3 (config: freeze)");
  const std::string files = "Files data";
  optional_flag(app, "--fasta", o.fasta, "Training FASTA (config: data.fasta)")->group(files);
  optional_flag(app, "--intervals", o.intervals,
                "Training intervals (bed/narrowpeak/dream) or, for records, the NAME<TAB>LABEL "
                "TSV (config: data.intervals)")
      ->group(files);
  optional_flag(app, "--valid-fasta", o.valid_fasta,
                "Validation FASTA, default --fasta (config: data.valid_fasta)")
      ->group(files);
  optional_flag(app, "--valid-intervals", o.valid_intervals,
                "Validation intervals/labels; needed only when early stopping monitors a val_ "
                "metric (config: data.valid_intervals)")
      ->group(files);
  optional_flag(app, "--test-fasta", o.test_fasta,
                "Test FASTA, default --fasta (config: data.test_fasta)")
      ->group(files);
  optional_flag(app, "--test-intervals", o.test_intervals,
                "Test intervals/labels (config: data.test_intervals)")
      ->group(files);
  optional_flag(app, "--format", o.format,
                "bed, narrowpeak, dream or records (config: data.format)")
      ->group(files);
  optional_flag(app, "--window", o.window,
                "Bases per sample; records: 0 = their common length (config: data.window)")
      ->group(files);
  optional_flag(app, "--jitter", o.jitter, "Random shift of training windows (config: data.jitter)")
      ->group(files);
  optional_flag(app, "--rc", o.rc_probability,
                "Reverse-complement probability in training (config: data.rc_probability)")
      ->group(files);
  switch_flag(app, "--balanced", o.balanced, true,
              "Half positives per training batch (config: data.balanced)")
      ->group(files);
  switch_flag(app, "--streaming", o.streaming, true,
              "Read windows from the FASTA per sample (config: data.streaming)")
      ->group(files);
  optional_flag(app, "--loader-threads", o.loader_threads,
                "Data loader threads (config: data.loader_threads)")
      ->group(files);
  const std::string sim = "Simulated data";
  optional_flag(app, "--motif", o.motif, "Motif name (config: data.motif)")->group(sim);
  optional_flag(app, "--n-pos", o.n_pos, "Sequences with the motif (config: data.n_pos)")
      ->group(sim);
  optional_flag(app, "--n-neg", o.n_neg, "Background sequences (config: data.n_neg)")->group(sim);
  optional_flag(app, "--length", o.length, "Sequence length (config: data.length)")->group(sim);
  optional_flag(app, "--gc-fraction", o.gc_fraction, "Background GC (config: data.gc_fraction)")
      ->group(sim);
  optional_flag(app, "--validation", o.validation, "Validation sequences (config: data.validation)")
      ->group(sim);
  optional_flag(app, "--test", o.test, "Test sequences (config: data.test)")->group(sim);
}

RunConfig resolve_config(const std::string& config_file, ConfigOverrides overrides,
                         const std::string& freeze_text) {
  RunConfig config = config_file.empty() ? default_config() : load_config_file(config_file);
  if (!freeze_text.empty()) overrides.freeze = parse_index_list(freeze_text);
  apply_overrides(config, overrides);
  return config;
}

constexpr const char* kTrainHelp =
    "Train a model. With no arguments: the reference experiment (simulated TAL1_known4 data, "
    "Conv1D(16,15)-ReLU-GlobalMaxPool1D-Dense(1)-Sigmoid, Adam 1e-3, batch 128, early stopping "
    "on val_loss). --config FILE reads a JSON config (see configs/reference.json; unknown keys "
    "are errors); flags override it. Each run writes <output_dir>/<run name>/: config.json, "
    "metrics.csv, steps.csv, tensorboard/, checkpoints/{best,last}.safetensors, report.json. "
    "Simulated data written by `strand simulate --out D` trains with: --format records "
    "--fasta D/train.fa --intervals D/train.tsv --valid-fasta D/valid.fa --valid-intervals "
    "D/valid.tsv --test-fasta D/test.fa --test-intervals D/test.tsv";

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app("strand: deep learning for DNA sequence models", "strand");
  app.require_subcommand(1);

  // ---- train ----
  CLI::App* train = app.add_subcommand("train", kTrainHelp);
  std::string train_config, train_freeze, resume_dir;
  ConfigOverrides train_overrides;
  TrainOptions train_options;
  bool print_config = false;
  train->add_option("--config", train_config, "JSON config file")->check(CLI::ExistingFile);
  add_config_flags(train, train_overrides, train_freeze);
  train->add_option("--run-name", train_options.run_name,
                    "Run directory name (default: date-time + seed)");
  train->add_option("--resume", resume_dir,
                    "Continue an interrupted run from RUN_DIR/checkpoints/last.safetensors with "
                    "RUN_DIR/config.json (only --epochs and --threads may change)");
  train->add_option("--stop-after-epochs", train_options.stop_after_epochs,
                    "Testing aid: stop as if killed early in epoch N+1, after N epochs' "
                    "checkpoints (then --resume)");
  train->add_option("--signal-after-steps", train_options.signal_after_steps,
                    "Testing aid: raise SIGTERM in this process after global step N (at an "
                    "epoch's end: after its validation), as a preempting scheduler would (then "
                    "--resume)");
  train->add_flag("--print-config", print_config,
                  "Print the resolved config as JSON and exit without training");

  // ---- predict ----
  CLI::App* predict = app.add_subcommand(
      "predict", "Score sequences with a trained model; writes NAME, label(s), score(s) as TSV");
  PredictOptions predict_options;
  predict->add_option("--model", predict_options.model, "Run directory or checkpoint file")
      ->required();
  predict->add_option("--config", predict_options.config,
                      "Config to build the model from (default: the run's config.json)");
  predict->add_option("--fasta", predict_options.fasta, "FASTA (omit both: simulated test split)");
  predict->add_option("--intervals", predict_options.intervals, "Intervals or records label TSV");
  predict->add_option("--format", predict_options.format,
                      "bed, narrowpeak, dream or records (default: the run's)");
  optional_flag(predict, "--window", predict_options.window,
                "Bases per sample, >= 1; records: 0 = their common length (default: the run's)");
  predict->add_option("--out", predict_options.out, "Output TSV, or - for standard output")
      ->required();
  predict->add_option("--batch-size", predict_options.batch_size, "Batch size");
  predict->add_option("--threads", predict_options.threads,
                      "CPU threads, 0 = OMP_NUM_THREADS or all cores");

  // ---- simulate ----
  CLI::App* simulate = app.add_subcommand(
      "simulate", "Write a simulated single-motif dataset as {train,valid,test}.{fa,tsv}");
  SimulateOptions simulate_options;
  simulate->add_option("--motif", simulate_options.data.motif, "Motif name")->capture_default_str();
  simulate->add_option("--motif-file", simulate_options.data.motif_file,
                       "ENCODE-format motif file (default: the shipped one)");
  simulate->add_option("--n-pos", simulate_options.data.n_pos, "Sequences with the motif")
      ->capture_default_str();
  simulate->add_option("--n-neg", simulate_options.data.n_neg, "Background sequences")
      ->capture_default_str();
  simulate->add_option("--length", simulate_options.data.length, "Sequence length")
      ->capture_default_str();
  simulate->add_option("--gc-fraction", simulate_options.data.gc_fraction, "Background GC")
      ->capture_default_str();
  simulate->add_option("--validation", simulate_options.data.validation, "Validation sequences")
      ->capture_default_str();
  simulate->add_option("--test", simulate_options.data.test, "Test sequences")
      ->capture_default_str();
  simulate->add_option("--seed", simulate_options.seed, "Seed")->capture_default_str();
  simulate->add_option("--out", simulate_options.out, "Output directory")->required();

  // ---- inspect ----
  CLI::App* inspect = app.add_subcommand(
      "inspect", "Dataset statistics per split: count, mean label, GC, N fraction, lengths");
  std::string inspect_config, inspect_freeze;
  ConfigOverrides inspect_overrides;
  inspect->add_option("--config", inspect_config, "JSON config file")->check(CLI::ExistingFile);
  add_config_flags(inspect, inspect_overrides, inspect_freeze);

  // ---- summary ----
  CLI::App* summary = app.add_subcommand("summary", "Print the model table of a config");
  std::string summary_config, summary_freeze;
  ConfigOverrides summary_overrides;
  summary->add_option("--config", summary_config, "JSON config file")->check(CLI::ExistingFile);
  add_config_flags(summary, summary_overrides, summary_freeze);

  // ---- layers ----
  CLI::App* layers = app.add_subcommand(
      "layers", "List the layer types a config's model can name, with their options");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      app.exit(e, out, err);  // --help
      return 0;
    }
    err << "error: " << e.what() << "\n";
    return e.get_exit_code() != 0 ? 2 : 0;
  }

  // Data-layer warnings (e.g. a rebuilt FASTA index) go where this command's errors go.
  const data::ScopedWarningHandler warnings(
      [&err](std::string_view message) { err << "warning: " << message << "\n"; });
  try {
    if (*train) {
      train_options.interactive = &out == &std::cout && isatty(STDOUT_FILENO);
      if (!resume_dir.empty()) {
        std::vector<std::string> keys = train_overrides.keys();
        if (!train_freeze.empty()) keys.push_back("freeze");
        for (const std::string& key : keys) {
          if (key != "epochs" && key != "threads") {
            throw ConfigError(fmt::format(
                "--resume continues the run's own config.json; {} cannot change (only --epochs "
                "and --threads can)",
                key));
          }
        }
        if (!train_config.empty() || !train_options.run_name.empty()) {
          throw ConfigError("--resume takes neither --config nor --run-name");
        }
        const TrainResult result = resume_train(resume_dir, train_overrides.epochs,
                                                train_overrides.threads, train_options, out);
        return result.exit_code;
      }
      const RunConfig config = resolve_config(train_config, train_overrides, train_freeze);
      if (print_config) {
        out << to_json(config).dump(2) << "\n";
        return 0;
      }
      return run_train(config, train_options, out).exit_code;
    } else if (*predict) {
      run_predict(predict_options, out, err);
    } else if (*simulate) {
      run_simulate(simulate_options, out);
    } else if (*inspect) {
      run_inspect(resolve_config(inspect_config, inspect_overrides, inspect_freeze), out);
    } else if (*summary) {
      out << model_summary(resolve_config(summary_config, summary_overrides, summary_freeze));
    } else if (*layers) {
      out << layer_catalog_markdown();
    }
  } catch (const std::exception& error) {
    err << "error: " << error.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace strand::cli
