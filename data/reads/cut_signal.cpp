// One pass over the reads: reader -> counter -> bigWig writer(s) and motif counter.
#include "data/reads/cut_signal.h"

#include <fmt/format.h>

#include "core/stop_signal.h"
#include "data/data_error.h"
#include "data/intervals/negatives.h"
#include "data/meme.h"
#include "data/signals/bigwig.h"
#include "data/warnings.h"

namespace strand::data {
namespace {

std::string stem_of(const std::filesystem::path& out) {
  std::string stem = out.string();
  for (const char* suffix : {".bw", ".bigWig", ".bigwig"}) {
    if (stem.ends_with(suffix) && stem.size() > std::string_view(suffix).size()) {
      stem.resize(stem.size() - std::string_view(suffix).size());
      break;
    }
  }
  return stem;
}

ExcludedRanges blacklist_ranges(const CutSignalOptions& options, const FastaReader& genome) {
  ExcludedRanges ranges(genome.contigs().size());
  if (options.blacklist.empty()) return ranges;
  for (const Interval& iv : read_blacklist(options.blacklist, genome.contigs(), options.fasta)) {
    ranges[static_cast<size_t>(genome.contig_id(iv.contig))].emplace_back(iv.start, iv.end);
  }
  return ranges;
}

void warn_about(const CutSignalOptions& options, const CutSignalSummary& summary) {
  const auto& unknown = summary.reads.unknown_contigs;
  if (!unknown.empty()) {
    int64_t records = 0;
    std::string names;
    for (const auto& [name, count] : unknown) {
      records += count;
      if (names.size() < 200)
        names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", name, count);
    }
    warn(fmt::format(
        "reads '{}': {} records on {} contig(s) that FASTA '{}' lacks were skipped: {} (another "
        "assembly or naming?)",
        options.reads, records, unknown.size(), options.fasta, names));
  }
  if (summary.cuts.counted == 0) {
    warn(
        fmt::format("reads '{}': no cut was counted ({} records read, {} kept): the track is "
                    "empty",
                    options.reads, summary.reads.records, summary.reads.kept));
  }
}

}  // namespace

std::vector<std::filesystem::path> cut_signal_paths(const std::filesystem::path& out,
                                                    bool stranded) {
  const std::string stem = stem_of(out);
  std::vector<std::filesystem::path> paths;
  if (stranded) {
    paths = {stem + ".plus.bw", stem + ".minus.bw"};
  } else {
    paths = {out};
  }
  paths.emplace_back(stem + ".cut_motif.meme");
  return paths;
}

CutSignalSummary write_cut_signal(const CutSignalOptions& options) {
  const FastaReader genome(options.fasta);
  CutReaderOptions reader_options = options.reader;
  if (reader_options.reference.empty()) reader_options.reference = options.fasta;
  const std::unique_ptr<CutReader> reader = open_cut_reader(options.reads, genome, reader_options);
  CutSignalSummary summary;
  summary.written = cut_signal_paths(options.out, options.stranded);
  std::vector<std::unique_ptr<BigWigWriter>> tracks;
  for (size_t i = 0; i + 1 < summary.written.size(); ++i) {
    tracks.push_back(std::make_unique<BigWigWriter>(summary.written[i], genome.contigs()));
  }
  CutMotifCounter motif(genome, options.motif_width);
  std::vector<float> values;
  const auto sink = [&](const CutChunk& chunk) {
    const std::string& contig = genome.contigs()[static_cast<size_t>(chunk.contig)].name;
    values.resize(chunk.plus.size());
    if (options.stranded) {
      for (size_t s = 0; s < 2; ++s) {
        const std::span<const uint32_t> counts = s == 0 ? chunk.plus : chunk.minus;
        for (size_t i = 0; i < counts.size(); ++i) values[i] = static_cast<float>(counts[i]);
        tracks[s]->add_values(contig, chunk.start, values);
      }
    } else {
      for (size_t i = 0; i < values.size(); ++i) {
        values[i] = static_cast<float>(chunk.plus[i] + chunk.minus[i]);
      }
      tracks[0]->add_values(contig, chunk.start, values);
    }
    motif.add(chunk);
    throw_if_stop_requested();
  };
  CutCounter counter(genome.contigs(), reader_options.shift, blacklist_ranges(options, genome),
                     sink);
  RecordCuts record;
  for (int64_t n = 1; reader->next(record); ++n) {
    counter.add(record);
    if (n % (int64_t{1} << 16) == 0) throw_if_stop_requested();
  }
  counter.finish();
  throw_if_stop_requested();
  summary.reads = reader->tally();
  summary.cuts = counter.tally();
  summary.motif = motif.motif();
  warn_about(options, summary);
  for (const auto& track : tracks) track->finish();
  const std::string name = std::filesystem::path(stem_of(options.out)).filename().string();
  const std::vector<Motif> matrices = cut_motif_matrices(summary.motif, name + "_cuts");
  if (matrices.empty()) {
    summary.written.pop_back();  // no cut with a full window: no motif to write
  } else {
    write_meme(summary.written.back(), matrices);
  }
  return summary;
}

}  // namespace strand::data
