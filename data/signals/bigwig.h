// bigWig signal files through libBigWig: BigWigReader reads per-base values of contig ranges,
// BigWigWriter writes bedGraph-like spans or per-base values. libBigWig's handles and return
// codes stay in bigwig.cpp; every failure here is a DataError naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/fasta/fasta_reader.h"

namespace strand::data {

/// One open bigWig file for reading. A libBigWig handle keeps a file position and caches index
/// nodes, so a reader is not thread-safe: give each thread its own (clone()).
class BigWigReader {
 public:
  /// Opens `path` and checks that its chromosome list and data index can be read. Throws
  /// DataError naming the file when it is missing, not a bigWig, or unreadable.
  explicit BigWigReader(std::string path);
  ~BigWigReader();
  /// Takes over the other reader's handle.
  BigWigReader(BigWigReader&&) noexcept;
  /// Takes over the other reader's handle, closing this one's.
  BigWigReader& operator=(BigWigReader&&) noexcept;
  BigWigReader(const BigWigReader&) = delete;
  BigWigReader& operator=(const BigWigReader&) = delete;

  /// A second, independent handle on the same file.
  BigWigReader clone() const;

  /// The path as given.
  const std::string& path() const { return path_; }
  /// The file's chromosome list, in file order.
  const std::vector<Contig>& contigs() const { return contigs_; }
  /// Length of contig `name` in this file, or -1 when the file has no such contig.
  int64_t contig_length(std::string_view name) const;

  /// Writes the values of bases [start, end) of `contig` to out (end - start floats). Bases the
  /// file has no data for, and NaN values, are 0. Throws DataError naming the file for an
  /// unknown contig, a range outside it, an infinite value or a read error.
  void read(std::string_view contig, int64_t start, int64_t end, float* out) const;

 private:
  struct Handle;
  BigWigReader(std::string path, std::vector<Contig> contigs);

  std::string path_;
  std::vector<Contig> contigs_;
  std::unordered_map<std::string, size_t> ids_;
  std::unique_ptr<Handle> handle_;
};

/// One bedGraph-like entry: bases [start, end) of a contig hold `value`.
struct BigWigSpan {
  int64_t start = 0;   ///< 0-based first base
  int64_t end = 0;     ///< one past the last base
  float value = 0.0F;  ///< the value of every base of the span
};

/// Writes a bigWig file atomically: libBigWig writes a temporary file next to `path`, which is
/// read back and checked (chromosome list, and the sum of the values of every contig) before it
/// replaces `path` (io::write_file_atomically). Nothing is published unless finish() succeeds.
/// Values are added contig by contig, each contig's together (contigs in any order: the file
/// lists them in the chromosome list's), positions increasing and not overlapping within a
/// contig.
class BigWigWriter {
 public:
  /// Starts a file with chromosome list `contigs` (names unique, lengths in [1, 2^32 - 1]).
  /// Throws DataError naming `path` for a bad list or a directory that cannot be written.
  BigWigWriter(std::filesystem::path path, std::vector<Contig> contigs);
  ~BigWigWriter();
  BigWigWriter(const BigWigWriter&) = delete;
  BigWigWriter& operator=(const BigWigWriter&) = delete;

  /// Adds spans of `contig` (bedGraph-like); spans of value 0 are left out, since a reader sees
  /// 0 where the file has no data. Throws DataError for an unknown contig, a contig added again
  /// after another, a span outside the contig, empty, non-finite or overlapping the previous.
  void add_spans(std::string_view contig, std::span<const BigWigSpan> spans);
  /// Adds per-base values of `contig` from base `start` on: runs of equal values become one span,
  /// zeros are left out. Same checks as add_spans().
  void add_values(std::string_view contig, int64_t start, std::span<const float> values);
  /// Writes the index and zoom levels, checks the file and publishes it at `path`. Call once.
  void finish();

  /// The file this writer publishes.
  const std::filesystem::path& path() const { return path_; }

 private:
  void add(size_t contig, const BigWigSpan& span);

  std::filesystem::path path_;
  std::vector<Contig> contigs_;
  std::unordered_map<std::string, size_t> ids_;
  // Entries are collected and handed to libBigWig in finish(), in one pass over the contigs.
  std::vector<std::vector<BigWigSpan>> spans_;  // per contig
  size_t current_ = 0;                          // the contig values are being added to
  std::vector<bool> started_;                   // per contig: values were added
  bool finished_ = false;
};

}  // namespace strand::data
