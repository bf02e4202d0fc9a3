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

#include "app/command_paths.h"
#include "app/config_error.h"
#include "app/model_builder.h"
#include "app/run_config.h"
#include "app/scoring_inputs.h"
#include "app/trained_model.h"
#include "app/variant_outputs.h"
#include "app/variant_scoring.h"
#include "core/stop_signal.h"
#include "data/data_error.h"
#include "data/loader/loader_config.h"
#include "data/signals/signal_tracks.h"
#include "data/text_fields.h"
#include "variants/contig_names.h"
#include "variants/score_files.h"
#include "variants/variant_attributions.h"
#include "variants/variant_scorer.h"

namespace strand::cli {

using app::check_input_file;
using app::check_output_files;
using app::ConfigError;
using app::ConfigKey;
using app::field;
using app::load_config_file;
using app::load_trained_model;
using app::locate_trained_model;
using app::resolved_threads;
using app::run_input_length;
using app::RunConfig;
using app::TrainedModel;
using app::TrainedModelFiles;
using app::usable_device;
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
  if (summary.monomorphic > 0) {
    text += fmt::format(", {} record(s) without an ALT ('.', monomorphic) skipped",
                        summary.monomorphic);
  }
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

namespace {

// The flags that say how to score, as the application layer's request.
app::VariantScoringRequest scoring_request(const VariantsOptions& options) {
  return {.outputs = split_commas(options.output),
          .tasks = split_commas(options.task),
          .rc_average = options.rc_average,
          .batch_size = options.batch_size > 0 ? std::optional(options.batch_size) : std::nullopt,
          .ref_mismatch = options.ref_mismatch,
          .contig_end = options.contig_end,
          .chrom_alias = options.chrom_alias,
          .null_shuffles = options.null_shuffles,
          .seed = options.seed};
}

// --attributions-out, else --out's name with its extensions replaced by .attributions.npz.
std::string attributions_path(const VariantsOptions& options) {
  if (!options.attributions_out.empty()) return options.attributions_out;
  if (options.out == "-") {
    throw ConfigError("--attributions: give --attributions-out FILE.npz when --out is -");
  }
  std::string stem = options.out;
  for (const char* extension : {".gz", ".vcf", ".bcf", ".tsv"}) {
    if (stem.ends_with(extension)) stem.resize(stem.size() - std::strlen(extension));
  }
  return stem + ".attributions.npz";
}

// DeepLIFT/SHAP of the strongest variants, written beside the scores (an .npz and its .tsv).
void write_attributions(const VariantsOptions& options, const TrainedModel& trained,
                        const variants::VariantScoringOptions& scoring,
                        const variants::StrongestVariants& strongest, std::ostream& log) {
  const std::vector<variants::StrongVariant> chosen = strongest.strongest();
  variants::VariantAttributionOptions attribution;
  attribution.input_length = scoring.input_length;
  attribution.seed = options.seed;
  attribution.contig_aliases = scoring.contig_aliases;
  const variants::VariantAttributions result =
      variants::attribute_variants(*trained.model, options.fasta, chosen, attribution);
  const std::string npz = attributions_path(options);
  std::string tsv = npz;
  if (tsv.ends_with(".npz")) tsv.resize(tsv.size() - 4);
  tsv += ".tsv";
  variants::write_variant_attributions(npz, tsv, chosen, result);
  log << fmt::format("wrote {} and {} (DeepLIFT/SHAP of the {} strongest variants)\n", npz, tsv,
                     chosen.size());
}

// The checks of the flags' paths, before any work: the inputs are files, every output can be
// written and replaces no input, and --attributions-out goes with --attributions.
void check_variants_paths(const VariantsOptions& options) {
  if (options.fasta.empty()) throw ConfigError("--fasta: the genome FASTA is required");
  if (options.vcf.empty()) throw ConfigError("--vcf: the variants file is required");
  if (options.out.empty())
    throw ConfigError("--out: an output path (.tsv, .vcf.gz, .bcf) is required");
  if (!options.attributions_out.empty() && options.attributions == 0) {
    throw ConfigError(
        "--attributions-out: names the file of --attributions N (DeepLIFT/SHAP of the N "
        "strongest variants), which is not given; add --attributions N, or leave "
        "--attributions-out out");
  }
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {options.fasta, "--fasta"},
      {options.vcf == "-" ? "" : options.vcf, "--vcf"},
      {options.chrom_alias, "--chrom-alias"},
      {options.config, "--config"},
      {options.model, "--model"}};
  for (const auto& [path, option] : inputs) {
    if (option != "--model") check_input_file(path, option);
  }
  std::vector<std::pair<std::string, std::string>> outputs;
  if (options.out != "-") outputs.emplace_back(options.out, "--out");
  if (options.attributions > 0) {
    const std::string npz = attributions_path(options);
    outputs.emplace_back(npz, "--attributions-out");
    outputs.emplace_back(
        npz.substr(0, npz.ends_with(".npz") ? npz.size() - 4 : npz.size()) + ".tsv",
        "--attributions-out (its .tsv)");
  }
  check_output_files(outputs, inputs);
}

}  // namespace

int run_variants(const VariantsOptions& options, std::ostream& out, std::ostream& err) {
  check_variants_paths(options);  // before the work
  const Device device = usable_device(options.device, "--device");
  std::ostream& log = options.out == "-" ? err : out;
  const TrainedModelFiles files =
      locate_trained_model(options.model, options.config, !options.with_bias);
  RunConfig config = load_config_file(files.config);
  if (options.threads > 0) config.threads = options.threads;
  omp_set_num_threads(resolved_threads(config));
  const TrainedModel trained = load_trained_model(files, config, run_input_length(config));
  if (!device.is_cpu()) trained.model->to(device);
  variants::VariantScoringOptions scoring =
      app::variant_scoring_options(scoring_request(options), trained, device);
  auto last_report = std::chrono::steady_clock::now();
  scoring.progress = [&log, &last_report](const variants::VariantSummary& figures) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report < std::chrono::seconds(10)) return;
    last_report = now;
    log << fmt::format("variants: {} read, {} scored, {:.1f} variants/s\n", figures.variants,
                       figures.scored, figures.variants_per_second())
        << std::flush;
  };
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
  // With --attributions the scores are published only after the attributions are written.
  variants::StrongestVariants strongest(*sink, options.attributions, scoring.outputs);
  variants::VariantScoreSink& target =
      options.attributions > 0 ? static_cast<variants::VariantScoreSink&>(strongest) : *sink;
  const variants::VariantSummary summary =
      variants::score_variants(*trained.model, options.vcf, options.fasta, target, scoring);
  // SIGINT/SIGTERM (the guard run_cli installs) end the scoring at the next batch; nothing is
  // written.
  if (summary.stop_signal != 0) {
    log << fmt::format("variants: interrupted by {} after {} ALT allele(s); nothing written\n",
                       signal_name(summary.stop_signal), summary.variants);
    return signal_exit_status(summary.stop_signal);
  }
  log << "variants: " << summary_line(summary) << "\n";
  if (options.attributions > 0) {
    write_attributions(options, trained, scoring, strongest, log);
    strongest.commit_inner();
  }
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
      app::no_bias_key<VariantsOptions>(variants),
      {.key = "fasta",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.fasta; }),
       .flag = "--fasta",
       .help = "The genome the variants were called on",
       .commands = variants,
       .required = true},
      {.key = "vcf",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.vcf; }),
       .flag = "--vcf",
       .help = "Variants: VCF (plain or bgzipped), BCF, or chrombpnet's TSV (chrom, 1-based pos, "
               "ref, alt, optional id; '-' for an empty allele)",
       .commands = variants,
       .required = true},
      {.key = "out",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.out; }),
       .flag = "--out",
       .help = "Scores: .tsv (or - for standard output), .vcf, .vcf.gz (bgzipped, with a .tbi) or "
               ".bcf (with a .csi): the input records with INFO fields",
       .commands = variants,
       .required = true},
      {.key = "output",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.output; }),
       .flag = "--output",
       .help = "Outputs to score, comma-separated (default: every output of one value per task, "
               "and every profile)",
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
       .help = "REF differing from the FASTA: error (list the first ones), skip, or warn (and "
               "score with REF)",
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
       .help = "Also score each variant's alleles in N dinucleotide-shuffled backgrounds, for "
               "empirical p-values of diff, log2fc and jsd (0: none)",
       .commands = variants},
      {.key = "attributions",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.attributions; }),
       .range = IntRange{0, 10000},
       .range_note = "0: none",
       .flag = "--attributions",
       .help = "DeepLIFT/SHAP (20 dinucleotide shuffles) of the ref and alt windows of the K "
               "variants of largest |diff| (jsd for profiles), for the output and task of that "
               "score, explaining logits: an .npz of one-hot and hypothetical contributions "
               "(K, 4, L) per allele, TF-MoDISco's layout, and a .tsv listing them",
       .commands = variants},
      {.key = "attributions-out",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.attributions_out; }),
       .flag = "--attributions-out",
       .help = "The .npz of --attributions (its .tsv beside it)",
       .commands = variants,
       .unset = "--out's name with .attributions.npz"},
      {.key = "seed",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.seed; }),
       .flag = "--seed",
       .help = "Seed of the shuffles (null backgrounds, --attributions references)",
       .commands = variants},
      {.key = "batch-size",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.batch_size; }),
       .range = IntRange{0, data::kMaxBatchSize},
       .range_note = "0: 64, on a GPU as many as fit (up to 1024)",
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
      {.key = "device",
       .field = field<VariantsOptions>([](auto& o) -> auto& { return o.device; }),
       .flag = "--device",
       .help = "Where the model runs: cpu or cuda[:N] (every window then runs whole: the "
               "incremental alt windows are the CPU's); cuda fails clearly where unsupported",
       .commands = variants},
  };
  return keys;
}

}  // namespace strand::cli
