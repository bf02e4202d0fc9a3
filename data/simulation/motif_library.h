// Position weight matrix library in the ENCODE (Kheradpour & Kellis) motif format.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace strand::data {

/// One motif: a position weight matrix with rows of base probabilities in A, C, G, T order.
struct Motif {
  std::string name;                         ///< e.g. "TAL1_known4"
  std::vector<std::string> aliases;         ///< further words of the header line
  std::string consensus;                    ///< IUPAC letter of each row, as in the file
  std::vector<std::array<double, 4>> rows;  ///< probabilities pA, pC, pG, pT per position

  /// Number of positions.
  [[nodiscard]] std::size_t length() const { return rows.size(); }
};

/// A set of motifs parsed from ENCODE-format text: `>NAME<whitespace>alias...` header lines,
/// each followed by one `IUPAC pA pC pG pT` row per position. Blank lines are ignored.
class MotifLibrary {
 public:
  /// Parses a plain or gzip-compressed file. Errors name the file and line.
  static MotifLibrary load(const std::filesystem::path& path);
  /// Parses text; `source` names it in errors. Rejects rows before any header, rows without
  /// exactly 5 fields, non-numeric or negative probabilities, rows not summing to 1 (within
  /// 0.01), headers without rows, and duplicate names.
  static MotifLibrary parse(std::string_view text, std::string_view source);

  /// The motif called `name`; throws std::out_of_range naming it (and the library's source).
  [[nodiscard]] const Motif& get(std::string_view name) const;
  /// Whether a motif called `name` exists.
  [[nodiscard]] bool contains(std::string_view name) const;
  /// All motifs, in file order.
  [[nodiscard]] const std::vector<Motif>& motifs() const { return motifs_; }
  /// Number of motifs.
  [[nodiscard]] std::size_t size() const { return motifs_.size(); }

 private:
  std::string source_;
  std::vector<Motif> motifs_;
};

/// The ENCODE motif file shipped with strand: data/motifs/encode_motifs.txt.gz under the source
/// tree (env STRAND_SOURCE_DIR overrides the compiled-in location).
[[nodiscard]] std::filesystem::path default_motif_file();

}  // namespace strand::data
