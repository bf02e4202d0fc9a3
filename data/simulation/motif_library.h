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
  /// The ENCODE library shipped with strand (data/motifs/encode_motifs.txt.gz: 2,067 motifs),
  /// built into the library: it needs no file at run time. Parsed once, on first use.
  static const MotifLibrary& builtin();
  /// `path`'s library, or the built-in one when `path` is empty (a `motif_file` key left unset).
  static MotifLibrary load_or_builtin(const std::filesystem::path& path);
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
  /// Where the motifs came from, as errors name it: the file, or the built-in library.
  [[nodiscard]] const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::vector<Motif> motifs_;
};

}  // namespace strand::data
