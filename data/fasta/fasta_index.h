// FASTA index management: find, validate (staleness) and atomically build .fai/.gzi files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strand::data {

/// What to do with an index that is older than its FASTA or does not match it (fai_mismatch in
/// data/fasta/fai_check.h: records not at their offsets, lengths or line geometry that do not fit).
enum class StaleIndexPolicy {
  kRebuild,  ///< build a fresh index (atomically) in its place, with one warning() saying why
  kError,    ///< throw DataError naming the index and why it is stale
};

/// Where the index lives and how strict to be when opening a FASTA.
struct FastaOptions {
  /// .fai path; empty means "<fasta>.fai". Point it at a writable directory when the FASTA
  /// sits in a read-only one.
  std::string index_path;
  /// .gzi path for BGZF input; empty means "<fasta>.gzi".
  std::string gzi_path;
  /// Build a missing index (otherwise a missing index is an error).
  bool build_missing_index = true;
  /// What to do with a stale index.
  StaleIndexPolicy stale_index = StaleIndexPolicy::kRebuild;
  /// htslib reads "> chr1" as record "chr1" and ">" as an empty name; other tools disagree, so
  /// such headers are an error by default. Checked whenever strand builds the index, with the
  /// rest of the content (check_fasta_content in data/fasta/fasta_scan.h).
  bool allow_loose_headers = false;
};

/// One line of a .fai file.
struct FaiEntry {
  std::string name;        ///< record name
  int64_t line = 0;        ///< 1-based line in the .fai (for messages)
  int64_t length = 0;      ///< bases in the record
  int64_t offset = 0;      ///< byte offset of its first base (uncompressed)
  int64_t line_bases = 0;  ///< bases per full line
  int64_t line_width = 0;  ///< bytes per full line, terminator included
};

/// Resolved index locations for a FASTA, after ensure_fasta_index().
struct FastaIndexPaths {
  std::string fai;     ///< the .fai in use
  std::string gzi;     ///< empty for an uncompressed FASTA
  bool bgzf = false;   ///< the FASTA is BGZF-compressed
  bool built = false;  ///< true when this call (re)built the index
};

/// Checks that `fasta` is a readable file, plain or BGZF (not plain gzip, not a BGZF file
/// without its end-of-file marker); returns whether it is BGZF. Throws DataError naming the file
/// and a fix.
bool check_fasta_file(const std::string& fasta);

/// Checks that `fasta` is readable (plain or BGZF, not plain gzip, not truncated), then makes
/// sure a current index exists: builds a missing one, rebuilds or rejects a stale one. Before
/// building, the whole FASTA is checked (check_fasta_content: binary bytes, uneven lines, ...).
/// Throws DataError with the file, the problem and a suggested fix.
FastaIndexPaths ensure_fasta_index(const std::string& fasta, const FastaOptions& options = {});

/// Builds fai (and gzi for BGZF) with htslib's fai_build3, writing temporary files in the
/// target directories and renaming them into place, so readers never see a partial index. The
/// new index must pass fai_mismatch first (htslib drops duplicate or empty records silently).
void build_fasta_index(const std::string& fasta, const std::string& fai, const std::string& gzi);

/// Reads a .fai file. Throws DataError naming the file and line for a line without exactly 5
/// tab-separated fields, a number that is negative, not an integer or beyond int64, or a name
/// listed twice. Whether the entries match the FASTA is fai_mismatch's job
/// (data/fasta/fai_check.h).
std::vector<FaiEntry> read_fai(const std::string& fai);

}  // namespace strand::data
