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
/// is copied over `path` (io::AtomicFileWriter). Memory stays flat in the number of spans: they
/// wait in an unlinked temporary file beside `path` (12 bytes each) until finish(). Nothing is
/// published unless finish() succeeds. Values are added contig by contig, each contig's together
/// (contigs in any order: the file lists them in the chromosome list's), positions increasing and
/// not overlapping within a contig.
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

  void spill_pending(bool keep_last);

  // Where a contig's spans lie in the spill file, and what the read-back check expects.
  struct StoredSpans {
    int64_t first = 0;  // index of its first span in the spill file
    int64_t count = 0;  // spans in the spill file
    double sum = 0.0;   // sum of value * length
    int64_t start = 0;  // first base with a value
    int64_t end = 0;    // one past the last
  };
  // An unlinked temporary file of spans, 12 bytes each, in the order added.
  struct SpillFile;

  std::filesystem::path path_;
  std::vector<Contig> contigs_;
  std::unordered_map<std::string, size_t> ids_;
  // Spans go to a spill file as they come (memory stays flat however long the track) and are
  // handed to libBigWig in finish(), contig by contig in the chromosome list's order.
  std::unique_ptr<SpillFile> spill_;
  std::vector<StoredSpans> stored_;  // per contig
  std::vector<BigWigSpan> pending_;  // the current contig's spans not yet spilled
  size_t current_ = 0;               // the contig values are being added to
  std::vector<bool> started_;        // per contig: values were added
  bool finished_ = false;
};

}  // namespace strand::data
