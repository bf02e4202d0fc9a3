// `strand marginalize`: flags, backgrounds, motifs, and the TSV of effects.
#include "cli/marginalize_command.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <limits>

#include "app/command_paths.h"
#include "app/config_error.h"
#include "app/edit_distance.h"
#include "app/explain_target.h"
#include "app/run_config.h"
#include "app/trained_model.h"
#include "data/data_error.h"
#include "data/meme.h"
#include "data/text_fields.h"
#include "explain/marginalize.h"
#include "explain/references.h"
#include "io/atomic_file.h"
#include "ops/reduction.h"

namespace strand::cli {

using app::build_scoring_split;
using app::check_output_files;
using app::ConfigError;
using app::ConfigKey;
using app::DataSplit;
using app::edit_distance;
using app::field;
using app::load_config_file;
using app::load_sequence_model;
using app::locate_trained_model;
using app::resolve_target;
using app::resolved_threads;
using app::ResolvedTarget;
using app::RunConfig;
using app::scoring_keys;
using app::ScoringInputs;
using app::TrainedModel;
using app::TrainedModelFiles;
using app::usable_device;
namespace {

// The motif `text`: a consensus of ACGT, or the name of a motif of `meme` (its likeliest letters).
std::pair<std::string, std::vector<uint8_t>> motif_of(const std::string& text,
                                                      const std::vector<data::Motif>& meme,
                                                      const std::string& meme_path) {
  if (!meme_path.empty()) {
    size_t best = std::numeric_limits<size_t>::max();
    std::string closest;
    for (const data::Motif& motif : meme) {
      if (motif.name == text) return {motif.name, explain::motif_codes(motif.consensus)};
      const size_t d = edit_distance(text, motif.name);
      if (d < best) {
        best = d;
        closest = motif.name;
      }
    }
    throw ConfigError(fmt::format("--motif: '{}' has no motif '{}'; did you mean '{}'?", meme_path,
                                  text, closest));
  }
  try {
    return {text, explain::motif_codes(text)};
  } catch (const Error& error) {
    throw ConfigError(fmt::format("--motif: {}", error.what()));
  }
}

std::pair<int64_t, int64_t> spacing_range(const std::string& text) {
  const size_t colon = text.find(':');
  const auto first = data::parse_int(text.substr(0, colon));
  const auto last = colon == std::string::npos ? first : data::parse_int(text.substr(colon + 1));
  if (!first || !last || *first > *last) {
    throw ConfigError(fmt::format(
        "--spacing: '{}' is not a range a:b of distances between the motifs' centres (a <= b)",
        text));
  }
  return {*first, *last};
}

}  // namespace

const std::vector<ConfigKey>& marginalize_keys() {
  const std::vector<std::string> marginalize = {"marginalize"};
  static const std::vector<ConfigKey> keys = [&marginalize] {
    std::vector<ConfigKey> rows =
        scoring_keys<MarginalizeOptions>("marginalize", "take the backgrounds from");
    std::vector<ConfigKey> own = {
        {.key = "motif",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.motifs; }),
         .flag = "--motif",
         .help = "A motif to insert: a consensus of A, C, G, T, or with --meme the name of one of "
                 "its motifs (its likeliest letters); twice for a pair with --spacing",
         .commands = marginalize,
         .required = true},
        {.key = "meme",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.meme; }),
         .flag = "--meme",
         .help = "A MEME motif file the --motif names come from",
         .commands = marginalize},
        {.key = "position",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.position; }),
         .flag = "--position",
         .help = "One motif: its first base within each sequence, 1-based (default: centred)",
         .commands = marginalize},
        {.key = "spacing",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.spacing; }),
         .flag = "--spacing",
         .help = "Two motifs: distances a:b between their centres, B after A (negative: before), "
                 "the pair centred; one row per distance and task",
         .commands = marginalize},
        {.key = "backgrounds",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.backgrounds; }),
         .range = IntRange{0, int64_t{1} << 40},
         .range_note = "0: all",
         .flag = "--backgrounds",
         .help = "The first N sequences are the backgrounds",
         .commands = marginalize},
        {.key = "shuffle",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.shuffle; }),
         .flag = "--no-shuffle",
         .help = "Insert into the sequences themselves (default: a dinucleotide shuffle of each, "
                 "which keeps its GC and CpG content but not its motifs)",
         .commands = marginalize},
        {.key = "seed",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.seed; }),
         .flag = "--seed",
         .help = "The shuffles' seed",
         .commands = marginalize},
        {.key = "output",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.output; }),
         .flag = "--output",
         .help = "The model's output (default: its first with one value per task)",
         .commands = marginalize},
        {.key = "task",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.task; }),
         .flag = "--task",
         .help = "One task by name or index (default: every task)",
         .commands = marginalize},
        {.key = "logits",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.logits; }),
         .flag = "--logits",
         .help = "Report logits (before the output's final Sigmoid or Exp), not predictions",
         .commands = marginalize},
        {.key = "out",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.out; }),
         .flag = "--out",
         .help = "The TSV of effects",
         .commands = marginalize,
         .required = true},
        {.key = "batch-size",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.batch_size; }),
         .range = data::loader_ranges::kBatchSize,
         .flag = "--batch-size",
         .help = "Sequences per pass",
         .commands = marginalize},
        {.key = "device",
         .field = field<MarginalizeOptions>([](auto& o) -> auto& { return o.device; }),
         .flag = "--device",
         .help = "Where the model runs: cpu or cuda[:N]; cuda fails clearly where unsupported",
         .commands = marginalize},
    };
    rows.insert(rows.end(), own.begin(), own.end());
    return rows;
  }();
  return keys;
}

namespace {

using NamedMotif = std::pair<std::string, std::vector<uint8_t>>;  // name, base codes

// The motifs of --motif (names looked up in --meme, parsed with file:line errors before any
// model is loaded), with the flags' combinations checked.
std::vector<NamedMotif> given_motifs(const MarginalizeOptions& options) {
  if (options.motifs.empty() || options.motifs.size() > 2) {
    throw ConfigError(fmt::format("--motif: give one motif, or two with --spacing (got {})",
                                  options.motifs.size()));
  }
  const bool pair = options.motifs.size() == 2;
  if (pair && options.spacing.empty()) {
    throw ConfigError("--spacing: two motifs need the distances a:b between their centres");
  }
  if (!pair && !options.spacing.empty()) throw ConfigError("--spacing: goes with two --motif");
  if (pair && !options.position.empty()) {
    throw ConfigError("--position: places a single motif; a pair is centred at each --spacing");
  }
  std::vector<data::Motif> meme;
  if (!options.meme.empty()) {
    try {
      meme = data::read_meme(options.meme);
    } catch (const data::DataError& error) {
      throw ConfigError(fmt::format("--meme: {}", error.what()));
    }
  }
  std::vector<NamedMotif> motifs;
  for (const std::string& text : options.motifs) {
    motifs.push_back(motif_of(text, meme, options.meme));
  }
  return motifs;
}

// Where a single motif starts (0-based): --position, else centred; checked to fit `length`.
int64_t single_motif_start(const MarginalizeOptions& options, const NamedMotif& motif,
                           int64_t length) {
  const auto width = static_cast<int64_t>(motif.second.size());
  if (width > length) {
    throw ConfigError(fmt::format("--motif: '{}' has {} bases; the sequences have {}", motif.first,
                                  width, length));
  }
  if (options.position.empty()) return (length - width) / 2;
  const auto given = data::parse_int(options.position);
  if (!given || *given < 1 || *given + width - 1 > length) {
    throw ConfigError(fmt::format(
        "--position: '{}' does not place the motif's {} bases inside sequences of {} (1 to {})",
        options.position, width, length, length - width + 1));
  }
  return *given - 1;
}

// The spacings of [first, last] a pair is scored at: every one must place both motifs inside
// `length` bases; those at which the motifs overlap are left out (explain::pair_spacings).
std::vector<int64_t> pair_spacings(const std::vector<NamedMotif>& motifs, int64_t first,
                                   int64_t last, int64_t length) {
  try {
    return explain::pair_spacings(length, static_cast<int64_t>(motifs[0].second.size()),
                                  static_cast<int64_t>(motifs[1].second.size()), first, last);
  } catch (const Error& error) {
    throw ConfigError(error.what());
  }
}

// "; spacings -5 to 5 left out: the motifs overlap there", or "" when none is.
std::string overlap_note(const std::vector<int64_t>& spacings, int64_t first, int64_t last) {
  const int64_t left_out = last - first + 1 - static_cast<int64_t>(spacings.size());
  if (left_out == 0) return "";
  // The overlapping spacings are the ones between two kept neighbours (or the range's ends).
  int64_t from = first, to = last;
  for (size_t i = 0; i < spacings.size(); ++i) {
    const int64_t expected = first + static_cast<int64_t>(i);
    if (spacings[i] != expected) {
      from = expected;
      to = spacings[i] - 1;
      break;
    }
    from = spacings[i] + 1;
  }
  return fmt::format("; {} spacing(s) from {} to {} left out: the motifs overlap there", left_out,
                     from, to);
}

// The backgrounds (N, L): the first --backgrounds sequences of `split`, each
// dinucleotide-shuffled unless --no-shuffle.
Tensor background_sequences(const MarginalizeOptions& options, const DataSplit& split) {
  const int64_t length = split.source->length();
  const int64_t n = options.backgrounds == 0 ? split.source->size()
                                             : std::min(options.backgrounds, split.source->size());
  if (n == 0) throw ConfigError("marginalize: the input has no sequences");
  split.source->prepare_workers(1);
  Tensor sequences = Tensor::empty({n, length}, DType::kUInt8);
  for (int64_t i = 0; i < n; ++i) {
    split.source->fetch(i, 0, sequences.data<uint8_t>() + i * length, nullptr, 0);
  }
  if (!options.shuffle) return sequences;
  Tensor backgrounds = Tensor::empty({n, length}, DType::kUInt8);
  const explain::ReferenceFunction shuffle = explain::dinucleotide_shuffles(options.seed);
  for (int64_t i = 0; i < n; ++i) {
    shuffle(i, sequences.data<uint8_t>() + i * length, length, 1,
            backgrounds.data<uint8_t>() + i * length);
  }
  return backgrounds;
}

// One motif's table: each task's mean prediction before and after the insertion.
std::string single_motif_table(const explain::MarginalizeResult& result,
                               const std::vector<std::string>& columns) {
  const Tensor before = ops::mean(result.before, {0}).contiguous();
  const Tensor after = ops::mean(result.after, {0}).contiguous();
  std::string table = "task\tbefore\tafter\teffect\n";
  for (size_t t = 0; t < columns.size(); ++t) {
    const double b = before.data<float>()[t], a = after.data<float>()[t];
    table += fmt::format("{}\t{:.6g}\t{:.6g}\t{:.6g}\n", columns[t], b, a, a - b);
  }
  return table;
}

// A pair's table: per spacing and task, the means with neither, A, B and both motifs, and the
// interaction both - a - b + background.
std::string pair_table(const std::vector<explain::SpacingEffect>& effects,
                       const std::vector<std::string>& columns) {
  std::string table = "spacing\ttask\tbackground\ta\tb\tboth\tinteraction\n";
  for (const explain::SpacingEffect& e : effects) {
    for (size_t t = 0; t < columns.size(); ++t) {
      const double g = e.background.data<float>()[t], a = e.a.data<float>()[t],
                   b = e.b.data<float>()[t], both = e.both.data<float>()[t];
      table += fmt::format("{}\t{}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\n", e.spacing,
                           columns[t], g, a, b, both, both - a - b + g);
    }
  }
  return table;
}

}  // namespace

void run_marginalize(const MarginalizeOptions& options, std::ostream& log) {
  // The table can be written and replaces no input: checked before any work.
  check_output_files({{options.out, "--out"}}, {{options.inputs.fasta, "--fasta"},
                                                {options.inputs.intervals, "--intervals"},
                                                {options.meme, "--meme"},
                                                {options.config, "--config"},
                                                {options.model, "--model"}});
  const Device device = usable_device(options.device, "--device");
  const std::vector<NamedMotif> motifs = given_motifs(options);
  const bool pair = motifs.size() == 2;
  const auto [first_spacing, last_spacing] =
      pair ? spacing_range(options.spacing) : std::pair<int64_t, int64_t>{0, 0};

  const TrainedModelFiles files =
      locate_trained_model(options.model, options.config, !options.with_bias);
  RunConfig config = load_config_file(files.config);
  if (options.threads > 0) config.threads = options.threads;
  omp_set_num_threads(resolved_threads(config));
  ScoringInputs inputs = options.inputs;
  inputs.command = "marginalize";
  const DataSplit split = build_scoring_split(inputs, config);
  const int64_t length = split.source->length();
  TrainedModel trained = load_sequence_model(files, config, length, "marginalize");
  Model& model = *trained.model;
  if (!device.is_cpu()) model.to(device);
  ResolvedTarget resolved =
      resolve_target(trained, options.output, options.task.empty() ? "all" : options.task, false);
  explain::Target target = resolved.target;
  const explain::TargetShape shape = explain::check_target(model, length, target);
  target.activation = !options.logits && !shape.profile;
  const std::vector<std::string> columns =
      target.task < 0 ? resolved.task_names : std::vector<std::string>{resolved.task_label};

  // Where the motifs go, checked before the work.
  const int64_t start = pair ? 0 : single_motif_start(options, motifs[0], length);
  const std::vector<int64_t> spacings =
      pair ? pair_spacings(motifs, first_spacing, last_spacing, length) : std::vector<int64_t>{};

  const Tensor backgrounds = background_sequences(options, split);
  explain::MarginalizeOptions o;
  o.target = target;
  o.batch_size = options.batch_size;
  log << fmt::format("marginalize: {} of output '{}' ({}) on {} {} of {} bp\n",
                     pair ? fmt::format("{} and {} at spacings {} to {}{}", motifs[0].first,
                                        motifs[1].first, first_spacing, last_spacing,
                                        overlap_note(spacings, first_spacing, last_spacing))
                          : fmt::format("{} at position {}", motifs[0].first, start + 1),
                     resolved.output_name, target.activation ? "predictions" : "logits",
                     backgrounds.shape()[0], options.shuffle ? "shuffled backgrounds" : "sequences",
                     length)
      << std::flush;
  const std::string table =
      pair ? pair_table(
                 explain::marginalize_spacing(model, backgrounds, motifs[0].second,
                                              motifs[1].second, first_spacing, last_spacing, o),
                 columns)
           : single_motif_table(
                 explain::marginalize(model, backgrounds, {{motifs[0].second, start}}, o), columns);
  io::write_file_atomically(options.out, table);
  log << fmt::format("wrote {} ({} rows)\n", options.out,
                     std::count(table.begin(), table.end(), '\n') - 1);
}

}  // namespace strand::cli
