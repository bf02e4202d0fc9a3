// FastaScanner: the byte-level state machine behind check_fasta_content (fasta_scan.h), fed a
// FASTA chunk by chunk. It mirrors htslib's fai_build_core rules and names the line of anything
// htslib would index wrongly; FastaScanEvents sees the records and their bases as they pass, so
// a sequential reader (FastaRecordReader) applies the same checks without an index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct BGZF;  // htslib's

namespace strand::data {

/// What a scan reports besides errors.
class FastaScanEvents {
 public:
  virtual ~FastaScanEvents() = default;
  /// A header line starts record `name` (htslib's name: up to the first blank); the record
  /// before it has passed its checks.
  virtual void record(std::string_view name, int64_t line) = 0;
  /// The next `n` bases of the current record, as in the file (a line may come in pieces).
  virtual void bases(const unsigned char* data, size_t n) = 0;
};

/// The error text for a record named like the one on `first_line` (check_fasta_content's words).
std::string duplicate_name_message(std::string_view name, int64_t first_line);

/// Checks a FASTA fed in chunks; errors are DataError "FILE:LINE: ..." (the list is
/// check_fasta_content's).
class FastaScanner {
 public:
  /// `path` names the file in messages; `loose` accepts "> name" and ">" headers;
  /// `check_duplicates` refuses a name seen before (it keeps every name: a reader that must not
  /// grow with the records checks them otherwise); `events` may be null.
  FastaScanner(std::string path, bool loose, bool check_duplicates = true,
               FastaScanEvents* events = nullptr);

  /// The next bytes of the file.
  void feed(const unsigned char* data, size_t n);
  /// The end of the file: a last line without '\n', a last record without sequence, no record.
  void finish();
  /// The 1-based line being read.
  int64_t line() const { return line_; }

 private:
  enum class Kind { kLineStart, kHeader, kSequence };

  [[noreturn]] void fail(int64_t line, const std::string& what) const;
  void start_line(unsigned char c);
  void header_byte(unsigned char c);
  void sequence_byte(unsigned char c);
  void no_sequence() const;
  void end_header();
  void end_blank();
  void end_sequence();
  void end_line();

  std::string path_;
  bool loose_;
  bool check_duplicates_;
  FastaScanEvents* events_;
  int64_t line_ = 1;  // the line being read
  Kind kind_ = Kind::kLineStart;
  bool any_content_ = false;  // a non-blank line was seen (FASTQ check)
  bool any_record_ = false;
  // The current line.
  std::string header_;        // header text after '>'
  int64_t bytes_ = 0;         // bytes so far, terminator excluded
  int64_t bases_ = 0;         // bases so far
  bool trailing_ = false;     // a blank byte was seen: no base may follow on this line
  unsigned char blank_ = 0;   // the first blank byte of the line
  int64_t blank_column_ = 0;  // its 1-based column
  // The current record.
  bool in_record_ = false;
  std::string name_;
  int64_t header_line_ = 0;
  int64_t first_width_ = 0;  // bytes of the first sequence line with terminator, 0 before it
  int64_t first_bases_ = 0;
  int64_t first_line_ = 0;
  int64_t ended_line_ = 0;  // the short or blank line that ended the sequence, 0 if none
  bool ended_by_blank_ = false;
  std::unordered_map<std::string, int64_t> header_lines_;  // record name -> its header line
};

/// A plain or BGZF FASTA opened for a FastaScanner and read `chunk_bytes` at a time: the read
/// loop check_fasta_content and FastaRecordReader share.
class FastaChunks {
 public:
  /// Opens `path`; DataError "cannot open FASTA ..." when it cannot.
  FastaChunks(std::string path, size_t chunk_bytes);
  ~FastaChunks();
  FastaChunks(FastaChunks&&) noexcept;
  FastaChunks& operator=(FastaChunks&&) noexcept;

  /// Feeds the next chunk to `scanner`; false at the end of the file (the caller then calls
  /// scanner.finish()). A read error is a DataError naming the file and the scanner's line.
  bool feed(FastaScanner& scanner);

 private:
  struct Closer {
    void operator()(BGZF* fp) const;
  };
  std::string path_;
  std::unique_ptr<BGZF, Closer> fp_;
  std::vector<unsigned char> buffer_;
};

}  // namespace strand::data
