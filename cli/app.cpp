// Flag definitions (CLI11) for every subcommand and their dispatch.
#include "cli/app.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <iostream>

#include "cli/config_keys.h"
#include "cli/inspect_command.h"
#include "cli/negatives_command.h"
#include "cli/predict_command.h"
#include "cli/prepare_command.h"
#include "cli/presets.h"
#include "cli/run_config.h"
#include "cli/simulate_command.h"
#include "cli/summary_command.h"
#include "cli/train_command.h"
#include "cli/variants_command.h"
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

// A flag setting `key` to the value it reads as a T.
template <typename T>
CLI::Option* key_flag(CLI::App* app, const ConfigKey& key, ConfigOverrides& overrides) {
  return app->add_option_function<T>(
      key.flag, [&overrides, &key](const T& value) { overrides.set(key.key, value); });
}

// "Learning rate (config: optimizer.learning_rate)", with the words of a word key, the value
// of a switch and what changing a data source or optimizer does.
std::string flag_help(const ConfigKey& key) {
  std::string help = key.help;
  if (key.kind() == ConfigKind::kWord) {
    help += fmt::format("; one of {}", fmt::join(key.choices, ", "));
  }
  std::string config = key.key;
  if (key.kind() == ConfigKind::kFlag) config += fmt::format(" = {}", key.switch_value());
  if (key.selects_section()) config += "; a change resets the other " + key.section() + " keys";
  return fmt::format("{} (config: {})", help, config);
}

// The flags of one data source or optimizer are listed together: "Files data".
std::string flag_group(const ConfigKey& key) {
  if (key.only_when.values.size() != 1) return "";
  std::string group = key.only_when.values.front() + " " + key.section();
  group[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(group[0])));
  return group;
}

// A flag for every key of the config key table that has one.
void add_config_flags(CLI::App* app, ConfigOverrides& overrides) {
  for (const ConfigKey& key : config_keys()) {
    if (key.flag.empty()) continue;
    CLI::Option* option = nullptr;
    switch (key.kind()) {
      case ConfigKind::kFlag:
        option = app->add_flag_function(
            key.flag, [&overrides, &key](int64_t) { overrides.set(key.key, key.switch_value()); });
        break;
      case ConfigKind::kInt:
        option = key_flag<int64_t>(app, key, overrides);
        break;
      case ConfigKind::kUnsigned:
        option = key_flag<uint64_t>(app, key, overrides);
        break;
      case ConfigKind::kReal:
        option = key_flag<double>(app, key, overrides);
        break;
      case ConfigKind::kWord:
      case ConfigKind::kText:
      case ConfigKind::kFile:
      case ConfigKind::kDirectory:
      case ConfigKind::kLayerIndices:  // the text "0,3", read by apply_overrides
        option = key_flag<std::string>(app, key, overrides);
        break;
      case ConfigKind::kTrackFiles:  // --profile-bigwigs a.bw plus.bw,minus.bw (or repeated)
        option = key_flag<std::vector<std::string>>(app, key, overrides);
        break;
      case ConfigKind::kModel:
        throw Error(
            fmt::format("{}: the model has no flag (the --model flag names a preset)", key.key));
    }
    option->description(flag_help(key));
    if (const std::string group = flag_group(key); !group.empty()) option->group(group);
  }
}

// The config of a command: the preset (--model), then the file (--config), then the flags.
RunConfig resolve_config(const std::string& config_file, const std::string& preset,
                         const ConfigOverrides& overrides) {
  RunConfig config = !config_file.empty() ? load_config_file(config_file, preset)
                     : !preset.empty()    ? parse_config(nlohmann::json{{"preset", preset}})
                                          : default_config();
  apply_overrides(config, overrides);
  return config;
}

// --model NAME: a preset (configs/<name>.json) as the base of the config.
void add_preset_flag(CLI::App* command, std::string& preset) {
  std::string names;
  for (const Preset& p : presets()) names += fmt::format("\n  {}: {}", p.name, p.summary);
  command
      ->add_option("--model", preset,
                   "A preset model with its published recipe, the base under --config and "
                   "the flags:" +
                       names)
      ->check(CLI::IsMember(preset_names()));
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

constexpr const char* kPredictHelp =
    "Score sequences with a trained model. Input: --fasta with --intervals (labels are copied "
    "when the file has them), --fasta alone (every record a sample of the model's length; "
    "--center for longer ones), --fasta with --tile REGION [--step N], or nothing (the run's "
    "simulated test split). Output TSV: name, chrom, start, end (the window scored), "
    "label_<task>..., then one score per task named by the run's task names; a bedGraph for "
    "tiles";

constexpr const char* kVariantsHelp =
    "Score genetic variants with a trained model. Each ALT of --vcf gets windows of the model's "
    "input length centred on the variant (chrombpnet's rule for indels), one for REF and one for "
    "ALT, and per task ref, alt and diff (alt - ref) of the predictions, log2fc for count "
    "outputs and the Jensen-Shannon distance for profiles. Output: a TSV (id chrom pos ref alt, "
    "then <task>.<score> columns) or the input VCF/BCF with the scores as INFO fields; see "
    "docs/variants.md";

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app(
      "strand: deep learning for DNA sequence models. With no command: strand train, the "
      "reference experiment",
      "strand");
  app.require_subcommand(1);

  // ---- train ----
  CLI::App* train = app.add_subcommand("train", kTrainHelp);
  std::string train_config, train_preset, resume_dir;
  ConfigOverrides train_overrides;
  TrainOptions train_options;
  bool print_config = false;
  train->add_option("--config", train_config, "JSON config file")->check(CLI::ExistingFile);
  add_preset_flag(train, train_preset);
  add_config_flags(train, train_overrides);
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
  CLI::App* predict = app.add_subcommand("predict", kPredictHelp);
  PredictOptions predict_options;
  predict->add_option("--model", predict_options.model, "Run directory or checkpoint file")
      ->required();
  predict->add_option("--config", predict_options.config,
                      "Config to build the model from (default: the run's config.json)");
  predict->add_option("--fasta", predict_options.fasta,
                      "FASTA: the genome of --intervals or --tile, or alone: score every record "
                      "(omit: the simulated test split)");
  predict->add_option("--intervals", predict_options.intervals,
                      "Intervals (bed incl. BED3/BED6, narrowpeak, dream) or records label TSV");
  predict->add_option("--format", predict_options.format,
                      "Format of --intervals: bed, narrowpeak, dream or records (default: the "
                      "run's)");
  predict->add_option("--label-columns", predict_options.label_columns,
                      "bed/narrowpeak label columns copied to the output, 4-167 or 4,6 (default: "
                      "the run's, else bed 4 / narrowpeak 7, when the first interval has labels "
                      "there)");
  predict->add_option("--tile", predict_options.tiles,
                      "Score windows across REGION (chr1, chr1:1-1000000: 1-based inclusive as in "
                      "samtools); repeat for several regions");
  optional_flag(predict, "--step", predict_options.step,
                "Bases between --tile windows, 1 to the window (default: the window)");
  predict->add_flag("--center", predict_options.center,
                    "--fasta alone: score the central window of records longer than the model's "
                    "input (default: such records are an error)");
  predict->add_flag("--rc-average", predict_options.rc_average,
                    "Average each score with the reverse complement's (as DeepSEA)");
  predict->add_option("--out-format", predict_options.out_format,
                      "tsv or bedgraph (--tile only: each window's score on its central --step "
                      "bases); default: bedgraph when --out ends in .bedgraph or .bg");
  predict->add_option("--task", predict_options.task,
                      "bedGraph of a multi-task model: the task to write, by name or index");
  predict->add_option("--output", predict_options.output,
                      "A graph model's output to write (default: its first with one value per "
                      "task, e.g. BPNet's counts)");
  optional_flag(predict, "--window", predict_options.window,
                "Bases per sample, >= 1; records: 0 = their common length (default: the run's)");
  predict
      ->add_option("--out", predict_options.out, "Output TSV or bedGraph, or - for standard output")
      ->required();
  predict->add_option("--batch-size", predict_options.batch_size, "Batch size");
  predict->add_option("--threads", predict_options.threads,
                      "CPU threads, 0 = OMP_NUM_THREADS or all cores");

  // ---- variants ----
  CLI::App* variants = app.add_subcommand("variants", kVariantsHelp);
  VariantsOptions variants_options;
  variants->add_option("--model", variants_options.model, "Run directory or checkpoint file")
      ->required();
  variants->add_option("--config", variants_options.config,
                       "Config to build the model from (default: the run's config.json)");
  variants->add_option("--fasta", variants_options.fasta, "The genome the variants were called on")
      ->required();
  variants
      ->add_option("--vcf", variants_options.vcf,
                   "Variants: VCF (plain or bgzipped), BCF, or chrombpnet's TSV (chrom, 1-based "
                   "pos, ref, alt, optional id; '-' for an empty allele)")
      ->required();
  variants
      ->add_option("--out", variants_options.out,
                   "Scores: .tsv (or - for standard output), .vcf, .vcf.gz (bgzipped, with a "
                   ".tbi) or .bcf (with a .csi): the input records with INFO fields")
      ->required();
  variants->add_option("--output", variants_options.output,
                       "Outputs to score, comma-separated (default: every output of one value per "
                       "task, and every profile)");
  variants->add_option("--task", variants_options.task,
                       "Tasks or profile tracks to score, comma-separated names or indices "
                       "(default: all)");
  variants->add_flag("--rc-average", variants_options.rc_average,
                     "Average each prediction with the reverse complement's");
  variants
      ->add_option("--ref-mismatch", variants_options.ref_mismatch,
                   "REF differing from the FASTA: error (list the first ones), skip, or warn "
                   "(and score with REF)")
      ->check(CLI::IsMember({"error", "skip", "warn"}));
  variants
      ->add_option("--contig-end", variants_options.contig_end,
                   "Windows past a contig end: pad (with N) or skip")
      ->check(CLI::IsMember({"pad", "skip"}));
  variants->add_option("--chrom-alias", variants_options.chrom_alias,
                       "Contig alias file: VARIANTS_NAME<TAB>FASTA_NAME lines");
  variants->add_option("--null-shuffles", variants_options.null_shuffles,
                       "Also score each variant's alleles in N dinucleotide-shuffled backgrounds, "
                       "for empirical p-values of diff, log2fc and jsd (default 0: none)");
  variants->add_option("--seed", variants_options.seed, "Seed of the shuffles");
  variants->add_option("--batch-size", variants_options.batch_size,
                       "Variants per forward pass (two windows each)");
  variants->add_option("--threads", variants_options.threads,
                       "CPU threads, 0 = OMP_NUM_THREADS or all cores");

  // ---- simulate ----
  CLI::App* simulate = app.add_subcommand(
      "simulate",
      "Write a simulated dataset: DragoNN's sequence simulations as {train,valid,test}.{fa,tsv}, "
      "or a ChIP-nexus-like profile dataset as FASTA + bigWigs + narrowPeaks (--list names them)");
  SimulateOptions simulate_options;
  add_simulate_flags(simulate, simulate_options);

  // ---- negatives ----
  CLI::App* negatives = app.add_subcommand(
      "negatives",
      "Draw GC-matched background windows for peaks from a genome (away from peaks and a "
      "blacklist) and write them as a BED; --labelled-out also writes peaks (1) + negatives (0) "
      "to train on");
  NegativesOptions negatives_options;
  negatives->add_option("--fasta", negatives_options.fasta, "Genome FASTA")->required();
  negatives
      ->add_option("--peaks", negatives_options.peaks,
                   "Peaks: BED (3+ columns) or narrowPeak (windows centred on summits)")
      ->required();
  negatives->add_option("--format", negatives_options.format,
                        "bed or narrowpeak (default: narrowpeak for *.narrowPeak)");
  negatives->add_option("--blacklist", negatives_options.blacklist,
                        "BED of regions negatives never overlap");
  negatives->add_option("--ratio", negatives_options.ratio, "Negatives per peak, may be 0.5")
      ->capture_default_str();
  negatives
      ->add_option("--window", negatives_options.window,
                   "Bases of each window (peaks' windows too)")
      ->capture_default_str();
  negatives
      ->add_option("--stride", negatives_options.stride,
                   "Bases between candidate windows (0: the window, so negatives never "
                   "overlap)")
      ->capture_default_str();
  negatives
      ->add_option("--gc-bins", negatives_options.gc_bins,
                   "GC-fraction bins matched (50: bins 0.02 wide)")
      ->capture_default_str();
  negatives
      ->add_option("--max-n-fraction", negatives_options.max_n_fraction,
                   "Largest fraction of N in a negative")
      ->capture_default_str();
  negatives->add_option("--chroms", negatives_options.chroms,
                        "Contigs to draw from, comma-separated (default: all)");
  negatives->add_option("--seed", negatives_options.seed, "Seed")->capture_default_str();
  negatives->add_option("--out", negatives_options.out, "Negatives BED to write")->required();
  negatives->add_option("--labelled-out", negatives_options.labelled_out,
                        "Also write peaks' windows (label 1) and negatives (0) as a BED with a "
                        "'#chrom start end TASK' header, TASK the peak file's stem");

  // ---- prepare ----
  CLI::App* prepare = app.add_subcommand(
      "prepare",
      "Make a labelled dataset and print the strand train command for it: positive and negative "
      "FASTAs become a records dataset (FASTA + label TSV); peak files on a genome (--peaks "
      "--fasta) a multi-task BED, one 0/1 column per file");
  PrepareOptions prepare_options;
  prepare->add_option("--positives", prepare_options.positives,
                      "FASTA of positives; several, comma-separated, are several tasks named by "
                      "their file stems");
  prepare->add_option("--peaks", prepare_options.peaks,
                      "Peak files (narrowPeak or BED) on the --fasta genome, comma-separated: one "
                      "task each, named by their file stems; windows merged across files");
  prepare->add_option("--fasta", prepare_options.fasta, "With --peaks: the genome FASTA");
  prepare->add_option("--format", prepare_options.format,
                      "With --peaks: bed or narrowpeak (default: narrowpeak for *.narrowPeak)");
  prepare
      ->add_option("--window", prepare_options.window,
                   "With --peaks: bases of each window, centred on the summit")
      ->capture_default_str();
  prepare
      ->add_option("--negatives-ratio", prepare_options.negatives_ratio,
                   "With --peaks: GC-matched background windows per window, labelled 0")
      ->capture_default_str();
  prepare->add_option("--blacklist", prepare_options.blacklist,
                      "With --peaks: BED of regions the negatives avoid");
  prepare->add_option("--negatives", prepare_options.negatives,
                      "FASTA of negatives (label 0 for every task)");
  prepare->add_option("--task-names", prepare_options.task_names,
                      "Task names instead of the file stems, comma-separated");
  prepare
      ->add_option("--valid-fraction", prepare_options.valid_fraction,
                   "Fraction of records for validation (stratified, seeded): writes "
                   "train/valid/test files instead of sequences.fa + labels.tsv")
      ->capture_default_str();
  prepare
      ->add_option("--test-fraction", prepare_options.test_fraction,
                   "Fraction of records for the test")
      ->capture_default_str();
  prepare->add_option("--seed", prepare_options.seed, "Seed of the split")->capture_default_str();
  prepare->add_option("--out", prepare_options.out, "Output directory")->required();

  // ---- inspect ----
  CLI::App* inspect = app.add_subcommand(
      "inspect", "Dataset statistics per split: count, mean label, GC, N fraction, lengths");
  std::string inspect_config;
  ConfigOverrides inspect_overrides;
  inspect->add_option("--config", inspect_config, "JSON config file")->check(CLI::ExistingFile);
  add_config_flags(inspect, inspect_overrides);

  // ---- summary ----
  CLI::App* summary = app.add_subcommand("summary", "Print the model table of a config");
  std::string summary_config, summary_preset;
  ConfigOverrides summary_overrides;
  summary->add_option("--config", summary_config, "JSON config file")->check(CLI::ExistingFile);
  add_preset_flag(summary, summary_preset);
  add_config_flags(summary, summary_overrides);

  // ---- layers ----
  CLI::App* layers = app.add_subcommand(
      "layers", "List the layer types a config's model can name, with their options");

  // ---- config-keys ----
  CLI::App* keys = app.add_subcommand(
      "config-keys", "List the keys of a train config with their defaults, ranges and flags");

  // `strand` alone trains the reference experiment, as `strand train` does.
  const char* const train_alone[] = {argc > 0 ? argv[0] : "strand", "train"};
  if (argc <= 1) {
    argc = 2;
    argv = train_alone;
  }
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
        for (const std::string& key : train_overrides.keys()) {
          if (key != "epochs" && key != "threads") {
            throw ConfigError(fmt::format(
                "--resume continues the run's own config.json; {} cannot change (only --epochs "
                "and --threads can)",
                key));
          }
        }
        if (!train_config.empty() || !train_options.run_name.empty() || !train_preset.empty()) {
          throw ConfigError("--resume takes neither --config, --model nor --run-name");
        }
        const TrainResult result =
            resume_train(resume_dir, train_overrides.int_value("epochs"),
                         train_overrides.int_value("threads"), train_options, out);
        return result.exit_code;
      }
      const RunConfig config = resolve_config(train_config, train_preset, train_overrides);
      if (print_config) {
        out << to_json(config).dump(2) << "\n";
        return 0;
      }
      return run_train(config, train_options, out).exit_code;
    } else if (*predict) {
      run_predict(predict_options, out, err);
    } else if (*variants) {
      return run_variants(variants_options, out, err);
    } else if (*simulate) {
      run_simulate(simulate_options, out);
    } else if (*negatives) {
      run_negatives(negatives_options, out);
    } else if (*prepare) {
      run_prepare(prepare_options, out);
    } else if (*inspect) {
      run_inspect(resolve_config(inspect_config, "", inspect_overrides), out);
    } else if (*summary) {
      out << model_summary(resolve_config(summary_config, summary_preset, summary_overrides));
    } else if (*layers) {
      out << layer_catalog_markdown();
    } else if (*keys) {
      out << config_keys_markdown();
    }
  } catch (const std::exception& error) {
    err << "error: " << error.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace strand::cli
