// fai_mismatch: spot checks of a .fai against its FASTA through a small read cache (plain
// files by pread, BGZF through its .gzi), records visited in file order.
#include "data/fasta/fai_check.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "data/fasta/fasta_bytes.h"
#include "data/text_fields.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

constexpr int64_t kCacheBytes = int64_t{1} << 16;
constexpr int64_t kMaxGapBytes = 4096;  // blank space allowed between or after records
constexpr int64_t kMaxHeaderBytes = static_cast<int64_t>(kMaxLineBytes);

bool is_base(unsigned char c) { return c > 0x20 && c < 0x7F; }
bool is_blank_byte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
bool all_blank(const std::string& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), is_blank_byte);
}

// Random reads of the uncompressed FASTA, served from a window that moves forward with the
// records (one system call or BGZF block per window, not per check).
class CachedBytes {
 public:
  explicit CachedBytes(FastaBytes& file) : file_(file) {}

  /// Up to n bytes at `offset` (fewer at the end of the file); nullopt on a read error.
  std::optional<std::string> read(int64_t offset, int64_t n) {
    if (offset < 0 || n < 0) return std::string();
    if (offset >= window_start_ &&
        offset + n <= window_start_ + static_cast<int64_t>(window_.size())) {
      return window_.substr(static_cast<size_t>(offset - window_start_), static_cast<size_t>(n));
    }
    std::string bytes;
    if (n > kCacheBytes) {
      if (!file_.read(offset, n, bytes)) return std::nullopt;
      return bytes;
    }
    // A window that also covers a little before `offset` (header checks read backwards).
    const int64_t start = std::max<int64_t>(0, offset - 512);
    if (!file_.read(start, std::max(kCacheBytes, offset - start + n), bytes)) return std::nullopt;
    window_ = std::move(bytes);
    window_start_ = start;
    if (offset >= start + static_cast<int64_t>(window_.size())) return std::string();
    return window_.substr(static_cast<size_t>(offset - start), static_cast<size_t>(n));
  }

  /// The byte at `offset`, -1 at or past the end of the file, -2 on a read error.
  int byte_at(int64_t offset) {
    const auto bytes = read(offset, 1);
    if (!bytes) return -2;
    return bytes->empty() ? -1 : static_cast<unsigned char>((*bytes)[0]);
  }

 private:
  FastaBytes& file_;
  std::string window_;
  int64_t window_start_ = 0;
};

// The record name htslib reads from a header line (without '>'): leading blanks skipped, then
// up to the next blank.
std::string header_name(const std::string& header) {
  size_t begin = 0;
  while (begin < header.size() && is_space(static_cast<unsigned char>(header[begin]))) ++begin;
  size_t end = begin;
  while (end < header.size() && !is_space(static_cast<unsigned char>(header[end]))) ++end;
  return header.substr(begin, end - begin);
}

class Checker {
 public:
  Checker(CachedBytes& bytes, std::string fasta, std::string fai)
      : bytes_(bytes), fasta_(std::move(fasta)), fai_(std::move(fai)) {}

  // Empty when the record is consistent; `previous_end` is one past the previous record's last
  // base (0 before the first record), updated on success.
  std::string check(const FaiEntry& e, const FaiEntry* previous, int64_t& previous_end) {
    const std::string where = fmt::format("{}:{}: record '{}'", fai_, e.line, excerpt(e.name));
    if (e.length <= 0) return fmt::format("{} has length {} (expected > 0)", where, e.length);
    if (e.line_bases <= 0 || e.line_width <= e.line_bases) {
      return fmt::format("{} has {} bases in lines of {} bytes (expected 0 < bases < bytes)", where,
                         e.line_bases, e.line_width);
    }
    if (e.offset < previous_end + 2) {  // room for at least ">\n"
      if (previous == nullptr)
        return fmt::format("{} starts at byte {}, before any header", where, e.offset);
      return fmt::format(
          "{} starts at byte {}, inside or right after record '{}' ({}:{}), which "
          "ends at byte {}: records must follow each other in file order",
          where, e.offset, excerpt(previous->name), fai_, previous->line, previous_end);
    }
    const std::optional<int64_t> last_base_offset = fai_base_offset(e, e.length - 1);
    if (!last_base_offset) {
      return fmt::format("{} (length {}, {} bytes per line, at byte {}) does not fit any file",
                         where, e.length, e.line_width, e.offset);
    }
    const int64_t last_base = *last_base_offset;
    const int64_t last_line = (e.length - 1) / e.line_bases;
    const int64_t last_line_start = last_base - (e.length - 1) % e.line_bases;
    // The header line right before the first base.
    std::string problem = check_header(e, where, previous_end);
    if (!problem.empty()) return problem;
    // First base, the end of the first line, the start of the last line, the last base.
    if (!is_base_at(e.offset))
      return fmt::format("{} has no base at its first byte {}", where, e.offset);
    const int last = bytes_.byte_at(last_base);
    if (last == -2) return read_error();
    if (last == -1) {
      return fmt::format("{} (length {}) ends at byte {}, past the end of FASTA '{}'", where,
                         e.length, last_base + 1, fasta_);
    }
    if (!is_base(static_cast<unsigned char>(last))) {
      return fmt::format(
          "{} (length {}) should end at byte {}, which is not a base: the length "
          "or line geometry does not match the FASTA",
          where, e.length, last_base + 1);
    }
    const int after = bytes_.byte_at(last_base + 1);
    if (after == -2) return read_error();
    if (after >= 0 && is_base(static_cast<unsigned char>(after))) {
      return fmt::format(
          "{} (length {}) ends at byte {} but the sequence goes on: the length is "
          "shorter than the record",
          where, e.length, last_base + 1);
    }
    if (last_line > 0) {
      if (!is_base_at(last_line_start)) {
        return fmt::format(
            "{} (length {}) should have a base at byte {}, where its last line "
            "starts: the length or line geometry does not match the FASTA",
            where, e.length, last_line_start);
      }
      problem = check_line_end(e, where, e.offset + e.line_bases);
      if (problem.empty() && last_line > 1) {
        problem = check_line_end(e, where, last_line_start - (e.line_width - e.line_bases));
      }
      if (!problem.empty()) return problem;
    }
    previous_end = last_base + 1;
    return {};
  }

  // After the last record: only a little blank space.
  std::string check_tail(const FaiEntry* last, int64_t end) {
    const auto tail = bytes_.read(end, kMaxGapBytes + 1);
    if (!tail) return read_error();
    const std::string after =
        last == nullptr ? "the start of the file"
                        : fmt::format("record '{}' ({}:{})", excerpt(last->name), fai_, last->line);
    if (static_cast<int64_t>(tail->size()) > kMaxGapBytes || !all_blank(*tail)) {
      return fmt::format(
          "{}: FASTA '{}' goes on after {}, the last record of the index (records "
          "missing from the index?)",
          fai_, fasta_, after);
    }
    return {};
  }

 private:
  std::string read_error() const {
    return fmt::format("FASTA '{}' could not be read through the index (corrupt file or .gzi?)",
                       fasta_);
  }

  bool is_base_at(int64_t offset) {
    const int c = bytes_.byte_at(offset);
    return c >= 0 && is_base(static_cast<unsigned char>(c));
  }

  // The bytes [bases_end, bases_end + width - bases) of a full line must be blanks ending in
  // '\n' (the terminator, CR and any trailing blanks), with a base right before them.
  std::string check_line_end(const FaiEntry& e, const std::string& where, int64_t bases_end) {
    const auto tail = bytes_.read(bases_end - 1, e.line_width - e.line_bases + 1);
    if (!tail) return read_error();
    const bool ok = static_cast<int64_t>(tail->size()) == e.line_width - e.line_bases + 1 &&
                    is_base(static_cast<unsigned char>(tail->front())) && tail->back() == '\n' &&
                    all_blank(tail->substr(1));
    if (!ok) {
      return fmt::format(
          "{}: the line ending at byte {} does not hold {} bases in {} bytes as the "
          "index says",
          where, bases_end, e.line_bases, e.line_width);
    }
    return {};
  }

  // The header of `e` must be the line that ends right before its first base, and only blank
  // space may lie between the previous record's last base and that header.
  std::string check_header(const FaiEntry& e, const std::string& where, int64_t previous_end) {
    if (bytes_.byte_at(e.offset - 1) != '\n') {
      return fmt::format("{} starts at byte {}, which does not follow a line break", where,
                         e.offset);
    }
    // Find the start of the header line, reading backwards in growing steps.
    int64_t header_start = -1;
    for (int64_t step = 256;; step *= 16) {
      const int64_t from = std::max(previous_end, e.offset - 1 - step);
      const auto text = bytes_.read(from, e.offset - 1 - from);
      if (!text) return read_error();
      const size_t nl = text->rfind('\n');
      if (nl != std::string::npos) {
        header_start = from + static_cast<int64_t>(nl) + 1;
        break;
      }
      if (from == previous_end) {
        header_start = from;
        break;
      }
      if (step > kMaxHeaderBytes) {
        return fmt::format("{}: no header line within {} bytes before byte {}", where,
                           kMaxHeaderBytes, e.offset);
      }
    }
    const auto header = bytes_.read(header_start, e.offset - 1 - header_start);
    if (!header) return read_error();
    std::string text = *header;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty() || text.front() != '>' || header_name(text.substr(1)) != e.name) {
      return fmt::format("{} is at byte {}, but the line before it is '{}', not its header", where,
                         e.offset, excerpt(text));
    }
    // Blank space only between the previous record and this header.
    if (header_start - previous_end > kMaxGapBytes) {
      return fmt::format(
          "{}: {} bytes before its header (byte {}) belong to no indexed record "
          "(records missing from the index, or a length too short?)",
          where, header_start - previous_end, header_start);
    }
    const auto gap = bytes_.read(previous_end, header_start - previous_end);
    if (!gap) return read_error();
    if (!all_blank(*gap)) {
      return fmt::format(
          "{}: the bytes before its header ('{}') belong to no indexed record "
          "(a record missing from the index, or a length too short?)",
          where, excerpt(*gap));
    }
    return {};
  }

  CachedBytes& bytes_;
  std::string fasta_;
  std::string fai_;
};

std::string check_all(CachedBytes& bytes, const std::string& fasta, const std::string& fai,
                      const std::vector<FaiEntry>& entries) {
  Checker checker(bytes, fasta, fai);
  int64_t end = 0;
  const FaiEntry* previous = nullptr;
  for (const FaiEntry& e : entries) {
    std::string problem = checker.check(e, previous, end);
    if (!problem.empty()) return problem;
    previous = &e;
  }
  return checker.check_tail(previous, end);
}

}  // namespace

std::optional<int64_t> fai_base_offset(const FaiEntry& e, int64_t i) {
  if (i < 0 || e.line_bases <= 0 || e.line_width <= e.line_bases) return std::nullopt;
  int64_t byte = 0;
  if (__builtin_mul_overflow(i / e.line_bases, e.line_width, &byte) ||
      __builtin_add_overflow(byte, e.offset, &byte) ||
      __builtin_add_overflow(byte, i % e.line_bases, &byte)) {
    return std::nullopt;
  }
  return byte;
}

std::string fai_mismatch(const std::string& fasta, const std::string& fai,
                         const std::vector<FaiEntry>& entries, const std::string& gzi) {
  std::string error;
  const auto file = FastaBytes::open(fasta, gzi, &error);
  if (!file) return fmt::format("FASTA '{}' cannot be read: {}", fasta, error);
  CachedBytes bytes(*file);
  return check_all(bytes, fasta, fai, entries);
}

}  // namespace strand::data
