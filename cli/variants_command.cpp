// `strand variants` (cli/variants_command.h): the flags turned into variants::
// VariantScoringOptions, the model's outputs described for scoring, and the summary printed.
#include "cli/variants_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>

#include "cli/config_error.h"
#include "cli/model_builder.h"
#include "cli/run_config.h"
#include "cli/trained_model.h"
#include "data/data_error.h"
#include "data/loader/loader_config.h"
#include "data/signals/signal_tracks.h"
#include "data/text_fields.h"
#include "train/stop_signal.h"
#include "variants/contig_names.h"
#include "variants/score_files.h"
#include "variants/variant_scorer.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;
using variants::OutputKind;
using variants::ScoredOutput;

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    if (end > start) parts.push_back(text.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

// The target an output of a graph trains on ("labels" for a layer list).
std::string output_target(const RunConfig& config, const std::string& name) {
  for (const OutputSpec& spec : config.model.outputs) {
    if (spec.name == name) return spec.target;
  }
  return "labels";
}

// Profile tracks as the run's profile bigWigs name them (file names without .bw), and which
// track each becomes under reverse complement (a plus/minus pair swaps).
void describe_tracks(const RunConfig& config, int64_t tracks, ScoredOutput& output) {
  if (config.data.source != "files") return;
  std::vector<data::TrackGroup> groups;
  try {
    groups = data::parse_track_groups(config.data.files.profile_bigwigs, "profile bigWigs");
  } catch (const data::DataError&) {
    return;
  }
  std::vector<std::string> names;
  std::vector<int64_t> reverse;
  for (const data::TrackGroup& group : groups) {
    const auto first = static_cast<int64_t>(names.size());
    for (size_t f = 0; f < group.files.size(); ++f) {
      std::string stem = fs::path(group.files[f]).filename().string();
      for (const char* extension : {".bigWig", ".bigwig", ".bw"}) {
        if (stem.ends_with(extension)) stem.resize(stem.size() - std::strlen(extension));
      }
      names.push_back(stem);
      reverse.push_back(group.files.size() == 2 ? first + 1 - static_cast<int64_t>(f)
                                                : first + static_cast<int64_t>(f));
    }
  }
  if (static_cast<int64_t>(names.size()) != tracks) return;
  output.task_names = names;
  output.reverse_tracks = reverse;
}

// --task: names or indices; each output keeps the tasks it has among them, and an output left
// with none is not scored.
void select_tasks(const std::string& text, std::vector<ScoredOutput>& outputs) {
  const std::vector<std::string> wanted = split_commas(text);
  std::vector<bool> used(wanted.size(), false);
  for (ScoredOutput& output : outputs) {
    for (size_t w = 0; w < wanted.size(); ++w) {
      const auto named = std::find(output.task_names.begin(), output.task_names.end(), wanted[w]);
      int64_t task = -1;
      if (named != output.task_names.end()) {
        task = named - output.task_names.begin();
      } else if (const auto index = data::parse_int(wanted[w]);
                 index && *index >= 0 && *index < static_cast<int64_t>(output.task_names.size())) {
        task = *index;
      }
      if (task >= 0) {
        output.tasks.push_back(task);
        used[w] = true;
      }
    }
  }
  for (size_t w = 0; w < wanted.size(); ++w) {
    if (used[w]) continue;
    std::vector<std::string> known;
    for (const ScoredOutput& output : outputs) {
      for (const std::string& name : output.task_names) known.push_back(name);
    }
    throw ConfigError(fmt::format(
        "--task: '{}' is neither a task name nor an index of the scored outputs (tasks: {})",
        wanted[w], fmt::join(known, ", ")));
  }
  std::erase_if(outputs, [](const ScoredOutput& output) { return output.tasks.empty(); });
}

// The outputs to score: --output's, else every output of one value per task or a profile.
std::vector<ScoredOutput> scored_outputs(const VariantsOptions& options,
                                         const TrainedModel& trained) {
  const Model& model = *trained.model;
  const std::vector<std::string> names = model.output_names();
  const std::vector<Shape> shapes = model.output_shapes(input_shapes(trained.dimensions));
  std::vector<size_t> chosen;
  if (options.output.empty()) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (shapes[i].size() == 1 || shapes[i].size() == 2) chosen.push_back(i);
    }
    if (chosen.empty()) {
      throw ConfigError(fmt::format(
          "variants: no output of the model gives one value per task or a profile (its outputs: "
          "{})",
          fmt::join(names, ", ")));
    }
  } else {
    for (const std::string& name : split_commas(options.output)) {
      chosen.push_back(find_model_output(model, trained.dimensions, name));
    }
  }
  std::vector<ScoredOutput> outputs;
  for (const size_t index : chosen) {
    ScoredOutput output;
    output.index = index;
    output.name = names[index];
    const Shape& shape = shapes[index];
    const std::string target = output_target(trained.config, names[index]);
    if (shape.size() == 2) {
      output.kind = OutputKind::kProfile;
      describe_tracks(trained.config, shape[0], output);
    } else if (shape.size() == 1) {
      if (target == "log_counts" || target == "log_total_counts") {
        output.kind = OutputKind::kLogCounts;
      } else if (model.output_activation(index) == Activation::kExp) {
        output.kind = OutputKind::kCounts;
      }
      if (static_cast<int64_t>(trained.task_names.size()) == shape[0] &&
          target != "log_total_counts") {
        output.task_names = trained.task_names;
      }
    } else {
      throw ConfigError(fmt::format(
          "--output: '{}' gives ({}) per window; variants are scored on outputs of one value per "
          "task or on profiles (tracks, positions)",
          names[index], fmt::join(shape, ", ")));
    }
    const int64_t count = shape[0];
    if (static_cast<int64_t>(output.task_names.size()) != count) {
      output.task_names.clear();
      for (int64_t t = 0; t < count; ++t) {
        output.task_names.push_back(count == 1 ? output.name
                                               : fmt::format("{}_{}", output.name, t));
      }
    }
    outputs.push_back(std::move(output));
  }
  if (!options.task.empty()) select_tasks(options.task, outputs);
  return outputs;
}

}  // namespace

namespace {

std::string summary_line(const variants::VariantSummary& summary) {
  std::string text = fmt::format("{} record(s), {} ALT allele(s): {} scored", summary.records,
                                 summary.variants, summary.scored);
  if (summary.skipped_total() > 0) {
    std::vector<std::string> reasons;
    for (size_t r = 0; r < variants::kSkipReasons; ++r) {
      if (summary.skipped[r] == 0) continue;
      reasons.push_back(
          fmt::format("{} {}", variants::skip_reason_name(static_cast<variants::SkipReason>(r)),
                      summary.skipped[r]));
    }
    text += fmt::format(", {} skipped ({})", summary.skipped_total(), fmt::join(reasons, ", "));
  }
  if (summary.padded > 0) text += fmt::format(", {} padded with N at a contig end", summary.padded);
  if (summary.ref_mismatches_scored > 0) {
    text += fmt::format(", {} scored despite a REF mismatch", summary.ref_mismatches_scored);
  }
  if (summary.null_pairs > 0) {
    text += fmt::format(", {} allele pairs in shuffled backgrounds", summary.null_pairs);
  }
  return text + fmt::format("; {:.1f} variants/s ({:.1f} s)", summary.variants_per_second(),
                            summary.seconds);
}

}  // namespace

int run_variants(const VariantsOptions& options, std::ostream& out, std::ostream& err) {
  if (options.fasta.empty()) throw ConfigError("--fasta: the genome FASTA is required");
  if (options.vcf.empty()) throw ConfigError("--vcf: the variants file is required");
  if (options.out.empty())
    throw ConfigError("--out: an output path (.tsv, .vcf.gz, .bcf) is required");
  if (options.batch_size < 1) {
    throw ConfigError(fmt::format("--batch-size: must be >= 1, got {}", options.batch_size));
  }
  if (options.threads < 0) {
    throw ConfigError(
        fmt::format("--threads: must be >= 0 (0 = every core), got {}", options.threads));
  }
  if (options.null_shuffles < 0) {
    throw ConfigError(fmt::format("--null-shuffles: must be >= 0, got {}", options.null_shuffles));
  }
  variants::VariantScoringOptions scoring;
  try {
    scoring.ref_mismatch = variants::parse_ref_mismatch_policy(options.ref_mismatch);
  } catch (const Error&) {
    throw ConfigError(
        fmt::format("--ref-mismatch: '{}' is not one of error, skip, warn", options.ref_mismatch));
  }
  try {
    scoring.contig_end = variants::parse_contig_end_policy(options.contig_end);
  } catch (const Error&) {
    throw ConfigError(
        fmt::format("--contig-end: '{}' is not one of pad, skip", options.contig_end));
  }
  std::ostream& log = options.out == "-" ? err : out;
  const TrainedModelFiles files = locate_trained_model(options.model, options.config);
  RunConfig config = load_config_file(files.config);
  if (options.threads > 0) config.threads = options.threads;
  omp_set_num_threads(resolved_threads(config));
  const TrainedModel trained = load_trained_model(files, config, run_input_length(config));

  scoring.outputs = scored_outputs(options, trained);
  scoring.input_length = trained.dimensions.length;
  scoring.control_tracks = trained.dimensions.control_tracks;
  scoring.rc_average = options.rc_average;
  scoring.batch_size = options.batch_size;
  scoring.null_shuffles = options.null_shuffles;
  scoring.seed = options.seed;
  if (!options.chrom_alias.empty()) {
    scoring.contig_aliases = variants::read_contig_aliases(options.chrom_alias);
    scoring.contig_alias_file = options.chrom_alias;
  }
  auto last_report = std::chrono::steady_clock::now();
  scoring.progress = [&log, &last_report](const variants::VariantSummary& figures) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report < std::chrono::seconds(10)) return;
    last_report = now;
    log << fmt::format("variants: {} read, {} scored, {:.1f} variants/s\n", figures.variants,
                       figures.scored, figures.variants_per_second())
        << std::flush;
  };
  // SIGINT/SIGTERM from here on end the run at the next batch; nothing is written.
  std::optional<train::StopSignalGuard> stop_guard(std::in_place);
  std::vector<std::string> described;
  for (const ScoredOutput& output : scoring.outputs) {
    described.push_back(
        fmt::format("{} ({})", output.name, variants::output_kind_name(output.kind)));
  }
  log << fmt::format("variants: {} with {} ({} bp windows; output{} {}){}{}\n", options.vcf,
                     trained.files.checkpoint.string(), scoring.input_length,
                     described.size() == 1 ? "" : "s", fmt::join(described, ", "),
                     options.rc_average ? ", averaged with the reverse complement" : "",
                     options.null_shuffles > 0
                         ? fmt::format(", {} shuffled backgrounds per variant for p-values",
                                       options.null_shuffles)
                         : "")
      << std::flush;
  const std::unique_ptr<variants::VariantScoreSink> sink = variants::open_score_file(
      options.out, &out,
      fmt::format("model={} fasta={} variants={}", trained.files.checkpoint.string(), options.fasta,
                  options.vcf));
  const variants::VariantSummary summary =
      variants::score_variants(*trained.model, options.vcf, options.fasta, *sink, scoring);
  stop_guard.reset();
  if (summary.stop_signal != 0) {
    log << fmt::format("variants: interrupted by {} after {} ALT allele(s); nothing written\n",
                       train::signal_name(summary.stop_signal), summary.variants);
    return train::signal_exit_status(summary.stop_signal);
  }
  log << "variants: " << summary_line(summary) << "\n";
  if (options.out != "-") {
    const variants::ScoreFileFormat format = variants::score_file_format(options.out);
    const char* index = format == variants::ScoreFileFormat::kVcfGz ? " and its .tbi"
                        : format == variants::ScoreFileFormat::kBcf ? " and its .csi"
                                                                    : "";
    log << fmt::format("wrote {}{}\n", options.out, index);
  }
  return 0;
}

const std::vector<ConfigKey>& variants_keys() {
  const std::vector<std::string> variants = {"variants"};
  static const std::vector<ConfigKey> keys = {
      {.key = "model",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.model; }),
       .flag = "--model",
       .help = "Run directory or checkpoint file",
       .commands = variants,
       .required = true},
      {.key = "config",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.config; }),
       .flag = "--config",
       .help = "Config to build the model from (default: the run's config.json)",
       .commands = variants},
      {.key = "fasta",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.fasta; }),
       .flag = "--fasta",
       .help = "The genome the variants were called on",
       .commands = variants,
       .required = true},
      {.key = "vcf",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.vcf; }),
       .flag = "--vcf",
       .help = "Variants: VCF (plain or bgzipped), BCF, or chrombpnet's TSV (chrom, 1-based pos, ref, alt, optional id; '-' for an empty allele)",
       .commands = variants,
       .required = true},
      {.key = "out",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.out; }),
       .flag = "--out",
       .help = "Scores: .tsv (or - for standard output), .vcf, .vcf.gz (bgzipped, with a .tbi) or .bcf (with a .csi): the input records with INFO fields",
       .commands = variants,
       .required = true},
      {.key = "output",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.output; }),
       .flag = "--output",
       .help = "Outputs to score, comma-separated (default: every output of one value per task, and every profile)",
       .commands = variants},
      {.key = "task",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.task; }),
       .flag = "--task",
       .help = "Tasks or profile tracks to score, comma-separated names or indices (default: all)",
       .commands = variants},
      {.key = "rc-average",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.rc_average; }),
       .flag = "--rc-average",
       .help = "Average each prediction with the reverse complement's",
       .commands = variants},
      {.key = "ref-mismatch",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.ref_mismatch; }),
       .choices = {"error", "skip", "warn"},
       .flag = "--ref-mismatch",
       .help = "REF differing from the FASTA: error (list the first ones), skip, or warn (and score with REF)",
       .commands = variants},
      {.key = "contig-end",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.contig_end; }),
       .choices = {"pad", "skip"},
       .flag = "--contig-end",
       .help = "Windows past a contig end: pad (with N) or skip",
       .commands = variants},
      {.key = "chrom-alias",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.chrom_alias; }),
       .flag = "--chrom-alias",
       .help = "Contig alias file: VARIANTS_NAME<TAB>FASTA_NAME lines",
       .commands = variants},
      {.key = "null-shuffles",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.null_shuffles; }),
       .range = IntRange{0, 100000},
       .flag = "--null-shuffles",
       .help = "Also score each variant's alleles in N dinucleotide-shuffled backgrounds, for empirical p-values of diff, log2fc and jsd (0: none)",
       .commands = variants},
      {.key = "seed",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.seed; }),
       .flag = "--seed",
       .help = "Seed of the shuffles",
       .commands = variants},
      {.key = "batch-size",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.batch_size; }),
       .range = data::loader_ranges::kBatchSize,
       .flag = "--batch-size",
       .help = "Variants per forward pass (two windows each)",
       .commands = variants},
      {.key = "threads",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.threads; }),
       .range = IntRange{.lo = 0, .up_to_thread_cap = true},
       .range_note = "0: OMP_NUM_THREADS, else all cores",
       .flag = "--threads",
       .help = "CPU threads",
       .commands = variants},
  };
  return keys;
}

}  // namespace strand::cli
