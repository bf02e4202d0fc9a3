// FastaRecordReader: a FASTA's records in file order, read sequentially with no index, so a
// scan of millions of records holds one record at a time (FastaReader's index holds an entry
// and a name per record). The content is checked as check_fasta_content checks it, line by line,
// except duplicate names (see FastaRecordReader).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace strand::data {

/// One record as read.
struct FastaRecord {
  std::string name;    ///< the record name (header up to the first blank)
  int64_t line = 0;    ///< 1-based line of its header
  int64_t length = 0;  ///< bases
  std::string bases;   ///< the bases as in the file (case kept); empty unless the reader keeps them
};

/// Reads a plain or BGZF FASTA from the start. A DataError names the file and line for whatever
/// check_fasta_content refuses (binary bytes, uneven lines, no record, ...) but a duplicate name:
/// that needs every name, which the reader does not keep (UniqueNames checks them in 8 bytes a
/// record). A file that does not exist, a directory, or plain gzip (not BGZF) is refused
/// as FastaReader refuses it.
class FastaRecordReader {
 public:
  /// Opens `path`; with `keep_bases` each record comes with its bases.
  FastaRecordReader(const std::string& path, bool keep_bases);
  ~FastaRecordReader();
  FastaRecordReader(FastaRecordReader&&) noexcept;
  FastaRecordReader& operator=(FastaRecordReader&&) noexcept;
  FastaRecordReader(const FastaRecordReader&) = delete;
  FastaRecordReader& operator=(const FastaRecordReader&) = delete;

  /// The next record into `record`; false after the last. Throws DataError "FILE:LINE: ..." for
  /// malformed content (a record comes back only once the lines up to the next header passed).
  bool next(FastaRecord& record);
  /// The FASTA path as given.
  const std::string& path() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The duplicate-name check of a FASTA read in order, in 8 bytes a record (a 64-bit hash of
/// each name) instead of a set of the names.
class UniqueNames {
 public:
  /// The next record's name.
  void add(std::string_view name);
  /// Throws DataError with check_fasta_content's message ("FILE:LINE: duplicate record name
  /// ...", naming the line of the first) when two names added agree; reads `path` again only
  /// when two hashes agree. Frees the hashes.
  void check(const std::string& path);

 private:
  std::vector<uint64_t> hashes_;
};

}  // namespace strand::data
