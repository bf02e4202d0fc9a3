// GC-matched negatives for a peak file, written as BED files.
#include "cli/negatives_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <numeric>
#include <vector>

#include "app/command_paths.h"
#include "app/run_config.h"
#include "data/data_error.h"
#include "data/intervals/intervals.h"
#include "data/intervals/negatives.h"
#include "data/list_syntax.h"
#include "io/atomic_file.h"

namespace strand::cli {

using app::check_input_file;
using app::check_output_file;
using app::ConfigError;
using app::ConfigKey;
using app::enum_field;
using app::field;
using app::names_field;
using app::refuse_overwriting_input;
using app::same_path;
namespace {

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

data::IntervalFormat default_format(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name.ends_with(".narrowpeak") ? data::IntervalFormat::kNarrowPeak
                                       : data::IntervalFormat::kBed;
}

// The files: inputs that exist, outputs that can be written and overwrite no input.
void check_files(const NegativesOptions& o) {
  const std::pair<const std::string*, const char*> required[] = {
      {&o.fasta, "--fasta: the genome FASTA is required"},
      {&o.peaks, "--peaks: a BED or narrowPeak of peaks is required"},
      {&o.out, "--out: the negatives BED to write is required"}};
  for (const auto& [value, message] : required) {
    if (value->empty()) throw ConfigError(message);
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

// The peaks' windows and the negatives drawn for them.
data::NegativeSampling draw_negatives(const NegativesOptions& options,
                                      const data::FastaReader& genome) {
  try {
    data::IntervalReadOptions read;
    read.format = options.format.value_or(default_format(options.peaks));
    read.labelled = false;
    data::IntervalSet peaks = data::read_intervals(options.peaks, read);
    data::refuse_non_peaks(options.peaks, read.format, "strand negatives (--peaks)");
    data::validate_intervals(peaks, genome.contigs(), options.fasta,
                             data::BadIntervalPolicy::kError);
    std::vector<data::Interval> excluded;
    if (!options.blacklist.empty()) {
      excluded = data::read_blacklist(options.blacklist, genome.contigs(), options.fasta);
    }
    return data::sample_gc_matched_negatives(genome, peaks, excluded, options.sampling);
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
}

// The labelled BED: peaks' windows (1) and negatives (0), sorted by contig (FASTA order) and
// start, under a '#chrom start end TASK' header.
std::string labelled_bed(const data::NegativeSampling& sampled, const data::FastaReader& genome,
                         const std::string& task) {
  std::vector<std::pair<const data::Interval*, int>> rows;
  for (const data::Interval& iv : sampled.positives) rows.emplace_back(&iv, 1);
  for (const data::Interval& iv : sampled.negatives) rows.emplace_back(&iv, 0);
  std::stable_sort(rows.begin(), rows.end(), [&genome](const auto& a, const auto& b) {
    const int ia = genome.contig_id(a.first->contig);
    const int ib = genome.contig_id(b.first->contig);
    return ia != ib ? ia < ib : a.first->start < b.first->start;
  });
  std::string text = fmt::format("#chrom\tstart\tend\t{}\n", task);
  for (const auto& [iv, label] : rows) {
    text += fmt::format("{}\t{}\t{}\t{}\n", iv->contig, iv->start, iv->end, label);
  }
  return text;
}

}  // namespace

const std::vector<ConfigKey>& negatives_keys() {
  const std::vector<std::string> negatives = {"negatives"};
  static const std::vector<ConfigKey> keys = {
      {.key = "fasta",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.fasta; }),
       .flag = "--fasta",
       .help = "Genome FASTA",
       .commands = negatives,
       .required = true},
      {.key = "peaks",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.peaks; }),
       .flag = "--peaks",
       .help = "Peaks: BED (3+ columns) or narrowPeak (windows centred on summits)",
       .commands = negatives,
       .required = true},
      {.key = "format",
       .field = enum_field<NegativesOptions>(
           [](auto& o) -> auto& { return o.format; }, data::interval_format_names()),
       .choices = {"bed", "narrowpeak"},
       .flag = "--format",
       .help = "Format of --peaks",
       .commands = negatives,
       .unset = "narrowpeak for *.narrowPeak, else bed"},
      {.key = "blacklist",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.blacklist; }),
       .flag = "--blacklist",
       .help = "BED of regions negatives never overlap",
       .commands = negatives},
      {.key = "ratio",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.sampling.ratio; }),
       .range = RealRange{0.0, data::kMaxNegativesRatio, true},
       .flag = "--ratio",
       .help = "Negatives per peak, may be 0.5",
       .commands = negatives},
      {.key = "window",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.sampling.window; }),
       .range = data::loader_ranges::kWindow,
       .flag = "--window",
       .help = "Bases of each window (peaks' windows too)",
       .commands = negatives},
      {.key = "stride",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.sampling.stride; }),
       .range = IntRange{0, data::kMaxSequenceLength},
       .range_note = "0: the window",
       .flag = "--stride",
       .help = "Bases between candidate windows (0: the window, so negatives never overlap)",
       .commands = negatives},
      {.key = "gc-bins",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.sampling.gc_bins; }),
       .range = IntRange{1, 100000},
       .flag = "--gc-bins",
       .help = "GC-fraction bins matched (50: bins 0.02 wide)",
       .commands = negatives},
      {.key = "max-n-fraction",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.sampling.max_n_fraction; }),
       .range = RealRange{0.0, 1.0},
       .flag = "--max-n-fraction",
       .help = "Largest fraction of N in a negative",
       .commands = negatives},
      {.key = "chroms",
       .field = names_field<NegativesOptions>([](auto& o) -> auto& { return o.sampling.contigs; }),
       .flag = "--chroms",
       .help = "Contigs to draw from, comma-separated (default: all)",
       .commands = negatives},
      {.key = "seed",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.sampling.seed; }),
       .flag = "--seed",
       .help = "Seed",
       .commands = negatives},
      {.key = "out",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.out; }),
       .flag = "--out",
       .help = "Negatives BED to write",
       .commands = negatives,
       .required = true},
      {.key = "labelled-out",
       .field = field<NegativesOptions>([](auto& o) -> auto& { return o.labelled_out; }),
       .flag = "--labelled-out",
       .help = "Also write peaks' windows (label 1) and negatives (0) as a BED with a '#chrom "
               "start end TASK' header, TASK the peak file's stem",
       .commands = negatives},
  };
  return keys;
}

int64_t run_negatives(const NegativesOptions& options, std::ostream& log) {
  check_files(options);
  const data::FastaReader genome = [&] {
    try {
      return data::FastaReader(options.fasta);
    } catch (const data::DataError& error) {
      throw ConfigError(error.what());
    }
  }();
  const data::NegativeSampling sampled = draw_negatives(options, genome);
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
    labelled_file = std::make_unique<io::AtomicFileWriter>(options.labelled_out);
    labelled_file->write(labelled_bed(sampled, genome, task));
  }
  negatives_file.commit();
  if (labelled_file) labelled_file->commit();

  const int64_t window = options.sampling.window;
  log << fmt::format(
      "{} peaks, {} negatives of {} bp ({} candidate windows; {} drawn from a neighbouring GC "
      "bin); mean GC: peaks {:.4f}, negatives {:.4f}\n",
      sampled.positives.size(), sampled.negatives.size(), window, sampled.candidates,
      sampled.from_other_bins, mean(sampled.positive_gc), mean(sampled.negative_gc));
  log << fmt::format("wrote {}\n", options.out);
  if (labelled_file) {
    log << fmt::format(
        "wrote {} (task '{}': peaks 1, negatives 0)\ntrain on it with:\n  strand train --fasta "
        "{} --intervals {} --window {} --valid-fraction 0.1 --test-fraction 0.1\n",
        options.labelled_out, task, options.fasta, options.labelled_out, window);
  }
  return static_cast<int64_t>(sampled.negatives.size());
}

}  // namespace strand::cli
