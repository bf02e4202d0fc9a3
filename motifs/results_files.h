// The files `strand motifs` writes in its output folder, each atomically:
//   motifs.meme          each pattern's PPM (trimmed to where its CWM is at least 30% of its
//                        peak, as modisco report trims), named pos_pattern_0, ..., then
//                        neg_pattern_0, ..., each sign's largest first
//   patterns.npz         per pattern <name>_sequence (PPM), <name>_contrib (CWM) and
//                        <name>_hypothetical (hypothetical CWM), (L, 4) float32, untrimmed
//   seqlets.tsv          pattern, example (0-based sequence index), start, end, strand
//   modisco_results.h5   modisco-lite's HDF5 layout (motifs/modisco_h5.h)
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "motifs/discover.h"
#include "motifs/score_set.h"

namespace strand::motifs {

/// A pattern under its file name ("pos_pattern_0").
struct NamedPattern {
  std::string name;
  const Pattern* pattern;
};

/// Every pattern of a discovery, positive then negative, each sign's largest first.
std::vector<NamedPattern> named_patterns(const Discovery& discovery);

/// The first and one-past-last positions where sum |CWM| reaches `fraction` of its peak.
std::pair<int64_t, int64_t> trimmed_span(const std::vector<double>& cwm, double fraction = 0.3);

/// The MEME text of the patterns' trimmed PPMs.
std::string meme_text(const Discovery& discovery);

/// Writes the four files into `folder` (created when missing); returns their paths.
std::vector<std::filesystem::path> write_results(const std::filesystem::path& folder,
                                                 const Discovery& discovery, const ScoreSet& scores,
                                                 int64_t window);

}  // namespace strand::motifs
