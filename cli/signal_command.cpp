// Reads to a cut-count bigWig: flags, checks, and the printed summary.
#include "cli/signal_command.h"

#include <fmt/format.h>

#include "app/command_paths.h"
#include "data/data_error.h"

namespace strand::cli {

using app::ConfigError;
using app::ConfigKey;
using app::enum_field;
using app::field;
namespace {

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = {"alignments", "fragments"};
  return names;
}

const std::vector<std::string>& assay_names() {
  static const std::vector<std::string> names = {"atac", "dnase"};
  return names;
}

// Inputs exist, outputs can be written and replace no input.
void check_files(const SignalOptions& o) {
  if (o.reads.empty()) throw ConfigError("--reads: a SAM/BAM/CRAM or fragment file is required");
  if (o.fasta.empty()) throw ConfigError("--fasta: the genome FASTA is required");
  if (o.out.empty()) throw ConfigError("--out: the bigWig to write is required");
  if (!o.assay) throw ConfigError("--assay: atac or dnase is required (it sets the shift)");
  if (o.motif_width % 2 != 0) {
    throw ConfigError(fmt::format("--motif-width: must be even, got {}", o.motif_width));
  }
  if (o.shift_plus.has_value() != o.shift_minus.has_value()) {
    throw ConfigError("--shift-plus and --shift-minus: give both or neither");
  }
  app::check_input_file(o.reads, "--reads");
  app::check_input_file(o.fasta, "--fasta");
  app::check_input_file(o.blacklist, "--blacklist");
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {o.reads, "--reads"}, {o.fasta, "--fasta"}, {o.blacklist, "--blacklist"}};
  std::vector<std::pair<std::string, std::string>> outputs;
  for (const auto& path : data::cut_signal_paths(o.out, o.stranded)) {
    outputs.emplace_back(path.string(), "--out");
  }
  app::check_output_files(outputs, inputs);
}

data::CutSignalOptions library_options(const SignalOptions& o) {
  data::CutSignalOptions options;
  options.reads = o.reads;
  options.fasta = o.fasta;
  options.blacklist = o.blacklist;
  options.stranded = o.stranded;
  options.out = o.out;
  options.motif_width = static_cast<int>(o.motif_width);
  data::CutReaderOptions& reader = options.reader;
  reader.format = o.format ? *o.format : data::detect_reads_format(o.reads);
  reader.shift = o.shift_plus ? data::CutShift{*o.shift_plus, *o.shift_minus}
                              : data::default_cut_shift(*o.assay, reader.format);
  reader.filters.min_mapq = o.min_mapq;
  reader.filters.keep_duplicates = o.keep_duplicates;
  reader.filters.proper_pairs_only = o.proper_pairs_only;
  return options;
}

void print_summary(const data::CutSignalOptions& options, const data::CutSignalSummary& s,
                   std::ostream& log) {
  const data::ReadTally& r = s.reads;
  const bool fragments = options.reader.format == data::ReadsFormat::kFragments;
  log << fmt::format("{} {} read, {} kept", r.records, fragments ? "fragments" : "records", r.kept);
  if (!fragments) {
    log << fmt::format(
        "; dropped: {} unmapped, {} secondary/supplementary, {} QC-failed, {} duplicates, {} "
        "below mapq {}, {} not properly paired",
        r.unmapped, r.secondary, r.qc_fail, r.duplicates, r.low_mapq,
        options.reader.filters.min_mapq, r.not_proper_pair);
  }
  int64_t unknown = 0;
  for (const auto& entry : r.unknown_contigs) unknown += entry.second;
  log << fmt::format(", {} on contigs not in the FASTA\n", unknown);
  log << fmt::format(
      "shift: + strand 5' base {:+d}, - strand 5' base {:+d}; {} cuts counted, {} outside "
      "their contig, {} in the blacklist\n",
      options.reader.shift.plus, options.reader.shift.minus, s.cuts.counted, s.cuts.outside,
      s.cuts.blacklisted);
  log << data::cut_motif_report(s.motif);
  for (const auto& path : s.written) log << fmt::format("wrote {}\n", path.string());
}

}  // namespace

const std::vector<ConfigKey>& signal_keys() {
  const std::vector<std::string> signal = {"signal"};
  static const std::vector<ConfigKey> keys = {
      {.key = "reads",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.reads; }),
       .flag = "--reads",
       .help = "Reads: SAM/BAM/CRAM sorted by coordinate, or a 10x-style fragment file (chrom, "
               "start, end[, barcode, count]; plain or gzipped) sorted by start per contig",
       .commands = signal,
       .required = true},
      {.key = "format",
       .field = enum_field<SignalOptions>(
           [](auto& o) -> auto& { return o.format; }, format_names()),
       .choices = format_names(),
       .flag = "--format",
       .help = "What --reads holds",
       .commands = signal,
       .unset = "alignments when HTSlib reads it as SAM/BAM/CRAM, else fragments"},
      {.key = "fasta",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.fasta; }),
       .flag = "--fasta",
       .help = "Genome FASTA: the chromosome sizes (only its contigs are written), the CRAM "
               "reference and the cut motif's bases",
       .commands = signal,
       .required = true},
      {.key = "assay",
       .field = enum_field<SignalOptions>(
           [](auto& o) -> auto& { return o.assay; }, assay_names()),
       .choices = assay_names(),
       .flag = "--assay",
       .help = "The enzyme, which sets the shift as chrombpnet does: atac +4/-4 on alignments, "
               "dnase 0/+1; fragments 0/+1 (10x fragments are already shifted +4/-5)",
       .commands = signal,
       .required = true},
      {.key = "shift-plus",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.shift_plus; }),
       .range = IntRange{-1000, 1000},
       .flag = "--shift-plus",
       .help = "Bases added to a + strand read's 5' base (a fragment's start) instead of the "
               "assay's; with --shift-minus",
       .commands = signal,
       .unset = "the assay's"},
      {.key = "shift-minus",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.shift_minus; }),
       .range = IntRange{-1000, 1000},
       .flag = "--shift-minus",
       .help = "Bases added to a - strand read's 5' base, its last aligned base (a fragment's "
               "end - 1), instead of the assay's; with --shift-plus",
       .commands = signal,
       .unset = "the assay's"},
      {.key = "min-mapq",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.min_mapq; }),
       .range = IntRange{0, 255},
       .flag = "--min-mapq",
       .help = "Drop alignments of lower mapping quality",
       .commands = signal},
      {.key = "keep-duplicates",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.keep_duplicates; }),
       .flag = "--keep-duplicates",
       .help = "Count alignments flagged duplicate (0x400); weight fragments by their count "
               "column (by default each fragment line counts once)",
       .commands = signal},
      {.key = "proper-pairs-only",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.proper_pairs_only; }),
       .flag = "--proper-pairs-only",
       .help = "Drop alignments not flagged properly paired (0x2)",
       .commands = signal},
      {.key = "blacklist",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.blacklist; }),
       .flag = "--blacklist",
       .help = "BED of regions whose cuts are dropped",
       .commands = signal},
      {.key = "stranded",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.stranded; }),
       .flag = "--stranded",
       .help = "Write + and - strand cuts as <stem>.plus.bw and <stem>.minus.bw (<stem>: --out "
               "without .bw) instead of one unstranded bigWig",
       .commands = signal},
      {.key = "motif-width",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.motif_width; }),
       .range = IntRange{2, 1000},
       .flag = "--motif-width",
       .help = "Bases of the cut motif's window, even (chrombpnet's build_pwm_from_bigwig: 24)",
       .commands = signal},
      {.key = "out",
       .field = field<SignalOptions>([](auto& o) -> auto& { return o.out; }),
       .flag = "--out",
       .help = "bigWig of cuts per base to write; the cut motif goes to <stem>.cut_motif.meme",
       .commands = signal,
       .required = true},
  };
  return keys;
}

data::CutSignalSummary run_signal(const SignalOptions& options, std::ostream& log) {
  check_files(options);
  try {
    const data::CutSignalOptions library = library_options(options);
    const data::CutSignalSummary summary = data::write_cut_signal(library);
    print_summary(library, summary, log);
    return summary;
  } catch (const data::DataError& error) {
    throw ConfigError(error.what());
  }
}

}  // namespace strand::cli
