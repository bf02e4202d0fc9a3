// GC-matched negatives for a peak file, written as BED files.
#include "cli/negatives_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <numeric>
#include <vector>

#include "cli/command_paths.h"
#include "cli/run_config.h"
#include "data/data_error.h"
#include "data/intervals.h"
#include "data/list_syntax.h"
#include "data/negatives.h"
#include "io/atomic_file.h"

namespace strand::cli {
namespace {

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::string default_format(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name.ends_with(".narrowpeak") ? "narrowpeak" : "bed";
}

void check_options(const NegativesOptions& o) {
  const std::pair<const std::string*, const char*> required[] = {
      {&o.fasta, "--fasta: the genome FASTA is required"},
      {&o.peaks, "--peaks: a BED or narrowPeak of peaks is required"},
      {&o.out, "--out: the negatives BED to write is required"}};
  for (const auto& [value, message] : required) {
    if (value->empty()) throw ConfigError(message);
  }
  if (!(o.ratio > 0 && o.ratio <= data::kMaxNegativesRatio)) {
    throw ConfigError(
        fmt::format("--ratio: must be in (0, {}], got {}", data::kMaxNegativesRatio, o.ratio));
  }
  if (o.window < 1 || o.window > kMaxSequenceLength) {
    throw ConfigError(
        fmt::format("--window: must be in [1, {}], got {}", kMaxSequenceLength, o.window));
  }
  if (o.stride < 0 || o.stride > kMaxSequenceLength) {
    throw ConfigError(fmt::format("--stride: must be in [0, {}] (0: the window), got {}",
                                  kMaxSequenceLength, o.stride));
  }
  if (o.gc_bins < 1 || o.gc_bins > 100000) {
    throw ConfigError(fmt::format("--gc-bins: must be in [1, 100000], got {}", o.gc_bins));
  }
  if (!(o.max_n_fraction >= 0 && o.max_n_fraction <= 1)) {
    throw ConfigError(fmt::format("--max-n-fraction: must be in [0, 1], got {}", o.max_n_fraction));
  }
  if (!o.format.empty() && o.format != "bed" && o.format != "narrowpeak") {
    throw ConfigError(fmt::format("--format: '{}' is not one of bed, narrowpeak", o.format));
  }
  check_input_file(o.fasta, "--fasta");
  check_input_file(o.peaks, "--peaks");
  check_input_file(o.blacklist, "--blacklist");
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {o.fasta, "--fasta"}, {o.peaks, "--peaks"}, {o.blacklist, "--blacklist"}};
  check_output_file(o.out, "--out");
  refuse_overwriting_input(o.out, "--out", inputs);
  if (!o.labelled_out.empty()) {
    check_output_file(o.labelled_out, "--labelled-out");
    if (same_path(o.labelled_out, o.out)) {
      throw ConfigError("--labelled-out: must be another file than --out");
    }
    refuse_overwriting_input(o.labelled_out, "--labelled-out", inputs);
  }
}

}  // namespace

int64_t run_negatives(const NegativesOptions& options, std::ostream& log) {
  check_options(options);
  data::NegativeSamplingOptions sampling;
  sampling.window = options.window;
  sampling.ratio = options.ratio;
  sampling.stride = options.stride;
  sampling.gc_bins = static_cast<int>(options.gc_bins);
  sampling.max_n_fraction = options.max_n_fraction;
  sampling.seed = options.seed;
  data::NegativeSampling sampled;
  std::unique_ptr<data::FastaReader> genome;
  try {
    if (!options.chroms.empty()) {
      sampling.contigs = data::parse_name_list(options.chroms, "--chroms");
    }
    genome = std::make_unique<data::FastaReader>(options.fasta);
    data::IntervalReadOptions read;
    read.format = data::parse_interval_format(options.format.empty() ? default_format(options.peaks)
                                                                     : options.format);
    read.labelled = false;
    data::IntervalSet peaks = data::read_intervals(options.peaks, read);
    data::refuse_non_peaks(options.peaks, read.format, "strand negatives (--peaks)");
    data::validate_intervals(peaks, genome->contigs(), options.fasta,
                             data::BadIntervalPolicy::kError);
    std::vector<data::Interval> excluded;
    if (!options.blacklist.empty()) {
      excluded = data::read_blacklist(options.blacklist, genome->contigs(), options.fasta);
    }
    sampled = data::sample_gc_matched_negatives(*genome, peaks, excluded, sampling);
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }

  // Both files are written to temporary files first and renamed together at the end.
  std::string negatives;
  for (const data::Interval& iv : sampled.negatives) {
    negatives += fmt::format("{}\t{}\t{}\n", iv.contig, iv.start, iv.end);
  }
  io::AtomicFileWriter negatives_file(options.out);
  negatives_file.write(negatives);
  std::unique_ptr<io::AtomicFileWriter> labelled_file;
  const std::string task = std::filesystem::path(options.peaks).stem().string();
  if (!options.labelled_out.empty()) {
    // Peaks' windows and negatives, sorted by contig (FASTA order) and start.
    std::vector<std::pair<const data::Interval*, int>> rows;
    for (const data::Interval& iv : sampled.positives) rows.emplace_back(&iv, 1);
    for (const data::Interval& iv : sampled.negatives) rows.emplace_back(&iv, 0);
    std::stable_sort(rows.begin(), rows.end(), [&genome](const auto& a, const auto& b) {
      const int ia = genome->contig_id(a.first->contig);
      const int ib = genome->contig_id(b.first->contig);
      return ia != ib ? ia < ib : a.first->start < b.first->start;
    });
    std::string text = fmt::format("#chrom\tstart\tend\t{}\n", task);
    for (const auto& [iv, label] : rows) {
      text += fmt::format("{}\t{}\t{}\t{}\n", iv->contig, iv->start, iv->end, label);
    }
    labelled_file = std::make_unique<io::AtomicFileWriter>(options.labelled_out);
    labelled_file->write(text);
  }
  negatives_file.commit();
  if (labelled_file) labelled_file->commit();

  log << fmt::format(
      "{} peaks, {} negatives of {} bp ({} candidate windows; {} drawn from a neighbouring GC "
      "bin); mean GC: peaks {:.4f}, negatives {:.4f}\n",
      sampled.positives.size(), sampled.negatives.size(), options.window, sampled.candidates,
      sampled.from_other_bins, mean(sampled.positive_gc), mean(sampled.negative_gc));
  log << fmt::format("wrote {}\n", options.out);
  if (labelled_file) {
    log << fmt::format(
        "wrote {} (task '{}': peaks 1, negatives 0)\ntrain on it with:\n  strand train --fasta {} "
        "--intervals {} --window {} --valid-fraction 0.1 --test-fraction 0.1\n",
        options.labelled_out, task, options.fasta, options.labelled_out, options.window);
  }
  return static_cast<int64_t>(sampled.negatives.size());
}

}  // namespace strand::cli
