// write_atac_dataset: genome, cut bigWig, peaks and GC-matched non-peaks.
#include "data/simulation/atac_dataset_writer.h"

#include <fmt/format.h>

#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

#include "data/data_error.h"
#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"
#include "data/intervals/negatives.h"
#include "data/simulation/profile_dataset_writer.h"
#include "io/atomic_file.h"

namespace strand::data {
namespace {

// A uniquely named folder in `dir` that holds the dataset's files until all are written; removed
// (with anything in it) unless release()d, so a failure leaves no file behind.
class StagingFolder {
 public:
  explicit StagingFolder(const std::filesystem::path& dir) {
    std::string name = (dir / ".atac-staging.XXXXXX").string();
    if (mkdtemp(name.data()) == nullptr) {
      throw DataError(fmt::format("could not create a staging folder in '{}'", dir.string()));
    }
    path_ = name;
  }
  ~StagingFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Removes `dir` at scope exit if this call created it and it is still empty (a failed write).
class CreatedFolder {
 public:
  explicit CreatedFolder(const std::filesystem::path& dir)
      : dir_(dir), created_(std::filesystem::create_directories(dir)) {}
  ~CreatedFolder() {
    std::error_code ignored;
    if (created_ && std::filesystem::is_empty(dir_, ignored))
      std::filesystem::remove(dir_, ignored);
  }
  CreatedFolder(const CreatedFolder&) = delete;
  CreatedFolder& operator=(const CreatedFolder&) = delete;

 private:
  std::filesystem::path dir_;
  bool created_;
};

// Writes the dataset into `dir` (the staging folder); the paths in the result are `dir`'s.
AtacDatasetFiles write_files(const std::filesystem::path& dir, const AtacSimulation& sim,
                             std::size_t window, double nonpeak_ratio) {
  constexpr std::size_t kPeakWidth = 200;
  AtacDatasetFiles files;
  files.fasta = dir / "genome.fa";
  write_genome(files.fasta, sim.contig_names, sim.sequences);
  std::vector<Contig> contigs;
  for (std::size_t k = 0; k < sim.contig_names.size(); ++k) {
    contigs.push_back({sim.contig_names[k], static_cast<int64_t>(sim.sequences[k].size())});
  }
  files.cuts = dir / "cuts.bw";
  write_track(files.cuts, contigs, sim.cuts);

  IntervalSet peaks;
  std::vector<Interval> near_peaks;  // no non-peak overlaps a peak's accessible bases
  std::string narrow_peaks, peak_bed;
  for (std::size_t i = 0; i < sim.peaks.size(); ++i) {
    const AtacPeak& p = sim.peaks[i];
    const auto centre = static_cast<int64_t>(p.centre);
    const int64_t start = centre - static_cast<int64_t>(kPeakWidth / 2);
    const int64_t end = start + static_cast<int64_t>(kPeakWidth);
    const std::string& contig = sim.contig_names[p.contig];
    narrow_peaks += fmt::format("{}\t{}\t{}\tpeak{}\t{}\t.\t{}\t-1\t-1\t{}\n", contig, start, end,
                                i + 1, std::min(p.cuts, 1000.0), p.cuts, centre - start);
    peak_bed += fmt::format("{}\t{}\t{}\n", contig, start, end);
    peaks.intervals.push_back({contig, start, end, centre, static_cast<int64_t>(i + 1)});
    const auto reach = static_cast<int64_t>(sim.config.peak_half_width);
    near_peaks.push_back({contig, std::max<int64_t>(0, centre - reach), centre + reach + 1});
  }
  files.peaks = dir / "peaks.narrowPeak";
  io::write_file_atomically(files.peaks, narrow_peaks);
  files.peak_count = sim.peaks.size();

  const FastaReader genome(files.fasta.string());
  NegativeSamplingOptions options;
  options.window = static_cast<int64_t>(window);
  options.ratio = nonpeak_ratio;
  options.seed = sim.config.seed;
  const NegativeSampling drawn = sample_gc_matched_negatives(genome, peaks, near_peaks, options);
  std::string nonpeak_bed;
  for (const Interval& n : drawn.negatives) {
    nonpeak_bed += fmt::format("{}\t{}\t{}\n", n.contig, n.start, n.end);
  }
  files.nonpeak_count = drawn.negatives.size();
  files.nonpeaks = dir / "nonpeaks.bed";
  io::write_file_atomically(files.nonpeaks, nonpeak_bed);
  files.peaks_nonpeaks = dir / "peaks_nonpeaks.bed";
  io::write_file_atomically(files.peaks_nonpeaks, peak_bed + nonpeak_bed);
  return files;
}

}  // namespace

AtacDatasetFiles write_atac_dataset(const std::filesystem::path& dir, const AtacSimulation& sim,
                                    std::size_t window, double nonpeak_ratio) {
  const CreatedFolder created(dir);
  // Everything, the non-peak draw included (it reads the written genome), goes to a staging
  // folder first; only when all succeeded are the files renamed into `dir`, so a failure (too
  // few non-peak windows, a full disk) leaves no half-written dataset.
  const StagingFolder staging(dir);
  AtacDatasetFiles files;
  try {
    files = write_files(staging.path(), sim, window, nonpeak_ratio);
  } catch (const DataError& error) {
    // Name the files where the user will look for them, not the staging folder.
    std::string message = error.what();
    const std::string from = staging.path().string(), to = dir.string();
    for (std::size_t at = message.find(from); at != std::string::npos;
         at = message.find(from, at + to.size())) {
      message.replace(at, from.size(), to);
    }
    throw DataError(message);
  }
  for (const auto& entry : std::filesystem::directory_iterator(staging.path())) {
    std::filesystem::rename(entry.path(), dir / entry.path().filename());
  }
  for (std::filesystem::path* path :
       {&files.fasta, &files.cuts, &files.peaks, &files.nonpeaks, &files.peaks_nonpeaks}) {
    *path = dir / path->filename();
  }
  return files;
}

}  // namespace strand::data
