// Naming patterns against a motif database, TOMTOM's way (Gupta et al. 2007): columns compared
// by Pearson correlation, an alignment's score the sum over its overlapping columns, its p-value
// from the exact null distribution of that sum (each query column's scores against every column
// of the database, quantised and convolved over the columns the alignment covers), the best
// alignment's p-value corrected for the alignments tried, and Benjamini-Hochberg q-values over
// the database's motifs. Also the MEME motif file format it reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strand::motifs {

/// A motif of a MEME file: its name and (width, 4) letter probabilities.
struct Motif {
  std::string name;
  std::vector<double> ppm;
  [[nodiscard]] int64_t width() const { return static_cast<int64_t>(ppm.size() / 4); }
};

/// The motifs of a MEME file ("MOTIF name" then "letter-probability matrix:" and its rows).
/// Throws naming the file and line for a malformed matrix, or when it holds no motif.
std::vector<Motif> read_meme(const std::filesystem::path& path);

/// One database motif's match of a query.
struct MotifMatch {
  std::string name;
  double p_value = 1;
  double q_value = 1;
  int64_t offset = 0;  ///< the target's first column on the query's
  bool revcomp = false;
};

/// The `top` best matches of `query` among `database`, best first.
std::vector<MotifMatch> tomtom(const std::vector<double>& query, const std::vector<Motif>& database,
                               int64_t top);

}  // namespace strand::motifs
