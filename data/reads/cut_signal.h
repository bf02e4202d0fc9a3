// Reads to a base-resolution signal: a bigWig of cut counts per base (unstranded, or one per
// strand) with chromosome sizes from the FASTA, and the cut motif that checks the shift
// (cut_motif.h) as a MEME file beside it. The engine of `strand signal`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "data/reads/cut_counter.h"
#include "data/reads/cut_motif.h"
#include "data/reads/read_cuts.h"

namespace strand::data {

/// What write_cut_signal() reads and writes.
struct CutSignalOptions {
  std::string reads;      ///< SAM/BAM/CRAM or fragment file
  std::string fasta;      ///< the genome: chromosome sizes (its .fai), CRAM reference, motif
  std::string blacklist;  ///< BED of regions whose cuts are dropped; optional
  CutReaderOptions reader;
  bool stranded = false;      ///< write <stem>.plus.bw and <stem>.minus.bw instead of one file
  std::filesystem::path out;  ///< the bigWig (stranded: gives the stem)
  int motif_width = 24;       ///< window of the cut motif (chrombpnet's default)
};

/// The files write_cut_signal() writes for `out`: the bigWig(s), then the cut motif
/// (<stem>.cut_motif.meme), where <stem> is `out` without a ".bw" or ".bigWig" suffix.
std::vector<std::filesystem::path> cut_signal_paths(const std::filesystem::path& out,
                                                    bool stranded);

/// What write_cut_signal() did.
struct CutSignalSummary {
  ReadTally reads;
  CutTally cuts;
  CutMotif motif;
  std::vector<std::filesystem::path> written;  ///< cut_signal_paths()
};

/// Streams the reads once and writes the track(s) and the motif, each atomically (a stop
/// request, core/stop_signal.h, ends it with nothing published). Warns (data/warnings.h) about
/// records on contigs the FASTA lacks and when no cut was counted. Throws DataError naming the
/// file for bad input.
CutSignalSummary write_cut_signal(const CutSignalOptions& options);

}  // namespace strand::data
