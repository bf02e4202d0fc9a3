// modisco-lite's results file (io.save_hdf5): the attribute window_size, then groups
// pos_patterns/ and neg_patterns/ with pattern_0, pattern_1, ... each holding sequence,
// contrib_scores and hypothetical_contribs ((L, 4) float64) and seqlets/ (n_seqlets, start, end,
// example_idx, is_revcomp, and each seqlet's (n, L, 4) float32 tracks). `modisco report`, finemo
// and tangermeme read this layout. Written through the HDF5 C library to a temporary file in the
// target's folder, renamed over the target when complete.
#pragma once

#include <filesystem>

#include "motifs/discover.h"
#include "motifs/score_set.h"

namespace strand::motifs {

/// Writes the patterns of `discovery` to `path` atomically. Throws naming the path on failure.
void write_modisco_h5(const std::filesystem::path& path, const Discovery& discovery,
                      const ScoreSet& scores, int64_t window);

}  // namespace strand::motifs
