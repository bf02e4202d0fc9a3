// write_profile_dataset: genome FASTA and index, bigWigs and narrowPeak splits.
#include "data/simulation/profile_dataset_writer.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "data/fasta/fasta_reader.h"
#include "data/signals/bigwig.h"
#include "data/simulation/motif_simulation.h"
#include "io/atomic_file.h"

namespace strand::data {
namespace {

constexpr std::size_t kFastaLineBases = 60;

}  // namespace

void write_genome(const std::filesystem::path& path, const std::vector<std::string>& names,
                  const std::vector<std::vector<std::uint8_t>>& sequences) {
  std::string text;
  for (std::size_t k = 0; k < names.size(); ++k) {
    text += ">" + names[k] + "\n";
    const std::vector<std::uint8_t>& codes = sequences[k];
    for (std::size_t i = 0; i < codes.size(); i += kFastaLineBases) {
      const std::size_t end = std::min(codes.size(), i + kFastaLineBases);
      for (std::size_t j = i; j < end; ++j) text += kBaseLetters[codes[j] < 5 ? codes[j] : 4];
      text += '\n';
    }
  }
  // An index of an earlier dataset would be stale (and rebuilt with a warning): remove it, and
  // build the new one now, so the dataset is complete as written.
  std::filesystem::remove(path.string() + ".fai");
  io::write_file_atomically(path, text);
  const FastaReader index_builder(path.string());
}

void write_track(const std::filesystem::path& path, const std::vector<Contig>& contigs,
                 const std::vector<std::vector<float>>& values) {
  BigWigWriter writer(path, contigs);
  for (std::size_t k = 0; k < contigs.size(); ++k) writer.add_values(contigs[k].name, 0, values[k]);
  writer.finish();
}

std::string task_file_stem(const std::string& task) {
  std::string stem = task;
  for (char& c : stem) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.';
    if (!keep) c = '_';
  }
  return stem;
}

ProfileDatasetFiles write_profile_dataset(const std::filesystem::path& dir,
                                          const ProfileSimulation& simulation,
                                          std::size_t peak_width) {
  const ProfileSimulation& sim = simulation;
  // Two tasks whose names give one file stem ("A/B" and "A_B") would write the same bigWigs.
  for (std::size_t t = 0; t < sim.task_names.size(); ++t) {
    for (std::size_t u = 0; u < t; ++u) {
      if (task_file_stem(sim.task_names[t]) == task_file_stem(sim.task_names[u])) {
        throw std::invalid_argument(fmt::format(
            "tasks '{}' and '{}' would both write {}.plus.bw; give motifs with distinct names",
            sim.task_names[u], sim.task_names[t], task_file_stem(sim.task_names[t])));
      }
    }
  }
  std::filesystem::create_directories(dir);
  ProfileDatasetFiles files;
  files.fasta = dir / "genome.fa";
  write_genome(files.fasta, sim.contig_names, sim.sequences);

  std::vector<Contig> contigs;
  for (std::size_t k = 0; k < sim.contig_names.size(); ++k) {
    contigs.push_back({sim.contig_names[k], static_cast<int64_t>(sim.sequences[k].size())});
  }
  for (std::size_t t = 0; t < sim.task_names.size(); ++t) {
    const std::string stem = task_file_stem(sim.task_names[t]);
    files.plus.push_back(dir / (stem + ".plus.bw"));
    files.minus.push_back(dir / (stem + ".minus.bw"));
    write_track(files.plus.back(), contigs, sim.plus[t]);
    write_track(files.minus.back(), contigs, sim.minus[t]);
  }
  if (!sim.control.empty()) {
    files.control = dir / "control.bw";
    write_track(files.control, contigs, sim.control);
  }

  // Contig holdout: the last contig is the test set, the one before it the validation set.
  const std::size_t test_contig = contigs.size() - 1;
  const std::size_t valid_contig = contigs.size() - 2;
  std::string train, valid, test;
  for (std::size_t i = 0; i < sim.peaks.size(); ++i) {
    const ProfilePeak& p = sim.peaks[i];
    const std::size_t length = sim.sequences[p.contig].size();
    const std::size_t start = p.centre > peak_width / 2 ? p.centre - peak_width / 2 : 0;
    const std::size_t end = std::min(length, start + peak_width);
    const std::string line =
        fmt::format("{}\t{}\t{}\tpeak{}_{}\t{}\t.\t{}\t-1\t-1\t{}\n", sim.contig_names[p.contig],
                    start, end, i + 1, task_file_stem(sim.task_names[p.task]),
                    std::min<std::uint64_t>(p.reads, 1000), p.reads, p.centre - start);
    if (p.contig == test_contig) {
      test += line;
      ++files.test_peaks;
    } else if (p.contig == valid_contig) {
      valid += line;
      ++files.validation_peaks;
    } else {
      train += line;
      ++files.train_peaks;
    }
  }
  files.train = dir / "train.narrowPeak";
  files.validation = dir / "valid.narrowPeak";
  files.test = dir / "test.narrowPeak";
  io::write_file_atomically(files.train, train);
  io::write_file_atomically(files.validation, valid);
  io::write_file_atomically(files.test, test);
  return files;
}

}  // namespace strand::data
