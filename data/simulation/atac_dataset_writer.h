// Writes a simulated ATAC-seq dataset (data/simulation/atac_simulation.h) as real data comes:
// genome FASTA (+ .fai), a bigWig of cut sites, peaks as narrowPeak, GC-matched non-peaks as
// BED (as `strand negatives` draws them), and the peaks and non-peaks together as one BED.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "data/simulation/atac_simulation.h"

namespace strand::data {

/// The files write_atac_dataset() wrote.
struct AtacDatasetFiles {
  std::filesystem::path fasta;           ///< genome.fa
  std::filesystem::path cuts;            ///< cuts.bw: cut sites per base, unstranded
  std::filesystem::path peaks;           ///< peaks.narrowPeak
  std::filesystem::path nonpeaks;        ///< nonpeaks.bed
  std::filesystem::path peaks_nonpeaks;  ///< peaks_nonpeaks.bed
  std::size_t peak_count = 0, nonpeak_count = 0;
};

/// Writes into `dir` (created): genome.fa and its .fai; cuts.bw; peaks.narrowPeak (`chrom start
/// end peak<i>_<motif> score . cuts -1 -1 summit`, 200 bases around each TF instance's centre,
/// the summit at it); nonpeaks.bed, `nonpeak_ratio` GC-matched `window`-base windows per peak
/// (data/intervals/negatives.h; none overlapping a peak's accessible bases), by contig and
/// start; and peaks_nonpeaks.bed: the peaks (as BED3) then the non-peaks. All or nothing: the
/// files are written into a staging folder in `dir` and renamed into `dir` once every one is
/// complete; on failure nothing is left (nor `dir`, if this call created it). Throws DataError
/// when the genome holds too few candidate non-peak windows.
AtacDatasetFiles write_atac_dataset(const std::filesystem::path& dir, const AtacSimulation& sim,
                                    std::size_t window, double nonpeak_ratio);

}  // namespace strand::data
