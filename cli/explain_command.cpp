// `strand explain`: flags, inputs, the methods of explain/ over batches of sequences, and the
// files they stream to.
#include "cli/explain_command.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "app/command_paths.h"
#include "app/config_error.h"
#include "app/explain_target.h"
#include "app/pass_options.h"
#include "app/run_config.h"
#include "app/sample_windows.h"
#include "app/trained_model.h"
#include "cli/attribution_writers.h"
#include "data/encoding.h"
#include "data/sources/streamed_record_source.h"
#include "data/text_fields.h"
#include "explain/deep_lift_shap.h"
#include "explain/gradient.h"
#include "explain/ism.h"
#include "explain/logo.h"
#include "io/atomic_file.h"
#include "train/inference_batch.h"

namespace strand::cli {

using app::build_scoring_split;
using app::check_output_files;
using app::ConfigError;
using app::ConfigKey;
using app::DataSplit;
using app::field;
using app::load_config_file;
using app::load_sequence_model;
using app::locate_trained_model;
using app::resolve_target;
using app::resolved_threads;
using app::ResolvedTarget;
using app::RunConfig;
using app::SampleWindows;
using app::scoring_keys;
using app::ScoringInputs;
using app::TrainedModel;
using app::TrainedModelFiles;
using app::usable_device;
namespace {

constexpr double kWarnRelativeDeviation = 1e-3;
// Below this absolute deviation the sums agree to float32 rounding, whatever the ratio.
constexpr double kDeviationNoise = 1e-5;
// Bases a logo shows by default, around the sequence's largest score.
constexpr int64_t kLogoBases = 80;

// "START-END" (1-based, inclusive) within [1, length] -> [start, end) 0-based.
std::pair<int64_t, int64_t> position_range(const std::string& text, int64_t length,
                                           const char* flag) {
  const size_t dash = text.find('-');
  const auto first =
      dash == std::string::npos ? std::nullopt : data::parse_int(text.substr(0, dash));
  const auto last =
      dash == std::string::npos ? std::nullopt : data::parse_int(text.substr(dash + 1));
  if (!first || !last || *first < 1 || *last < *first || *last > length) {
    throw ConfigError(
        fmt::format("{}: '{}' is not a range START-END of positions 1 to {} (1-based, inclusive)",
                    flag, text, length));
  }
  return {*first - 1, *last};
}

// The codes of samples [first, first + count) of the split, (count, L).
Tensor fetch_codes(const DataSplit& split, int64_t first, int64_t count) {
  const int64_t length = split.source->length();
  Tensor codes = Tensor::empty({count, length}, DType::kUInt8);
  for (int64_t i = 0; i < count; ++i) {
    split.source->fetch(first + i, 0, codes.data<uint8_t>() + i * length, nullptr, 0);
  }
  return codes;
}

// References read from a FASTA of N x R records, R per sequence in order (what
// --save-references writes).
explain::ReferenceFunction fasta_references(const std::string& path, int64_t samples,
                                            int64_t length, int64_t* per_sequence) {
  // Read in order as the sequences are explained (their references are drawn in sequence
  // order), so N x R records cost no index in memory.
  std::shared_ptr<data::StreamedRecordSource> source;
  try {
    source = std::make_shared<data::StreamedRecordSource>(path, length, false);
  } catch (const data::RecordLengthError& error) {
    throw ConfigError(fmt::format("--reference-fasta: {}", error.what()));
  }
  const int64_t records = source->size();
  if (records == 0 || records % samples != 0) {
    throw ConfigError(fmt::format(
        "--reference-fasta: '{}' has {} records; it needs the same number of references for "
        "each of the {} sequences, in order ({} x R records, as --save-references writes them)",
        path, records, samples, samples));
  }
  *per_sequence = records / samples;
  return
      [source](int64_t index, const uint8_t* /*sequence*/, int64_t l, int64_t count, uint8_t* out) {
        for (int64_t k = 0; k < count; ++k)
          source->fetch(index * count + k, 0, out + k * l, nullptr, 0);
      };
}

// Each letter's score and each base's: the hypothetical contributions and the contribution of
// the base present (attributions), or ISM's effects and the largest of them by magnitude.
void base_scores(const Tensor& scores, const Tensor& codes, bool ism, Tensor& base) {
  const int64_t b = codes.size(0), p = codes.size(1);
  base = Tensor::zeros({b, p});
  const float* s = scores.data<float>();
  const uint8_t* c = codes.data<uint8_t>();
  float* out = base.data<float>();
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t l = 0; l < p; ++l) {
      const float* column = s + i * 4 * p + l;
      if (ism) {
        float best = 0.0F;
        for (int64_t k = 0; k < 4; ++k) {
          if (std::abs(column[k * p]) > std::abs(best)) best = column[k * p];
        }
        out[i * p + l] = best;
      } else {
        const uint8_t letter = c[i * p + l];
        out[i * p + l] = letter < data::kNumBases ? column[letter * p] : 0.0F;
      }
    }
  }
}

// The logo's scores (4, W) for one sequence: the contribution of each base present; for ISM,
// minus the mean effect of the three substitutions, on the base present (how much it matters).
Tensor logo_scores(const Tensor& scores, const Tensor& codes, bool ism) {
  const int64_t p = codes.size(0);
  Tensor out = Tensor::zeros({4, p});
  for (int64_t l = 0; l < p; ++l) {
    const uint8_t letter = codes.data<uint8_t>()[l];
    if (letter >= data::kNumBases) continue;
    float value = scores.data<float>()[letter * p + l];
    if (ism) {
      value = 0.0F;
      for (int64_t k = 0; k < 4; ++k) value -= scores.data<float>()[k * p + l] / 3.0F;
    }
    out.data<float>()[letter * p + l] = value;
  }
  return out;
}

// Every file explain writes can be written, replaces no input and no other output (before any
// work: a genome's attributions take hours).
void check_explain_paths(const ExplainOptions& o) {
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {o.inputs.fasta, "--fasta"},
      {o.inputs.intervals, "--intervals"},
      {o.reference_fasta, "--reference-fasta"},
      {o.config, "--config"},
      {o.model, "--model"}};
  std::vector<std::pair<std::string, std::string>> outputs;
  for (const std::string& out : o.outs) {
    outputs.emplace_back(out, "--out");
    // An .npz comes with <stem>_onehot.npz (attribution_writers.h).
    if (out.ends_with(".npz")) {
      outputs.emplace_back(out.substr(0, out.size() - 4) + "_onehot.npz",
                           "--out (its _onehot.npz)");
    }
  }
  outputs.emplace_back(o.save_references, "--save-references");
  outputs.emplace_back(o.deviations, "--deviations");
  outputs.emplace_back(o.plot, "--plot");
  check_output_files(outputs, inputs);
}

void check_flags(const ExplainOptions& o, const Device& device) {
  if (o.outs.empty() && o.plot.empty()) {
    throw ConfigError("--out: give at least one output file (.npz, .tsv or .bw), or --plot");
  }
  const bool ism = o.method == "ism", shap = o.method == "deeplift_shap";
  if (!o.positions.empty() && !ism) throw ConfigError("--positions: goes with --method ism");
  if (o.ism_path != "auto" && !ism) throw ConfigError("--ism-path: goes with --method ism");
  if (!shap) {
    for (const auto& [given, flag] : {std::pair{!o.reference_fasta.empty(), "--reference-fasta"},
                                      std::pair{!o.save_references.empty(), "--save-references"},
                                      std::pair{!o.deviations.empty(), "--deviations"}}) {
      if (given) throw ConfigError(fmt::format("{}: goes with --method deeplift_shap", flag));
    }
  }
  if (!o.plot.empty() && !o.plot.ends_with(".svg")) {
    throw ConfigError(fmt::format("--plot: '{}' must end in .svg", o.plot));
  }
  if (o.plot.empty() && (!o.plot_sequence.empty() || !o.plot_range.empty())) {
    throw ConfigError("--plot-sequence and --plot-range go with --plot FILE.svg");
  }
  if (!device.is_cpu() && o.ism_path == "fast") {
    throw ConfigError(fmt::format(
        "--ism-path fast: the windowed fast path runs on the CPU; on --device {} ISM runs as "
        "batched brute force (--ism-path auto or brute)",
        o.device));
  }
  check_explain_paths(o);
}

}  // namespace

const std::vector<ConfigKey>& explain_keys() {
  const std::vector<std::string> explain = {"explain"};
  static const std::vector<ConfigKey> keys = [&explain] {
    std::vector<ConfigKey> rows = scoring_keys<ExplainOptions>("explain", "explain");
    std::vector<ConfigKey> own = {
        {.key = "method",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.method; }),
         .choices = {"ism", "deeplift_shap", "gradient", "input_x_gradient"},
         .flag = "--method",
         .help = "ism (in-silico saturation mutagenesis), deeplift_shap, gradient or "
                 "input_x_gradient",
         .commands = explain,
         .required = true},
        {.key = "out",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.outs; }),
         .flag = "--out",
         .help = "Output file, the format by its extension: .npz (scores (N, 4, L) as arr_0, "
                 "TF-MoDISco's layout, and <stem>_onehot.npz), .tsv (a row per base) or .bw (a "
                 "bigWig of each base's score); repeat for several",
         .commands = explain},
        {.key = "output",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.output; }),
         .flag = "--output",
         .help = "The model's output to explain (default: its first with one value per task, "
                 "e.g. BPNet's counts; a profile output is explained through the field's "
                 "wrapper)",
         .commands = explain},
        {.key = "task",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.task; }),
         .flag = "--task",
         .help = "The task (or profile track) by name or 0-based index, or all (their sum); "
                 "default: the only one",
         .commands = explain},
        {.key = "predictions",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.predictions; }),
         .flag = "--predictions",
         .help = "Explain predictions (after the output's final Sigmoid or Exp) instead of logits",
         .commands = explain},
        {.key = "positions",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.positions; }),
         .flag = "--positions",
         .help = "ism: the positions to mutate, START-END within each sequence (1-based, "
                 "inclusive; default: all)",
         .commands = explain},
        {.key = "ism-path",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.ism_path; }),
         .choices = {"auto", "fast", "brute"},
         .flag = "--ism-path",
         .help = "ism: auto (the fast path where the model allows it), fast or brute",
         .commands = explain},
        {.key = "references",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.references; }),
         .range = explain::kReferencesRange,
         .flag = "--references",
         .help = "deeplift_shap: dinucleotide shuffles per sequence",
         .commands = explain},
        {.key = "seed",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.seed; }),
         .flag = "--seed",
         .help = "deeplift_shap: the shuffles' seed",
         .commands = explain},
        {.key = "reference-fasta",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.reference_fasta; }),
         .flag = "--reference-fasta",
         .help = "deeplift_shap: references from a FASTA of R records per sequence, in order (as "
                 "--save-references writes them), instead of shuffles",
         .commands = explain},
        {.key = "save-references",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.save_references; }),
         .flag = "--save-references",
         .help = "deeplift_shap: write the references used as a FASTA (<name>_ref<k>)",
         .commands = explain},
        {.key = "deviations",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.deviations; }),
         .flag = "--deviations",
         .help = "deeplift_shap: a TSV of each sequence's convergence: prediction, mean "
                 "reference prediction, |sum of contributions - difference|, relative",
         .commands = explain},
        {.key = "plot",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.plot; }),
         .flag = "--plot",
         .help = "Draw one sequence's contributions as a logo (SVG; letters scaled by score, "
                 "positive up, negative down)",
         .commands = explain},
        {.key = "plot-sequence",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.plot_sequence; }),
         .flag = "--plot-sequence",
         .help = "The sequence to draw, by name or 0-based index (default: the first)",
         .commands = explain},
        {.key = "plot-range",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.plot_range; }),
         .flag = "--plot-range",
         .help = "The positions to draw, START-END (1-based, inclusive; default: 80 bases around "
                 "the largest score)",
         .commands = explain},
        {.key = "device",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.device; }),
         .flag = "--device",
         .help = "Where the model runs: cpu, or cuda[:N] (ISM then runs as batched brute force: "
                 "its windowed fast path is the CPU's); cuda fails clearly where unsupported",
         .commands = explain},
        {.key = "batch-size",
         .field = field<ExplainOptions>([](auto& o) -> auto& { return o.batch_size; }),
         .range = IntRange{0, data::kMaxBatchSize},
         .range_note = "0: the method's default",
         .flag = "--batch-size",
         .help = "Sequence-reference pairs (deeplift_shap), mutants (ism) or sequences per pass "
                 "(default: 64, 256 (on a GPU as many as fit, up to 4096), 64)",
         .commands = explain},
    };
    rows.insert(rows.end(), own.begin(), own.end());
    return rows;
  }();
  return keys;
}

namespace {

// The sequence --plot draws: --plot-sequence by name or index, else the first; -1 without
// --plot.
int64_t plot_sequence_index(const ExplainOptions& options, const DataSplit& split,
                            int64_t positions) {
  if (options.plot.empty()) return -1;
  if (!options.plot_range.empty()) position_range(options.plot_range, positions, "--plot-range");
  if (options.plot_sequence.empty()) return 0;
  const int64_t n = split.source->size();
  // Streamed records keep no names: a pass over the FASTA's headers finds it.
  if (const auto* records = dynamic_cast<const data::StreamedRecordSource*>(split.source.get())) {
    const int64_t found = records->find(options.plot_sequence);
    if (found >= 0) return found;
  }
  const auto named =
      std::find(split.sample_names.begin(), split.sample_names.end(), options.plot_sequence);
  if (named != split.sample_names.end()) return named - split.sample_names.begin();
  const auto index = data::parse_int(options.plot_sequence);
  if (index && *index >= 0 && *index < n) return *index;
  throw ConfigError(
      fmt::format("--plot-sequence: '{}' is neither a sequence's name nor an index in [0, {})",
                  options.plot_sequence, n));
}

// DeepLIFT/SHAP's side outputs and convergence figures, sequence by sequence: the worst relative
// deviation, how many sequences miss the summation, --deviations and --save-references.
class ShapBookkeeping {
 public:
  ShapBookkeeping(const ExplainOptions& options, int64_t references, int64_t length)
      : references_(references), length_(length) {
    if (!options.save_references.empty()) {
      saved_references_ = std::make_unique<io::AtomicFileWriter>(options.save_references);
    }
    if (!options.deviations.empty()) {
      deviations_ = std::make_unique<io::AtomicFileWriter>(options.deviations);
      deviations_->write(std::string("name\tprediction\treference_mean\tdeviation\trelative\n"));
    }
  }

  bool keeps_references() const { return saved_references_ != nullptr; }

  // Records the sequences of `result`, named `names`, from `first` on.
  void record(const explain::DeepLiftShapResult& result, const std::vector<std::string>& names,
              int64_t first) {
    const auto count = static_cast<int64_t>(names.size());
    for (int64_t i = 0; i < count; ++i) {
      const double deviation = result.deviation.data<float>()[i];
      const double relative = result.relative_deviation.data<float>()[i];
      const std::string& name = names[static_cast<size_t>(i)];
      // The worst sequence's name, kept rather than looked up (streamed records keep no list);
      // the first sequence's while none deviates.
      if (relative > worst_relative_ || (first + i == 0 && worst_index_ < 0)) {
        worst_name_ = name;
      }
      if (relative > worst_relative_) {
        worst_relative_ = relative;
        worst_index_ = first + i;
      }
      if (relative > kWarnRelativeDeviation && deviation > kDeviationNoise) ++warned_;
      if (deviations_) {
        deviations_->write(fmt::format(
            "{}\t{:.7g}\t{:.7g}\t{:.3g}\t{:.3g}\n", name, result.prediction.data<float>()[i],
            result.reference_mean.data<float>()[i], deviation, relative));
      }
      if (saved_references_) {
        std::string text;
        for (int64_t k = 0; k < references_; ++k) {
          text += fmt::format(">{}_ref{}\n", name, k);
          text += data::decode(result.references.data<uint8_t>() + (i * references_ + k) * length_,
                               static_cast<size_t>(length_));
          text += "\n";
        }
        saved_references_->write(text);
      }
    }
  }

  // The convergence line, and a warning when sequences miss the summation.
  void report(const DataSplit& split, std::ostream& log) const {
    if (split.source->size() > 0) {
      log << fmt::format(
          "convergence: the contributions of each sequence sum to f(x) - mean f(references) "
          "within {:.3g} relative (worst: '{}')\n",
          worst_relative_, worst_name_);
      if (warned_ > 0) {
        log << fmt::format(
            "warning: {} sequence(s) miss the summation by more than {} relative: an op of the "
            "model may lack an exact DeepLIFT rule, or a sequence has N bases (--deviations "
            "FILE lists every sequence)\n",
            warned_, kWarnRelativeDeviation);
      }
    }
  }

  // Publishes --save-references and --deviations (after the attribution files: an error in
  // one of those leaves nothing written).
  void commit(const ExplainOptions& options, std::ostream& log) {
    if (saved_references_) {
      saved_references_->commit();
      log << fmt::format("wrote {} ({} references per sequence)\n", options.save_references,
                         references_);
    }
    if (deviations_) {
      deviations_->commit();
      log << "wrote " << options.deviations << "\n";
    }
  }

 private:
  int64_t references_;
  int64_t length_;
  std::unique_ptr<io::AtomicFileWriter> saved_references_, deviations_;
  double worst_relative_ = 0.0;
  int64_t worst_index_ = -1, warned_ = 0;
  std::string worst_name_;
};

// What one explain run needs per chunk of sequences.
struct ExplainPlan {
  const ExplainOptions* options = nullptr;
  explain::Target target;
  int64_t offset = 0, positions = 0;  // the window of each sequence explained
  int64_t references = 0;             // deeplift_shap
  explain::ReferenceFunction reference_function;
  int64_t batch = 0;
  bool ism = false, shap = false;
};

// The scores of `codes` (K, L) by the plan's method: (K, 4, positions) for ism, else (K, 4, L);
// ISM's path is counted in `fast_chunks`, DeepLIFT/SHAP's figures go to `shap`.
Tensor explain_chunk(Model& model, const ExplainPlan& plan, const Tensor& codes, int64_t first,
                     const std::vector<std::string>& names, ShapBookkeeping& bookkeeping,
                     int64_t& fast_chunks) {
  const ExplainOptions& options = *plan.options;
  if (plan.ism) {
    explain::IsmOptions o;
    o.target = plan.target;
    o.start = plan.offset;
    o.end = plan.offset + plan.positions;
    o.batch_size = plan.batch;
    o.path = options.ism_path == "fast"    ? explain::IsmPath::kFast
             : options.ism_path == "brute" ? explain::IsmPath::kBruteForce
                                           : explain::IsmPath::kAuto;
    const explain::IsmResult result = explain::ism(model, codes, o);
    fast_chunks += result.fast ? 1 : 0;
    return result.effects;
  }
  if (plan.shap) {
    explain::DeepLiftShapOptions o;
    o.target = plan.target;
    o.references = plan.references;
    o.seed = options.seed;
    o.reference_function = plan.reference_function;
    o.batch_size = plan.batch;
    o.first_index = first;
    o.keep_references = bookkeeping.keeps_references();
    const explain::DeepLiftShapResult result = explain::deep_lift_shap(model, codes, o);
    bookkeeping.record(result, names, first);
    return result.hypothetical;
  }
  explain::GradientOptions o;
  o.target = plan.target;
  o.batch_size = plan.batch;
  return options.method == "gradient" ? explain::gradient(model, codes, o)
                                      : explain::input_x_gradient(model, codes, o);
}

// A batch of samples [first, first + count), named and placed, for the writers.
AttributionBatch named_batch(SampleWindows& samples, int64_t first, int64_t count) {
  AttributionBatch batch;
  batch.first = first;
  for (int64_t i = first; i < first + count; ++i) {
    batch.names.push_back(samples.name(i));
    batch.windows.push_back(samples.window(i));
  }
  return batch;
}

// Draws the logo of --plot: `scores` (4, positions) and `codes` (positions) of sequence `index`.
void write_logo(const ExplainOptions& options, const ExplainPlan& plan,
                const ResolvedTarget& resolved, const std::string& name, const Tensor& scores,
                const Tensor& codes, std::ostream& log) {
  const int64_t positions = plan.positions;
  const Tensor heights = logo_scores(scores, codes, plan.ism);
  int64_t from = 0, to = positions;
  if (!options.plot_range.empty()) {
    std::tie(from, to) = position_range(options.plot_range, positions, "--plot-range");
  } else if (positions > kLogoBases) {
    // kLogoBases around the column of the largest total height.
    int64_t peak = 0;
    float best = -1.0F;
    for (int64_t l = 0; l < positions; ++l) {
      float column = 0.0F;
      for (int64_t c = 0; c < 4; ++c) column += std::abs(heights.data<float>()[c * positions + l]);
      if (column > best) {
        best = column;
        peak = l;
      }
    }
    from = std::clamp<int64_t>(peak - kLogoBases / 2, 0, positions - kLogoBases);
    to = from + kLogoBases;
  }
  explain::LogoOptions logo;
  logo.title = fmt::format("{} ({}, output '{}' task {})", name, options.method,
                           resolved.output_name, resolved.task_label);
  logo.y_label = plan.ism ? "ISM: -mean effect" : "contribution";
  logo.first_position = plan.offset + from + 1;
  io::write_file_atomically(options.plot,
                            explain::logo_svg(heights.slice(1, from, to).contiguous(), logo));
  log << fmt::format("wrote {} (logo of '{}', positions {}-{})\n", options.plot, name,
                     plan.offset + from + 1, plan.offset + to);
}

// --batch-size, else the method's default: 64 sequences (or sequence-reference pairs), 256
// mutants for ISM; on a GPU, where ISM runs whole passes, as many mutants as fit, up to 4096.
int64_t default_batch(const ExplainOptions& options, const ExplainPlan& plan, const Model& model,
                      int64_t length, Device device) {
  if (options.batch_size > 0) return options.batch_size;
  const int64_t batch = app::default_explain_batch(options.method);
  if (!plan.ism) return batch;
  return train::inference_batch_size(model, length, device, batch, 4096);
}

}  // namespace

int64_t run_explain(const ExplainOptions& options, std::ostream& log) {
  // The device first: a GPU that cannot be used stops the command before anything is read.
  const Device device = usable_device(options.device, "--device");
  check_flags(options, device);
  const TrainedModelFiles files =
      locate_trained_model(options.model, options.config, !options.with_bias);
  RunConfig config = load_config_file(files.config);
  if (options.threads > 0) config.threads = options.threads;
  omp_set_num_threads(resolved_threads(config));
  ScoringInputs inputs = options.inputs;
  inputs.command = "explain";
  const DataSplit split = build_scoring_split(inputs, config);
  const int64_t length = split.source->length();
  TrainedModel trained = load_sequence_model(files, config, length, "explain");
  Model& model = *trained.model;
  if (!device.is_cpu()) model.to(device);
  const ResolvedTarget resolved =
      resolve_target(trained, options.output, options.task, options.predictions);
  const int64_t n = split.source->size();

  ExplainPlan plan;
  plan.options = &options;
  plan.target = resolved.target;
  plan.ism = options.method == "ism";
  plan.shap = options.method == "deeplift_shap";
  plan.positions = length;
  if (!options.positions.empty()) {
    const auto [a, b] = position_range(options.positions, length, "--positions");
    plan.offset = a;
    plan.positions = b - a;
  }
  plan.references = options.references;
  if (!options.reference_fasta.empty()) {
    plan.reference_function =
        fasta_references(options.reference_fasta, n, length, &plan.references);
  }
  const int64_t plot_index = plot_sequence_index(options, split, plan.positions);

  // Every output is opened before the work, so a path that cannot be written fails at once.
  AttributionLayout layout;
  layout.samples = n;
  layout.offset = plan.offset;
  layout.positions = plan.positions;
  layout.owned_step = inputs.tiles.empty() ? 0 : inputs.step.value_or(length);
  layout.score_name = plan.ism ? "max_effect" : "contribution";
  std::vector<std::unique_ptr<AttributionWriter>> writers;
  for (const std::string& out : options.outs) {
    writers.push_back(make_attribution_writer(out, layout, inputs.fasta));
  }
  ShapBookkeeping bookkeeping(options, plan.references, length);

  log << fmt::format(
             "explain: {} of output '{}' task {} ({}) for {} sequences of {} bp with {}{}\n",
             options.method, resolved.output_name, resolved.task_label,
             plan.target.activation ? "predictions" : "logits", n, length,
             trained.files.checkpoint.string(), device.is_cpu() ? "" : " on " + options.device)
      << std::flush;  // the work starts: say so now, not when the buffer fills
  plan.batch = default_batch(options, plan, model, length, device);
  // Sequences per chunk: about one batch of work, at most 64 so memory stays small.
  const int64_t chunk = plan.ism    ? std::clamp<int64_t>(plan.batch / (3 * plan.positions), 1, 64)
                        : plan.shap ? std::clamp<int64_t>(plan.batch / plan.references, 1, 64)
                                    : std::clamp<int64_t>(plan.batch, 1, 64);
  split.source->prepare_workers(1);
  SampleWindows samples(split);
  int64_t fast_chunks = 0;
  Tensor plot_scores, plot_codes;
  std::string plot_name;
  for (int64_t first = 0; first < n; first += chunk) {
    const int64_t count = std::min(chunk, n - first);
    const Tensor codes = fetch_codes(split, first, count);
    AttributionBatch out = named_batch(samples, first, count);
    out.codes = codes.slice(1, plan.offset, plan.offset + plan.positions).contiguous();
    out.scores = explain_chunk(model, plan, codes, first, out.names, bookkeeping, fast_chunks);
    if (!plan.ism) {
      out.scores = out.scores.slice(2, plan.offset, plan.offset + plan.positions).contiguous();
    }
    base_scores(out.scores, out.codes, plan.ism, out.base_score);
    for (auto& writer : writers) writer->write(out);
    if (plot_index >= first && plot_index < first + count) {
      const int64_t k = plot_index - first;
      plot_scores = out.scores.slice(0, k, k + 1).reshape({4, plan.positions}).contiguous();
      plot_codes = out.codes.slice(0, k, k + 1).reshape({plan.positions}).contiguous();
      plot_name = out.names[static_cast<size_t>(k)];
    }
  }
  if (plan.shap) bookkeeping.report(split, log);
  if (plan.ism) {
    log << fmt::format("ism: {} path\n",
                       fast_chunks > 0 ? "fast (exact, windowed)" : "brute-force");
  }
  for (auto& writer : writers) log << "wrote " << writer->finish() << "\n";
  bookkeeping.commit(options, log);
  if (!options.plot.empty() && plot_codes.defined()) {
    write_logo(options, plan, resolved, plot_name, plot_scores, plot_codes, log);
  }
  return n;
}

}  // namespace strand::cli
