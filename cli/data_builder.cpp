// Simulated and file-backed datasets for the CLI, and their loaders.
#include "cli/data_builder.h"
#include "cli/edit_distance.h"

#include <fmt/format.h>

#include <algorithm>

#include "data/array_source.h"
#include "data/available_memory.h"
#include "data/data_error.h"
#include "data/fasta_reader.h"
#include "data/interval_source.h"
#include "data/loader_config.h"
#include "data/record_source.h"

namespace strand::cli {
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
  const std::filesystem::path path =
      motif_file.empty() ? data::default_motif_file() : std::filesystem::path(motif_file);
  const data::MotifLibrary library = data::MotifLibrary::load(path);
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
  throw ConfigError(fmt::format("motif '{}' is not in '{}' ({} motifs); close names: {}", name,
                                path.string(), library.size(), fmt::join(close, ", ")));
}

data::SimulatedDataset simulate_dataset(const SimulatedDataConfig& config, uint64_t seed) {
  const data::Motif motif = find_motif(config.motif, config.motif_file);
  data::MotifSimulationConfig sim;
  sim.seq_length = static_cast<size_t>(config.length);
  sim.gc_fraction = config.gc_fraction;
  sim.num_pos = static_cast<size_t>(config.n_pos);
  sim.num_neg = static_cast<size_t>(config.n_neg);
  sim.seed = seed;
  sim.validation_size = static_cast<size_t>(config.validation);
  sim.test_size = static_cast<size_t>(config.test);
  try {
    // The codes exist twice while the splits are cut from them, plus ~20 bytes per sequence
    // (label, motif position and strand, id).
    const double sequences = static_cast<double>(config.n_pos) + static_cast<double>(config.n_neg);
    data::require_memory(2.0 * sequences * (static_cast<double>(config.length) + 20.0),
                         fmt::format("the simulated dataset ({} sequences of {} bases) would",
                                     config.n_pos + config.n_neg, config.length),
                         "lower data.n_pos, data.n_neg or data.length");
    return data::simulate_single_motif_detection(motif, sim);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(fmt::format("data: {}", error.what()));
  } catch (const data::DataError& error) {
    throw ConfigError(fmt::format("data: {}", error.what()));
  }
}

DataSplit build_files_split(const std::string& name, const std::string& fasta,
                            const std::string& intervals, const std::string& format, int64_t window,
                            int64_t max_shift, const data::LabelOptions& labels, bool streaming,
                            const data::SignalOptions& signals) {
  data::LoaderConfig loader;
  loader.fasta = fasta;
  loader.intervals = intervals;
  loader.format = format;
  loader.window = window;
  loader.jitter = max_shift;
  loader.labels = labels;
  loader.streaming = streaming;
  loader.signals = signals;
  DataSplit split;
  split.name = name;
  try {
    split.source = data::make_source(loader);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("data ({} split): {}", name, error.what()));
  }
  // A streaming source reads through one file handle per worker; this one serves direct
  // fetches (inspect). A DataLoader prepares its own workers' handles again.
  if (streaming) split.source->prepare_workers(1);
  const int64_t n = split.source->size();
  if (const auto* source = dynamic_cast<const data::IntervalSource*>(split.source.get())) {
    for (const data::Interval& interval : source->intervals().intervals) {
      split.sample_names.push_back(
          fmt::format("{}:{}-{}", interval.contig, interval.start, interval.end));
      split.raw_lengths.push_back(interval.end - interval.start);
    }
  } else if (const auto* records = dynamic_cast<const data::RecordSource*>(split.source.get())) {
    // The source's own names, so a header line is told apart by the same rule that read it.
    split.sample_names = records->sample_names();
    for (int64_t i = 0; i < n; ++i) split.raw_lengths.push_back(records->record_length(i));
  }
  split.sample_names.resize(static_cast<size_t>(n));
  return split;
}

data::LabelOptions training_label_options() { return {data::LabelKind::kBinary, true}; }

data::SignalOptions signal_options(const FilesDataConfig& files) {
  data::SignalOptions signals;
  signals.profile_bigwigs = files.profile_bigwigs;
  signals.control_bigwigs = files.control_bigwigs;
  signals.count_bigwigs = files.count_bigwigs;
  signals.profile_length = files.profile_length;
  signals.targets = data::parse_target_source(files.targets);
  return signals;
}

RunData build_run_data(const RunConfig& config) {
  RunData out;
  if (config.data.source == "simulated") {
    const SimulatedDataConfig& s = config.data.simulated;
    const data::SimulatedDataset dataset = simulate_dataset(s, config.seed);
    out.description = fmt::format("simulated {} ({} bp, GC {}, {} positive + {} negative, seed {})",
                                  s.motif, s.length, s.gc_fraction, s.n_pos, s.n_neg, config.seed);
    out.length = s.length;
    out.train = simulated_split("train", dataset.train);
    out.validation = simulated_split("validation", dataset.validation);
    out.test = simulated_split("test", dataset.test);
    return out;
  }
  const FilesDataConfig& f = config.data.files;
  const data::LabelOptions labels = training_label_options();
  const data::SignalOptions signals = signal_options(f);
  out.train = build_files_split("train", f.fasta, f.intervals, f.format, f.window, f.jitter, labels,
                                f.streaming, signals);
  // Records with window 0 take the common record length; the other splits must match it.
  out.length = out.train.source->length();
  if (!f.valid_intervals.empty()) {
    out.validation =
        build_files_split("validation", f.valid_fasta.empty() ? f.fasta : f.valid_fasta,
                          f.valid_intervals, f.format, out.length, 0, labels, f.streaming, signals);
  }
  if (!f.test_intervals.empty()) {
    out.test =
        build_files_split("test", f.test_fasta.empty() ? f.fasta : f.test_fasta, f.test_intervals,
                          f.format, out.length, 0, labels, f.streaming, signals);
  }
  out.description = fmt::format("files {} + {} ({}, {} bp windows{})", f.fasta, f.intervals,
                                f.format, out.length, f.streaming ? ", streamed" : "");
  const data::SequenceSource& train = *out.train.source;
  if (train.profile_tracks() > 0 || train.control_tracks() > 0 || f.targets == "counts") {
    out.description +=
        fmt::format("; bigWig tracks: {} profile ({} bp output window), {} control{}",
                    train.profile_tracks(), train.profile_length(), train.control_tracks(),
                    f.targets == "counts" ? ", count labels" : "");
  }
  return out;
}

std::unique_ptr<data::DataLoader> make_train_loader(const RunConfig& config, const RunData& data,
                                                    const LoaderPlacement& placement) {
  data::LoaderOptions options;
  options.sampler.rank = placement.rank;
  options.sampler.world = placement.world_size;
  options.allocator = placement.allocator;
  options.sampler.batch_size = config.batch_size;
  options.sampler.seed = config.seed;
  options.sampler.shuffle = true;
  if (config.data.source == "files") {
    const FilesDataConfig& f = config.data.files;
    options.sampler.balanced = f.balanced;
    options.augment.max_shift = f.jitter;
    options.augment.rc_probability = f.rc_probability;
    options.threads = static_cast<int>(f.loader_threads);
    options.prefetch_depth = static_cast<int>(f.prefetch);
  }
  try {
    return std::make_unique<data::DataLoader>(data.train.source, std::move(options));
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("data (train split): {}", error.what()));
  }
}

std::unique_ptr<data::DataLoader> make_eval_loader(const DataSplit& split, int64_t batch_size,
                                                   int threads, const LoaderPlacement& placement) {
  data::LoaderOptions options;
  options.sampler.rank = placement.rank;
  options.sampler.world = placement.world_size;
  options.allocator = placement.allocator;
  options.sampler.batch_size = batch_size;
  options.sampler.shuffle = false;
  options.threads = threads;
  return std::make_unique<data::DataLoader>(split.source, std::move(options));
}

}  // namespace strand::cli
