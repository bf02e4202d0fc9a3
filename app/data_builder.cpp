// Simulated and file-backed datasets for the CLI, and their loaders.
#include "app/data_builder.h"
#include "app/bias_windows.h"
#include "app/edit_distance.h"

#include <fmt/format.h>

#include <algorithm>

#include "data/data_error.h"
#include "data/fasta/fasta_reader.h"
#include "data/list_syntax.h"
#include "data/loader/available_memory.h"
#include "data/loader/loader_config.h"
#include "data/sources/array_source.h"
#include "data/sources/interval_source.h"
#include "data/sources/record_source.h"
#include "data/sources/split_sources.h"
#include "data/sources/subset_source.h"

namespace strand::app {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

DataSplit simulated_split(const std::string& name, const data::SimulatedSplit& split) {
  DataSplit out;
  out.name = name;
  out.source = std::make_shared<data::ArraySource>(
      split.codes, static_cast<int64_t>(split.seq_length), split.labels, 1);
  out.sample_names.reserve(split.size());
  // The same names write_fasta_dataset gives the records, so tables line up with `simulate`.
  for (const uint32_t id : split.ids) out.sample_names.push_back(fmt::format("seq{:06}", id));
  out.raw_lengths.assign(split.size(), static_cast<int64_t>(split.seq_length));
  return out;
}

}  // namespace

data::Motif find_motif(const std::string& name, const std::string& motif_file) {
  const data::MotifLibrary library = data::MotifLibrary::load_or_builtin(motif_file);
  if (library.contains(name)) return library.get(name);
  // Close names: those containing the query (case-insensitive), then the nearest by edits.
  std::vector<std::pair<size_t, std::string>> ranked;
  const std::string query = lower(name);
  for (const data::Motif& motif : library.motifs()) {
    const bool contains = lower(motif.name).find(query) != std::string::npos;
    ranked.emplace_back(contains ? 0 : 1 + edit_distance(name, motif.name), motif.name);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> close;
  for (size_t i = 0; i < ranked.size() && i < 8; ++i) close.push_back(ranked[i].second);
  throw ConfigError(fmt::format("motif '{}' is not in {} ({} motifs); close names: {}", name,
                                motif_file.empty() ? library.source() : "'" + motif_file + "'",
                                library.size(), fmt::join(close, ", ")));
}

data::SimulatedDataset simulate_dataset(const SimulatedDataConfig& config, uint64_t seed) {
  const data::Motif motif = find_motif(config.motif, config.motif_file);
  data::MotifSimulationConfig sim = config.simulation;
  sim.seed = seed;
  try {
    // The codes exist twice while the splits are cut from them, plus ~20 bytes per sequence
    // (label, motif position and strand, id).
    const double sequences = static_cast<double>(sim.num_pos) + static_cast<double>(sim.num_neg);
    data::require_memory(2.0 * sequences * (static_cast<double>(sim.seq_length) + 20.0),
                         fmt::format("the simulated dataset ({} sequences of {} bases) would",
                                     sim.num_pos + sim.num_neg, sim.seq_length),
                         "lower data.n_pos, data.n_neg or data.length");
    return data::simulate_single_motif_detection(motif, sim);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(fmt::format("data: {}", error.what()));
  } catch (const data::DataError& error) {
    throw ConfigError(fmt::format("data: {}", error.what()));
  }
}

DataSplit build_files_split(const std::string& name, const data::LoaderConfig& loader) {
  std::shared_ptr<data::SequenceSource> source;
  try {
    source = data::make_source(loader);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("data ({} split): {}", name, error.what()));
  }
  return describe_split(name, std::move(source));
}

DataSplit describe_split(const std::string& name, std::shared_ptr<data::SequenceSource> source) {
  DataSplit split;
  split.name = name;
  split.source = std::move(source);
  // A streaming source reads through one file handle per worker; this one serves direct
  // fetches (inspect). A DataLoader prepares its own workers' handles again.
  split.source->prepare_workers(1);
  const int64_t n = split.source->size();
  // A subset names its samples by the source it was cut from.
  const data::SequenceSource* whole = split.source.get();
  std::vector<int64_t> indices;
  if (const auto* subset = dynamic_cast<const data::SubsetSource*>(whole)) {
    whole = &subset->inner();
    indices = subset->indices();
  } else {
    for (int64_t i = 0; i < n; ++i) indices.push_back(i);
  }
  if (const auto* intervals = dynamic_cast<const data::IntervalSource*>(whole)) {
    for (const int64_t i : indices) {
      const data::Interval& interval = intervals->intervals().intervals[static_cast<size_t>(i)];
      split.sample_names.push_back(
          fmt::format("{}:{}-{}", interval.contig, interval.start, interval.end));
      split.raw_lengths.push_back(interval.end - interval.start);
    }
  } else if (const auto* records = dynamic_cast<const data::RecordSource*>(whole)) {
    // The source's own names, so a header line is told apart by the same rule that read it.
    for (const int64_t i : indices) {
      split.sample_names.push_back(records->sample_names()[static_cast<size_t>(i)]);
      split.raw_lengths.push_back(records->record_length(i));
    }
  }
  split.sample_names.resize(static_cast<size_t>(n));
  return split;
}

data::LoaderConfig files_loader_config(const RunConfig& config, const data::LabelOptions& labels) {
  data::LoaderConfig loader;
  static_cast<data::LoaderSettings&>(loader) = config.data.files.loader;
  loader.labels = labels;
  loader.batch_size = config.batch_size;
  loader.seed = config.seed;
  return loader;
}

std::vector<std::string> read_run_task_names(const RunConfig& config) {
  if (config.data.source != "files") return data::SequenceSource::default_task_names(1);
  try {
    return data::read_task_names(files_loader_config(config, {data::LabelKind::kReal, false}));
  } catch (const std::exception&) {
    return {};  // the training files moved or changed: the outputs get default names
  }
}

std::vector<std::string> run_task_names(const RunConfig& config, int64_t count) {
  std::vector<std::string> names = read_run_task_names(config);
  if (static_cast<int64_t>(names.size()) != count) {
    names = data::SequenceSource::default_task_names(count);
  }
  return names;
}

data::LabelOptions training_label_options(const RunConfig& config) {
  bool binary = false;
  const auto is_binary = [](const std::string& loss) {
    return loss == "binary_crossentropy" || loss == "categorical_crossentropy";
  };
  if (!config.model.graph()) {
    binary = is_binary(config.loss);
  } else {
    for (const OutputSpec& output : config.model.outputs) {
      binary = binary || (output.target == "labels" && is_binary(output.loss));
    }
  }
  return {binary ? data::LabelKind::kBinary : data::LabelKind::kReal, true};
}

double median_total_counts(const data::SequenceSource& source, int64_t max_windows) {
  const int64_t tracks = source.profile_tracks(), length = source.profile_length();
  if (tracks == 0 || source.size() == 0) return 0.0;
  const int64_t windows = std::min(source.size(), max_windows);
  std::vector<float> profile(static_cast<size_t>(tracks * length));
  std::vector<double> totals;
  totals.reserve(static_cast<size_t>(windows));
  for (int64_t k = 0; k < windows; ++k) {
    const int64_t index = k * source.size() / windows;  // evenly spaced, deterministic
    source.signals(index, 0, profile.data(), nullptr, 0);
    double total = 0.0;
    for (const float count : profile) total += count;
    totals.push_back(total);
  }
  const auto middle = totals.begin() + static_cast<std::ptrdiff_t>(totals.size() / 2);
  std::nth_element(totals.begin(), middle, totals.end());
  if (totals.size() % 2 == 1) return *middle;
  const double upper = *middle;
  return 0.5 * (upper + *std::max_element(totals.begin(), middle));
}

namespace {

// The splits of a run must hold the same tasks: a validation or test file with other label
// columns than the training file would only fail in the first evaluation, after an epoch.
void check_same_tasks(const RunData& data, const FilesDataConfig& files) {
  const data::SequenceSource& train = *data.train.source;
  for (const auto& [split, file] : {std::pair{&data.validation, &files.valid_intervals},
                                    std::pair{&data.test, &files.test_intervals}}) {
    if (!*split) continue;
    const data::SequenceSource& other = *(*split)->source;
    if (other.num_targets() != train.num_targets() ||
        other.profile_tracks() != train.profile_tracks()) {
      throw ConfigError(fmt::format(
          "data: the {} split ({}) has {} label column(s) and {} profile track(s), the training "
          "data ({}) {} and {}: every split needs the same tasks",
          (*split)->name, file->empty() ? "part of " + files.loader.intervals : *file,
          other.num_targets(), other.profile_tracks(), files.loader.intervals, train.num_targets(),
          train.profile_tracks()));
    }
  }
}

RunData build_run_data_of(const RunConfig& config);

}  // namespace

RunData build_run_data(const RunConfig& config) {
  RunData data = build_run_data_of(config);
  if (config.data.source == "files") {
    check_same_tasks(data, config.data.files);
    keep_low_count_windows(config, data);
    // validate_numbers() bounds the jitter by a given window; records of window 0 take their
    // common length, known only now.
    const int64_t jitter = config.data.files.loader.jitter;
    const std::string problem = data::jitter_problem(jitter, data.length);
    if (!problem.empty()) throw ConfigError(fmt::format("data.jitter: {} is {}", jitter, problem));
  }
  return data;
}

namespace {

RunData simulated_run_data(const RunConfig& config) {
  const SimulatedDataConfig& s = config.data.simulated;
  const data::SimulatedDataset dataset = simulate_dataset(s, config.seed);
  const data::MotifSimulationConfig& sim = s.simulation;
  RunData out;
  out.description =
      fmt::format("simulated {} ({} bp, GC {}, {} positive + {} negative, seed {})", s.motif,
                  sim.seq_length, sim.gc_fraction, sim.num_pos, sim.num_neg, config.seed);
  out.length = static_cast<int64_t>(sim.seq_length);
  out.train = simulated_split("train", dataset.train);
  out.validation = simulated_split("validation", dataset.validation);
  out.test = simulated_split("test", dataset.test);
  return out;
}

// ", 2 GC-matched negatives per peak", or "".
std::string negatives_text(const data::LoaderSettings& loader) {
  return loader.negatives_ratio > 0
             ? fmt::format(", {} GC-matched negatives per peak", loader.negatives_ratio)
             : "";
}

// One file split into parts (data/intervals/splits.h): each part is its own split of the run.
RunData split_run_data(const RunConfig& config, const data::LoaderConfig& loader) {
  const FilesDataConfig& f = config.data.files;
  data::SplitConfig split = f.split;
  split.seed = config.seed;
  data::SplitSources parts;
  try {
    parts = data::make_split_sources(loader, split);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("data (splitting {}): {}", loader.intervals, error.what()));
  }
  RunData out;
  out.train = describe_split("train", parts.train);
  out.length = out.train.source->length();
  if (parts.validation) out.validation = describe_split("validation", parts.validation);
  if (parts.test) out.test = describe_split("test", parts.test);
  const auto chroms = [](const std::vector<std::string>& names) {
    return names.empty() ? std::string("-") : data::format_name_list(names);
  };
  const std::string how = !split.folds.empty() ? fmt::format("fold file {}", split.folds)
                          : split.valid_fraction > 0 || split.test_fraction > 0
                              ? fmt::format("fractions {} validation, {} test (seed {})",
                                            split.valid_fraction, split.test_fraction, config.seed)
                              : fmt::format("chromosomes: validation {}, test {}",
                                            chroms(split.valid_chroms), chroms(split.test_chroms));
  out.description = fmt::format(
      "files {} + {} ({}, {} bp windows{}{}; split by {}{})", loader.fasta, loader.intervals,
      data::interval_format_name(loader.format), out.length, loader.streaming ? ", streamed" : "",
      negatives_text(loader), how,
      parts.unassigned > 0
          ? fmt::format("; {} intervals on chromosomes of no list left out", parts.unassigned)
          : "");
  return out;
}

RunData build_run_data_of(const RunConfig& config) {
  if (config.data.source == "simulated") return simulated_run_data(config);
  const FilesDataConfig& f = config.data.files;
  const data::LoaderConfig loader = files_loader_config(config, training_label_options(config));
  if (f.split.enabled()) return split_run_data(config, loader);
  RunData out;
  out.train = build_files_split("train", loader);
  // Records with window 0 take the common record length; the other splits must match it.
  out.length = out.train.source->length();
  // The other files are read with the training file's label columns and task names.
  const auto held_out = [&](const std::string& fasta, const std::string& intervals) {
    data::LoaderConfig other = loader;
    other.fasta = fasta.empty() ? loader.fasta : fasta;
    other.intervals = intervals;
    other.window = out.length;
    other.jitter = 0;
    return other;
  };
  if (!f.valid_intervals.empty()) {
    out.validation = build_files_split("validation", held_out(f.valid_fasta, f.valid_intervals));
  }
  if (!f.test_intervals.empty()) {
    out.test = build_files_split("test", held_out(f.test_fasta, f.test_intervals));
  }
  out.description =
      fmt::format("files {} + {} ({}, {} bp windows{}{})", loader.fasta, loader.intervals,
                  data::interval_format_name(loader.format), out.length,
                  loader.streaming ? ", streamed" : "", negatives_text(loader));
  const data::SequenceSource& train = *out.train.source;
  const bool counts = loader.signals.targets == data::TargetSource::kCounts;
  if (train.profile_tracks() > 0 || train.control_tracks() > 0 || counts) {
    out.description += fmt::format(
        "; bigWig tracks: {} profile ({} bp output window), {} control{}", train.profile_tracks(),
        train.profile_length(), train.control_tracks(), counts ? ", count labels" : "");
  }
  return out;
}

}  // namespace

std::unique_ptr<data::DataLoader> make_train_loader(const RunConfig& config, const RunData& data,
                                                    const LoaderPlacement& placement) {
  // Files data: the loader's own settings (jitter, reverse complement, balance, threads,
  // prefetch); simulated data: the library's defaults. Every run: its batch size and seed.
  data::LoaderOptions options = config.data.source == "files"
                                    ? data::loader_options(files_loader_config(config, {}))
                                    : data::LoaderOptions{};
  options.sampler.batch_size = config.batch_size;
  options.sampler.seed = config.seed;
  options.sampler.shuffle = true;
  options.sampler.rank = placement.rank;
  options.sampler.world = placement.world_size;
  options.allocator = placement.allocator;
  try {
    return std::make_unique<data::DataLoader>(data.train.source, std::move(options));
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("data (train split): {}", error.what()));
  }
}

namespace {

// An evaluation loader's plan: in order, this rank's share.
data::SamplerOptions eval_sampler_options(int64_t batch_size, const LoaderPlacement& placement) {
  data::SamplerOptions sampler;
  sampler.rank = placement.rank;
  sampler.world = placement.world_size;
  sampler.batch_size = batch_size;
  sampler.shuffle = false;
  return sampler;
}

}  // namespace

std::vector<int64_t> eval_batch_sizes(const DataSplit& split, int64_t batch_size,
                                      const LoaderPlacement& placement) {
  return data::plan_epoch(split.source->size(), {}, eval_sampler_options(batch_size, placement), 0)
      .batch_sizes();
}

std::unique_ptr<data::DataLoader> make_eval_loader(const DataSplit& split, int64_t batch_size,
                                                   int threads, const LoaderPlacement& placement) {
  data::LoaderOptions options;
  options.sampler = eval_sampler_options(batch_size, placement);
  options.allocator = placement.allocator;
  options.loader_threads = threads;
  return std::make_unique<data::DataLoader>(split.source, std::move(options));
}

}  // namespace strand::app
