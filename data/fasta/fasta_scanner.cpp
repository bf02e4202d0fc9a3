// FastaScanner (data/fasta/fasta_scanner.h): a byte-level state machine over the FASTA,
// mirroring htslib's fai_build_core rules, with errors that name the line instead of htslib's
// log lines.
#include "data/fasta/fasta_scanner.h"

#include <htslib/bgzf.h>

#include <cerrno>
#include <cstring>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/text_fields.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

// A carriage return followed by more text on the same line: a file written with CR-only
// (classic Mac OS) line ends is one line to htslib.
constexpr const char* kCrOnlyLineEnds =
    "a carriage return (CR) is followed by more text on the same line: the file has CR-only "
    "line ends (classic Mac OS), which read as one long line; strand reads LF or CRLF line ends "
    "(convert with: tr '\\r' '\\n' < in.fa > out.fa)";
constexpr size_t kMaxHeaderBytes = kMaxLineBytes;

// A base as htslib counts one (isgraph in the C locale).
bool is_base(unsigned char c) { return c > 0x20 && c < 0x7F; }
bool is_blank_byte(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::string describe_byte(unsigned char c) {
  switch (c) {
    case ' ':
      return "a space";
    case '\t':
      return "a tab";
    case '\r':
      return "a carriage return";
    default:
      return fmt::format("byte 0x{:02x}", c);
  }
}

}  // namespace

std::string duplicate_name_message(std::string_view name, int64_t first_line) {
  return fmt::format(
      "duplicate record name '{}': line {} has it too (htslib would keep only the first); rename "
      "one of them",
      excerpt(name), first_line);
}

FastaScanner::FastaScanner(std::string path, bool loose, bool check_duplicates,
                           FastaScanEvents* events)
    : path_(std::move(path)), loose_(loose), check_duplicates_(check_duplicates), events_(events) {}

void FastaScanner::feed(const unsigned char* data, size_t n) {
  size_t i = 0;
  while (i < n) {
    const unsigned char c = data[i];
    switch (kind_) {
      case Kind::kLineStart:
        start_line(c);
        if (c == '\n') {
          end_line();
        } else if (kind_ == Kind::kHeader) {
          // '>' itself is not part of the header text
        } else {
          sequence_byte(c);
        }
        ++i;
        break;
      case Kind::kHeader:
        if (c == '\n') {
          end_line();
        } else {
          header_byte(c);
        }
        ++i;
        break;
      case Kind::kSequence: {
        // The hot loop: bases of a sequence line.
        size_t j = i;
        if (!trailing_) {
          while (j < n && is_sequence_letter(data[j])) ++j;
          bytes_ += static_cast<int64_t>(j - i);
          bases_ += static_cast<int64_t>(j - i);
          if (events_ != nullptr && j > i) events_->bases(data + i, j - i);
        }
        if (j == n) return;
        if (data[j] == '\n') {
          end_line();
        } else {
          sequence_byte(data[j]);
        }
        i = j + 1;
        break;
      }
    }
  }
}

void FastaScanner::finish() {
  if (kind_ != Kind::kLineStart) end_line();  // a last line without '\n'
  if (in_record_ && first_width_ == 0) no_sequence();
  if (!any_record_) {
    fail(line_ > 1 ? line_ - 1 : 1, "no FASTA record: no line starts with '>'");
  }
}

void FastaScanner::fail(int64_t line, const std::string& what) const {
  throw DataError(fmt::format("{}:{}: {}", path_, line, what));
}

void FastaScanner::start_line(unsigned char c) {
  bytes_ = 0;
  bases_ = 0;
  trailing_ = false;
  if (c == '>') {
    kind_ = Kind::kHeader;
    header_.clear();
  } else if (c != '\n') {
    if (!any_content_ && c == '@') {
      fail(line_, "this looks like FASTQ ('@' starts the first record); strand reads FASTA");
    }
    kind_ = Kind::kSequence;
  }
  if (c != '\n' && c != '\r') any_content_ = true;
}

void FastaScanner::header_byte(unsigned char c) {
  if (!header_.empty() && header_.back() == '\r') fail(line_, kCrOnlyLineEnds);
  if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F) {
    fail(line_,
         fmt::format("{} in a FASTA header (binary data?); headers are text", describe_byte(c)));
  }
  if (header_.size() == kMaxHeaderBytes) {
    fail(line_, fmt::format("FASTA header is longer than {} bytes", kMaxHeaderBytes));
  }
  header_.push_back(static_cast<char>(c));
}

void FastaScanner::sequence_byte(unsigned char c) {
  ++bytes_;
  if (is_base(c) && !is_sequence_letter(c)) {
    // htslib would index it as a base; strand would read it as N (data/encoding.h).
    const auto letter = static_cast<char>(c);
    fail(line_, fmt::format("{} at column {}{} {}", describe_sequence_byte(letter), bytes_,
                            in_record_ ? fmt::format(" of record '{}'", excerpt(name_)) : "",
                            non_sequence_letter_reason(letter)));
  }
  if (is_base(c)) {
    if (trailing_) {
      if (blank_ == '\r') {
        fail(line_, fmt::format("a carriage return at column {} is followed by more bases on "
                                "the same line: CR-only line ends (classic Mac OS) read as one "
                                "long line; strand reads LF or CRLF line ends (convert with: "
                                "tr '\\r' '\\n' < in.fa > out.fa)",
                                blank_column_));
      }
      fail(line_,
           fmt::format("{} at column {} inside a sequence line: htslib counts only the bases, "
                       "so record '{}' would be read misaligned; remove it",
                       describe_byte(blank_), blank_column_, excerpt(name_)));
    }
    ++bases_;
    if (events_ != nullptr) events_->bases(&c, 1);
  } else if (is_blank_byte(c)) {
    if (!trailing_) {
      trailing_ = true;
      blank_ = c;
      blank_column_ = bytes_;
    }
  } else {
    fail(line_, fmt::format("{} at column {} is not a base (binary data?); sequence lines may hold "
                            "only printable ASCII letters and symbols",
                            describe_byte(c), bytes_));
  }
}

void FastaScanner::no_sequence() const {
  fail(header_line_,
       fmt::format("record '{}' has no sequence lines (htslib drops such a record, or fails "
                   "when it is the last)",
                   excerpt(name_)));
}

void FastaScanner::end_header() {
  if (in_record_ && first_width_ == 0) no_sequence();
  if (!header_.empty() && header_.back() == '\r') header_.pop_back();
  if (!loose_ && (header_.empty() || is_space(static_cast<unsigned char>(header_[0])))) {
    fail(line_, fmt::format("FASTA header '>{}' has no name right after '>' (expected "
                            "'>NAME'); remove the space or set "
                            "FastaOptions::allow_loose_headers to accept htslib's reading",
                            excerpt(header_)));
  }
  // htslib's name: leading blanks skipped, then up to the next blank.
  size_t begin = 0;
  while (begin < header_.size() && is_space(static_cast<unsigned char>(header_[begin]))) {
    ++begin;
  }
  size_t end = begin;
  while (end < header_.size() && !is_space(static_cast<unsigned char>(header_[end]))) ++end;
  name_.assign(header_, begin, end - begin);
  // htslib keeps the first record of a name and drops the others with only a log line.
  if (check_duplicates_) {
    const auto [it, inserted] = header_lines_.emplace(name_, line_);
    if (!inserted) fail(line_, duplicate_name_message(name_, it->second));
  }
  in_record_ = true;
  any_record_ = true;
  header_line_ = line_;
  first_width_ = 0;
  first_bases_ = 0;
  first_line_ = 0;
  ended_line_ = 0;
  if (events_ != nullptr) events_->record(name_, line_);
}

void FastaScanner::end_blank() {
  if (in_record_ && ended_line_ == 0) {
    ended_line_ = line_;
    ended_by_blank_ = true;
  }
}

void FastaScanner::end_sequence() {
  if (bases_ == 0) {
    if (bytes_ == 1 && blank_ == '\r') {  // a CRLF blank line
      end_blank();
      return;
    }
    fail(line_, "line holds only spaces or tabs; remove them (htslib cannot index it)");
  }
  if (!in_record_) {
    fail(line_, "sequence before the first header line ('>NAME')");
  }
  const int64_t width = bytes_ + 1;  // with its terminator, as htslib counts
  if (ended_line_ != 0) {
    fail(line_, fmt::format("sequence of record '{}' continues after line {}, which is {}; all "
                            "lines of a record but the last must have the same length",
                            excerpt(name_), ended_line_,
                            ended_by_blank_ ? "blank" : "shorter than the record's first line"));
  }
  if (first_width_ == 0) {
    first_width_ = width;
    first_bases_ = bases_;
    first_line_ = line_;
  } else if (width > first_width_) {
    fail(line_, fmt::format("line is {} bytes long but line {}, the first of record '{}', is "
                            "{}; all lines of a record but the last must have the same length",
                            width, first_line_, excerpt(name_), first_width_));
  } else if (width < first_width_) {
    ended_line_ = line_;
    ended_by_blank_ = false;
  } else if (bases_ != first_bases_) {
    fail(line_, fmt::format("line has {} bases but line {} of record '{}' has {} in as many "
                            "bytes (trailing whitespace differs); htslib would read it "
                            "misaligned",
                            bases_, first_line_, excerpt(name_), first_bases_));
  }
}

void FastaScanner::end_line() {
  switch (kind_) {
    case Kind::kLineStart:
      end_blank();
      break;
    case Kind::kHeader:
      end_header();
      break;
    case Kind::kSequence:
      end_sequence();
      break;
  }
  kind_ = Kind::kLineStart;
  blank_ = 0;
  ++line_;
}

void FastaChunks::Closer::operator()(BGZF* fp) const { bgzf_close(fp); }

FastaChunks::FastaChunks(std::string path, size_t chunk_bytes)
    : path_(std::move(path)), fp_(bgzf_open(path_.c_str(), "r")), buffer_(chunk_bytes) {
  if (!fp_) {
    throw DataError(fmt::format("cannot open FASTA '{}': {}", path_, std::strerror(errno)));
  }
}

FastaChunks::~FastaChunks() = default;
FastaChunks::FastaChunks(FastaChunks&&) noexcept = default;
FastaChunks& FastaChunks::operator=(FastaChunks&&) noexcept = default;

bool FastaChunks::feed(FastaScanner& scanner) {
  const ssize_t n = bgzf_read(fp_.get(), buffer_.data(), buffer_.size());
  if (n < 0) {
    throw DataError(fmt::format("{}: read error at line {} (truncated or corrupt file?)", path_,
                                scanner.line()));
  }
  if (n == 0) return false;
  scanner.feed(buffer_.data(), static_cast<size_t>(n));
  return true;
}

}  // namespace strand::data
