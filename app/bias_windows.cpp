// Non-peak windows of low counts for the bias model (app/bias_windows.h).
#include "app/bias_windows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/config_error.h"
#include "data/intervals/splits.h"
#include "data/loader/loader_config.h"
#include "data/sources/interval_source.h"

namespace strand::app {
namespace {

// The peaks' windows with the run's tracks: the training loader's settings, reading the peak
// file unlabelled (bed, or narrowPeak by its name, centred on the summit).
std::shared_ptr<data::SequenceSource> peak_source(const RunConfig& config) {
  data::LoaderConfig loader = files_loader_config(config, {data::LabelKind::kReal, false});
  loader.intervals = config.data.files.bias_peaks;
  std::string name = std::filesystem::path(loader.intervals).filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  loader.format = name.ends_with(".narrowpeak") ? data::IntervalFormat::kNarrowPeak
                                                : data::IntervalFormat::kBed;
  loader.labelled = false;
  loader.label_columns.clear();
  loader.negatives_ratio = 0.0;
  loader.blacklist.clear();
  loader.jitter = 0;
  loader.streaming = false;
  try {
    return data::make_source(loader);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("data.bias_peaks: {}", error.what()));
  }
}

// `split` cut to its windows whose total counts are below `threshold`; `kept` receives how many.
DataSplit low_count_split(const RunConfig& config, const DataSplit& split, double threshold,
                          int64_t& kept) {
  const auto* source = dynamic_cast<const data::IntervalSource*>(split.source.get());
  if (source == nullptr) {
    throw ConfigError(fmt::format(
        "data.bias_peaks: the {} split is not intervals of a genome (bed or narrowpeak data "
        "split by chromosome or by files); the bias windows are cut from intervals",
        split.name));
  }
  const std::vector<double> totals = window_total_counts(*source);
  std::vector<data::SplitPart> parts;
  kept = 0;
  for (const double total : totals) {
    const bool low = total < threshold;
    parts.push_back(low ? data::SplitPart::kTrain : data::SplitPart::kUnassigned);
    kept += low ? 1 : 0;
  }
  data::LoaderConfig reader_config = files_loader_config(config, {});
  const FilesDataConfig& files = config.data.files;
  if (split.name == "validation" && !files.valid_fasta.empty()) {
    reader_config.fasta = files.valid_fasta;
  }
  data::IntervalSet selected =
      data::select_intervals(source->intervals(), parts, data::SplitPart::kTrain);
  auto low = std::make_shared<data::IntervalSource>(data::open_fasta(reader_config),
                                                    std::move(selected), source->options());
  return describe_split(split.name, std::move(low));
}

}  // namespace

std::vector<double> window_total_counts(const data::SequenceSource& source) {
  const int64_t tracks = source.profile_tracks(), length = source.profile_length();
  std::vector<float> profile(static_cast<size_t>(tracks * length));
  std::vector<double> totals;
  totals.reserve(static_cast<size_t>(source.size()));
  for (int64_t i = 0; i < source.size(); ++i) {
    source.signals(i, 0, profile.data(), nullptr, 0);
    double total = 0.0;
    for (const float count : profile) total += count;
    totals.push_back(total);
  }
  return totals;
}

double quantile(std::vector<double> values, double q) {
  STRAND_CHECK(!values.empty(), "quantile of no values");
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

void keep_low_count_windows(const RunConfig& config, RunData& data) {
  const FilesDataConfig& files = config.data.files;
  if (config.data.source != "files" || files.bias_peaks.empty()) return;
  if (data.train.source->profile_tracks() == 0) {
    throw ConfigError(
        "data.bias_peaks: the windows' counts are their profile tracks' sums: give "
        "data.profile_bigwigs");
  }
  const std::shared_ptr<data::SequenceSource> peaks = peak_source(config);
  if (peaks->size() == 0) {
    throw ConfigError(fmt::format("data.bias_peaks: '{}' holds no peak", files.bias_peaks));
  }
  const double low_peak = quantile(window_total_counts(*peaks), 0.01);
  const double threshold = files.bias_threshold_factor * low_peak;
  if (!(threshold > 0.0)) {
    throw ConfigError(fmt::format(
        "data.bias_peaks: the peaks' 1% quantile of total counts is {}, so every window would "
        "be left out (threshold {} x {} = 0); check data.profile_bigwigs and the peak file",
        low_peak, files.bias_threshold_factor, low_peak));
  }
  const int64_t before = data.train.source->size();
  int64_t kept = 0;
  data.train = low_count_split(config, data.train, threshold, kept);
  if (kept == 0) {
    throw ConfigError(fmt::format(
        "data.bias_peaks: no training window has total counts below {} ({} x the peaks' 1% "
        "quantile {}); raise data.bias_threshold_factor",
        threshold, files.bias_threshold_factor, low_peak));
  }
  std::string validation;
  if (data.validation) {
    const int64_t all = data.validation->source->size();
    int64_t valid_kept = 0;
    *data.validation = low_count_split(config, *data.validation, threshold, valid_kept);
    validation = fmt::format(", validation {} of {}", valid_kept, all);
  }
  data.description += fmt::format(
      "; bias windows (total counts < {:.4g} = {} x the 1% quantile {:.4g} of {} peaks): train "
      "{} of {}{}",
      threshold, files.bias_threshold_factor, low_peak, peaks->size(), kept, before, validation);
}

}  // namespace strand::app
