// FastaReader: random access to a plain or BGZF FASTA by its .fai line geometry.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/fasta/fasta_bytes.h"
#include "data/fasta/fasta_index.h"

namespace strand::data {

/// A named sequence of a FASTA and its length in bases.
struct Contig {
  std::string name;    ///< the record name (header up to the first whitespace)
  int64_t length = 0;  ///< bases
};

/// One open FASTA. Every read checks that the file holds bases exactly where the index puts
/// them (and line breaks between), so an index that does not match its FASTA is a DataError,
/// never misaligned bases. Not thread-safe: give each thread its own (see clone()).
class FastaReader {
 public:
  /// Opens `path`, building or refreshing its index per `options` (see ensure_fasta_index).
  explicit FastaReader(const std::string& path, const FastaOptions& options = {});
  ~FastaReader();
  /// Takes over the other reader's handle.
  FastaReader(FastaReader&&) noexcept;
  /// Takes over the other reader's handle, closing this one's.
  FastaReader& operator=(FastaReader&&) noexcept;
  FastaReader(const FastaReader&) = delete;
  FastaReader& operator=(const FastaReader&) = delete;

  /// A second, independent handle on the same file and index (no index checks repeated; the
  /// index is shared, not copied: a loader's workers each clone a reader of a FASTA that may
  /// hold millions of records).
  FastaReader clone() const;

  /// The FASTA path as given.
  const std::string& path() const { return path_; }
  /// The index files in use.
  const FastaIndexPaths& index_paths() const { return index_; }
  /// The records in file order (contig ids are positions in this list).
  const std::vector<Contig>& contigs() const { return index_records_->contigs; }
  /// Index of a contig by name, or -1 when absent.
  int contig_id(std::string_view name) const;

  /// Bases [start, end) of a contig, 0-based half-open, exactly as in the file (case kept):
  /// identical to `samtools faidx FASTA contig:start+1-end`. Throws DataError for an unknown
  /// contig, a range outside it, a read error, or bytes that are not where the index says
  /// (a line break where a base should be: the file changed or the index is wrong).
  std::string fetch(std::string_view contig, int64_t start, int64_t end) const;

  /// Same range, encoded into codes (end - start bytes); lower_mask as in encode().
  void fetch_codes(std::string_view contig, int64_t start, int64_t end, uint8_t* codes,
                   uint8_t* lower_mask = nullptr) const;

 private:
  // The records of the index, read once and shared by clones.
  struct Records {
    std::vector<FaiEntry> entries;  // line geometry per contig id
    std::vector<Contig> contigs;
    std::unordered_map<std::string, int> ids;
  };

  FastaReader(std::string path, FastaIndexPaths index, std::shared_ptr<const Records> records);
  void open_bytes();
  int checked_contig(std::string_view contig, int64_t start, int64_t end) const;
  // Bases [start, end) of record `id`, packed (line breaks dropped) at the front of raw_.
  const char* read_bases(int id, int64_t start, int64_t end) const;
  // The 1-based line of the file that byte `byte` (uncompressed) lies on; for error messages
  // (it reads the file up to there).
  int64_t line_of(int64_t byte) const;

  std::string path_;
  FastaIndexPaths index_;
  std::shared_ptr<const Records> index_records_;
  std::unique_ptr<FastaBytes> bytes_;
  mutable std::string raw_;  // the bytes of the last read, reused
};

}  // namespace strand::data
