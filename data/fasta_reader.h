// FastaReader: random access to a plain or BGZF FASTA through an htslib faidx handle.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/fasta_index.h"

struct faidx_t;  // htslib's handle, kept out of this header

namespace strand::data {

/// A named sequence of a FASTA and its length in bases.
struct Contig {
  std::string name;    ///< the record name (header up to the first whitespace)
  int64_t length = 0;  ///< bases
};

/// One open faidx handle. Not thread-safe: give each thread its own (see clone()).
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

  /// A second, independent handle on the same file and index (no index checks repeated).
  FastaReader clone() const;

  /// The FASTA path as given.
  const std::string& path() const { return path_; }
  /// The index files in use.
  const FastaIndexPaths& index_paths() const { return index_; }
  /// The records in file order (contig ids are positions in this list).
  const std::vector<Contig>& contigs() const { return contigs_; }
  /// Index of a contig by name, or -1 when absent.
  int contig_id(std::string_view name) const;

  /// Bases [start, end) of a contig, 0-based half-open, exactly as in the file (case kept):
  /// identical to `samtools faidx FASTA contig:start+1-end`. Throws DataError for an unknown
  /// contig or a range outside it.
  std::string fetch(std::string_view contig, int64_t start, int64_t end) const;

  /// Same range, encoded into codes (end - start bytes); lower_mask as in encode().
  void fetch_codes(std::string_view contig, int64_t start, int64_t end, uint8_t* codes,
                   uint8_t* lower_mask = nullptr) const;

 private:
  struct FaiDeleter {
    void operator()(::faidx_t* fai) const;
  };
  FastaReader(std::string path, FastaIndexPaths index, std::vector<Contig> contigs,
              std::unordered_map<std::string, int> ids);
  void open_handle();
  const Contig& checked_contig(std::string_view contig, int64_t start, int64_t end) const;

  std::string path_;
  FastaIndexPaths index_;
  std::vector<Contig> contigs_;
  std::unordered_map<std::string, int> ids_;
  std::unique_ptr<::faidx_t, FaiDeleter> fai_;
};

}  // namespace strand::data
