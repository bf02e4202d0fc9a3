// The commands of the strand program: their flags (from the key tables), parsing with CLI11,
// and dispatch.
#include "cli/program.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <variant>
#include <vector>

#include "app/config_keys.h"
#include "app/config_source.h"
#include "app/presets.h"
#include "app/run_config.h"
#include "cli/command_flags.h"
#include "cli/explain_command.h"
#include "cli/inspect_command.h"
#include "cli/marginalize_command.h"
#include "cli/motifs_command.h"
#include "cli/negatives_command.h"
#include "cli/predict_command.h"
#include "cli/prepare_command.h"
#include "cli/signal_command.h"
#include "cli/simulate_command.h"
#include "cli/summary_command.h"
#include "cli/train_command.h"
#include "cli/variants_command.h"
#include "core/parse_number.h"
#include "core/stop_signal.h"
#include "data/warnings.h"
#include "layers/layer_catalog.h"

namespace strand::cli {

using app::apply_overrides;
using app::config_keys_markdown;
using app::config_source_keys;
using app::ConfigKey;
using app::ConfigOverrides;
using app::ConfigSource;
using app::default_config;
using app::field;
using app::resolve_config;
using app::RunConfig;
namespace {

// The number a flag's text spells in full, checked before CLI11 converts it: CLI11 reads
// integers with strtoll/strtoull, which clamp an out-of-range value (--seed 2^64 became 2^64 - 1)
// and let "-1" wrap to 2^64 - 1 for an unsigned flag. Returns an error, or "" when `text` is a
// number of the kind `type` (CLI11's type name: INT, UINT or FLOAT) names.
std::string number_text_error(const std::string& type, const std::string& text) {
  if (type == "UINT") {
    uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (!text.empty() && text[0] != '-' && error == std::errc() && stop == end) return "";
    return fmt::format("'{}' is not an integer in [0, {}]", text,
                       std::numeric_limits<uint64_t>::max());
  }
  if (type == "INT") {
    if (parse_int64(text)) return "";
    return fmt::format("'{}' is not an integer in [{}, {}]", text,
                       std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  }
  const std::optional<double> value = parse_double(text);
  if (value && std::isfinite(*value)) return "";
  return fmt::format(
      "'{}' is not a finite number within a double's range (magnitudes about 2.2e-308 to "
      "1.8e308, or 0)",
      text);
}

// Every integer and real flag of `app` and its commands reads its text in full first.
void check_number_flags(CLI::App* app) {
  for (CLI::Option* option : app->get_options()) {
    // get_type_name() appends the validators' descriptions ("INT:..."); the type comes first.
    const std::string full = option->get_type_name();
    const std::string type = full.substr(0, full.find(':'));
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    option->check(CLI::Validator(
        [type](std::string& text) { return number_text_error(type, text); }, "", "number"));
  }
  for (CLI::App* command : app->get_subcommands({})) check_number_flags(command);
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
    "input length centred on the variant (chrombpnet's rule for indels), one for REF and one "
    "for ALT, and per task ref, alt and diff (alt - ref) of the predictions, log2fc for count "
    "outputs and the Jensen-Shannon distance for profiles. Output: a TSV (id chrom pos ref alt, "
    "then <task>.<score> columns) or the input VCF/BCF with the scores as INFO fields; see "
    "docs/variants.md";

constexpr const char* kSignalHelp =
    "Turn reads into a base-resolution accessibility track: SAM/BAM/CRAM or 10x fragments to a "
    "bigWig of enzyme cuts per base (chrombpnet's ATAC/DNase shift, read filters, a blacklist), "
    "and the motif around the cuts that checks the shift; see docs/signal.md";

// `strand config-keys`'s own flag.
struct ConfigKeysFlags {
  std::string command;  // a command whose flags to list; empty: the config keys
};

const std::vector<ConfigKey>& config_keys_keys() {
  static const std::vector<ConfigKey> keys = {
      {.key = "command",
       .field = field<ConfigKeysFlags>([](auto& f) -> auto& { return f.command; }),
       .choices = command_names(),
       .flag = "--command",
       .help = "List this command's flags instead (its section of docs/config.md)",
       .commands = {"config-keys"}},
  };
  return keys;
}

// Every command's settings, as its flags set them (only the command run is parsed).
struct CommandSettings {
  ConfigSource source;        // train, inspect, summary: --config, --model
  ConfigOverrides overrides;  // the run config's flags of the command
  TrainFlags train;
  PredictOptions predict;
  ExplainOptions explain;
  MarginalizeOptions marginalize;
  VariantsOptions variants;
  MotifsOptions motifs;
  MotifHitsOptions motif_hits;
  SimulateOptions simulate;
  NegativesOptions negatives;
  PrepareOptions prepare;
  SignalOptions signal;
  ConfigKeysFlags config_keys;
};

// A command of the program: its name, its help, and what it does with its settings.
struct Command {
  const char* name;
  const char* help;
  std::function<int(CommandSettings&, std::ostream& out, std::ostream& err)> run;
  /// Long work that SIGINT/SIGTERM stop at its next poll (core/stop_signal.h): the command
  /// then writes nothing and exits 128 + signal. train handles the signals itself
  /// (checkpointing first); the short commands keep the default action.
  bool stops_on_signal = false;
};

// `strand motifs` (its subcommand `hits`: motif_hits_command()).
Command motifs_command() {
  return {"motifs",
          "Discover motifs in contribution scores as TF-MoDISco does: seqlets, patterns "
          "clustered with Leiden, written as motifs.meme, patterns.npz, seqlets.tsv, "
          "modisco-lite's HDF5 results and report.html (docs/motifs.md)",
          [](CommandSettings& s, std::ostream& out, std::ostream&) {
            run_motifs(s.motifs, out);
            return 0;
          },
          true};
}

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"train", kTrainHelp,
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         s.train.run.interactive = &out == &std::cout && isatty(STDOUT_FILENO);
         return run_train_command(s.source, s.overrides, s.train, out);
       }},
      {"predict", kPredictHelp,
       [](CommandSettings& s, std::ostream& out, std::ostream& err) {
         run_predict(s.predict, out, err);
         return 0;
       },
       true},
      {"variants", kVariantsHelp,
       [](CommandSettings& s, std::ostream& out, std::ostream& err) {
         return run_variants(s.variants, out, err);
       },
       true},
      {"explain",
       "Explain a trained model's predictions: in-silico saturation mutagenesis (ism), "
       "DeepLIFT/SHAP, gradient or input x gradient for the sequences predict scores, written as "
       ".npz (TF-MoDISco's layout), .tsv or .bw; --plot draws a logo",
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         run_explain(s.explain, out);
         return 0;
       },
       true},
      motifs_command(),
      {"marginalize",
       "Insert a motif into background sequences and report each task's mean prediction before "
       "and after; two motifs with --spacing a:b report their interaction at each distance",
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         run_marginalize(s.marginalize, out);
         return 0;
       },
       true},
      {"simulate",
       "Write a simulated dataset: DragoNN's sequence simulations as {train,valid,test}.{fa,tsv}, "
       "or a ChIP-nexus-like profile dataset as FASTA + bigWigs + narrowPeaks (--list names "
       "them)",
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         RunConfig config = default_config();
         apply_overrides(config, s.overrides);
         run_simulate(s.simulate, config, out);
         return 0;
       },
       true},
      {"negatives",
       "Draw GC-matched background windows for peaks from a genome (away from peaks and a "
       "blacklist) and write them as a BED; --labelled-out also writes peaks (1) + negatives (0) "
       "to train on",
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         run_negatives(s.negatives, out);
         return 0;
       },
       true},
      {"prepare",
       "Make a labelled dataset and print the strand train command for it: positive and negative "
       "FASTAs become a records dataset (FASTA + label TSV); peak files on a genome (--peaks "
       "--fasta) a multi-task BED, one 0/1 column per file",
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         run_prepare(s.prepare, out);
         return 0;
       },
       true},
      {"signal", kSignalHelp,
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         run_signal(s.signal, out);
         return 0;
       },
       true},
      {"inspect", "Dataset statistics per split: count, mean label, GC, N fraction, lengths",
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         run_inspect(resolve_config(s.source, s.overrides), out);
         return 0;
       }},
      {"summary", "Print the model table of a config",
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         out << model_summary(resolve_config(s.source, s.overrides));
         return 0;
       }},
      {"layers", "List the layer types a config's model can name, with their options",
       [](CommandSettings&, std::ostream& out, std::ostream&) {
         out << layer_catalog_markdown();
         return 0;
       }},
      {"config-keys",
       "List the keys of a train config with their defaults, ranges and flags, and every "
       "command's flags",
       [](CommandSettings& s, std::ostream& out, std::ostream&) {
         out << (s.config_keys.command.empty() ? config_keys_markdown()
                                               : command_flags_markdown(s.config_keys.command));
         return 0;
       }},
  };
  return list;
}

// `strand motifs hits`: a command of its own under `strand motifs` (its rows name
// "motifs-hits").
const Command& motif_hits_command() {
  static const Command command = {
      "motifs-hits",
      "Find the instances of the patterns of a strand motifs folder in contribution scores: "
      "seqlets called as strand motifs calls them, each labelled with its best-matching pattern "
      "of its sign (Jaccard of the trimmed CWM at the best offset and strand), written as TSV",
      [](CommandSettings& s, std::ostream& out, std::ostream&) {
        run_motif_hits(s.motif_hits, out);
        return 0;
      },
      true};
  return command;
}

// The flags of `command`, from the key tables, setting `settings`.
CommandFlags flags_of(const std::string& command, CommandSettings& settings) {
  CommandFlags flags(command);
  flags.options(config_source_keys(), settings.source)
      .options(train_keys(), settings.train)
      .options(predict_keys(), settings.predict)
      .options(explain_keys(), settings.explain)
      .options(marginalize_keys(), settings.marginalize)
      .options(variants_keys(), settings.variants)
      .options(motifs_keys(), settings.motifs)
      .options(motif_hits_keys(), settings.motif_hits)
      .options(simulate_keys(), settings.simulate)
      .options(negatives_keys(), settings.negatives)
      .options(prepare_keys(), settings.prepare)
      .options(signal_keys(), settings.signal)
      .options(config_keys_keys(), settings.config_keys)
      .config(settings.overrides);
  if (command == "simulate") flags.record_given(settings.simulate.given_flags);
  return flags;
}

// Parses argv into `settings`; returns the command given, or the exit status of a parse that
// ends the program (--help: 0; a flag's syntax: 2; a flag's value: 1).
std::variant<const Command*, int> parse(int argc, const char* const* argv,
                                        CommandSettings& settings, std::ostream& out,
                                        std::ostream& err) {
  CLI::App app(
      "strand: deep learning for DNA sequence models. With no command: strand train, the "
      "reference experiment",
      "strand");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, const Command*>> subcommands;
  for (const Command& command : commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.help);
    flags_of(command.name, settings).add_to(sub);
    subcommands.emplace_back(sub, &command);
    if (std::string(command.name) == "motifs") {  // checked before `motifs` itself
      CLI::App* hits = sub->add_subcommand("hits", motif_hits_command().help);
      flags_of(motif_hits_command().name, settings).add_to(hits);
      subcommands.emplace(subcommands.begin(), hits, &motif_hits_command());
    }
  }
  check_number_flags(&app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      app.exit(e, out, err);  // --help
      return 0;
    }
    err << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    err << "error: " << error.what() << "\n";
    return 1;
  }
  for (const auto& [sub, command] : subcommands) {
    if (*sub) return command;
  }
  return 2;
}

}  // namespace

std::string command_flags_markdown(const std::string& command) {
  CommandSettings defaults;
  return flags_of(command, defaults).markdown();
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Command& command : commands()) names.push_back(command.name);
  return names;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  // `strand` alone trains the reference experiment, as `strand train` does.
  const char* const train_alone[] = {argc > 0 ? argv[0] : "strand", "train"};
  if (argc <= 1) {
    argc = 2;
    argv = train_alone;
  }
  CommandSettings settings;
  const std::variant<const Command*, int> parsed = parse(argc, argv, settings, out, err);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  // Data-layer warnings (e.g. a rebuilt FASTA index) go where this command's errors go.
  const data::ScopedWarningHandler warnings(
      [&err](std::string_view message) { err << "warning: " << message << "\n"; });
  const Command& command = *std::get<const Command*>(parsed);
  try {
    std::optional<StopSignalGuard> stop_guard;
    if (command.stops_on_signal) stop_guard.emplace();
    return command.run(settings, out, err);
  } catch (const Interrupted& stopped) {
    // The temporary files went with the stack; nothing was published.
    err << fmt::format("{}: interrupted by {}; nothing written\n", command.name,
                       signal_name(stopped.signal()));
    return signal_exit_status(stopped.signal());
  } catch (const std::exception& error) {
    err << "error: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace strand::cli
