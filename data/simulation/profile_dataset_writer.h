// Writes a simulated profile dataset in the formats real data comes in: genome FASTA (+ .fai),
// stranded bigWigs per task, a control bigWig and narrowPeak files per split.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/simulation/profile_simulation.h"

namespace strand::data {

/// The files write_profile_dataset() wrote.
struct ProfileDatasetFiles {
  std::filesystem::path fasta;                    ///< genome.fa
  std::vector<std::filesystem::path> plus;        ///< (tasks) <task>.plus.bw
  std::vector<std::filesystem::path> minus;       ///< (tasks) <task>.minus.bw
  std::filesystem::path control;                  ///< control.bw, or empty
  std::filesystem::path train, validation, test;  ///< {train,valid,test}.narrowPeak
  std::size_t train_peaks = 0, validation_peaks = 0, test_peaks = 0;  ///< peaks per split
};

/// Writes `sequences` (codes, A=0 C=1 G=2 T=3, else N) named `names` as a FASTA of 60 bases per
/// line, atomically, and builds its .fai (an older index is removed first).
void write_genome(const std::filesystem::path& path, const std::vector<std::string>& names,
                  const std::vector<std::vector<std::uint8_t>>& sequences);

/// Writes one value per base of each contig as a bigWig.
void write_track(const std::filesystem::path& path, const std::vector<Contig>& contigs,
                 const std::vector<std::vector<float>>& values);

/// File name stem of a task: its name with every byte other than letters, digits, '_', '-' and
/// '.' replaced by '_' ("AHR::ARNT_1" -> "AHR__ARNT_1").
std::string task_file_stem(const std::string& task);

/// Writes into `dir` (created): genome.fa (60 bases per line) and its .fai; per task
/// <stem>.plus.bw and <stem>.minus.bw (read counts); control.bw when the simulation has a
/// control; and the peaks as narrowPeak by contig: the last contig is the test set, the one
/// before it the validation set, the others train (test.narrowPeak, valid.narrowPeak,
/// train.narrowPeak). A peak line is `chrom start end peak<i>_<task> score . reads -1 -1
/// summit`: `peak_width` bases around the motif centre (clipped to the contig), score
/// min(reads, 1000), the summit offset at the motif centre. Every file is written atomically.
ProfileDatasetFiles write_profile_dataset(const std::filesystem::path& dir,
                                          const ProfileSimulation& simulation,
                                          std::size_t peak_width = 200);

}  // namespace strand::data
