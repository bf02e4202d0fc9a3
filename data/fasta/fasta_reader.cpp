// FastaReader: reads the byte span of a range through FastaBytes and drops the line breaks,
// checking every byte against the .fai geometry on the way (htslib's faidx would skip any
// non-base byte and read on, silently shifting the bases when the index is wrong).
#include "data/fasta/fasta_reader.h"

#include <algorithm>
#include <cstring>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/fasta/fai_check.h"
#include "data/text_fields.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

// A printable byte but space: what htslib counts as a base. Inside the bases of a record, one
// that is not a sequence letter is a letter error; anything else, an index that does not match.
bool is_printable(char c) { return static_cast<unsigned char>(c - 0x21) <= 0x5D; }

// The end of a full line: trailing blanks (CR of CRLF included), then exactly one '\n'.
size_t first_bad_terminator_byte(const char* bytes, size_t n) {
  for (size_t i = 0; i + 1 < n; ++i) {
    if (bytes[i] != ' ' && bytes[i] != '\t' && bytes[i] != '\r') return i;
  }
  return bytes[n - 1] == '\n' ? n : n - 1;
}

std::string describe(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (c == '\n') return "a line break";
  if (u > 0x20 && u < 0x7F) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", u);
}

}  // namespace

FastaReader::FastaReader(const std::string& path, const FastaOptions& options) : path_(path) {
  index_ = ensure_fasta_index(path, options);
  auto records = std::make_shared<Records>();
  records->entries = read_fai(index_.fai);
  for (const FaiEntry& e : records->entries) {
    // ensure_fasta_index checked the entries against the file; this guards the offset
    // arithmetic of read_bases should the .fai have been rewritten since.
    if (e.length <= 0 || !fai_base_offset(e, e.length - 1)) {
      throw DataError(fmt::format(
          "{}:{}: record '{}' has an impossible geometry (length {}, {} "
          "bases in lines of {} bytes, at byte {}); was the index "
          "rewritten while strand opened it?",
          index_.fai, e.line, excerpt(e.name), e.length, e.line_bases, e.line_width, e.offset));
    }
    records->ids.emplace(e.name, static_cast<int>(records->contigs.size()));
    records->contigs.push_back({e.name, e.length});
  }
  index_records_ = std::move(records);
  open_bytes();
}

FastaReader::FastaReader(std::string path, FastaIndexPaths index,
                         std::shared_ptr<const Records> records)
    : path_(std::move(path)), index_(std::move(index)), index_records_(std::move(records)) {
  open_bytes();
}

FastaReader::~FastaReader() = default;
FastaReader::FastaReader(FastaReader&&) noexcept = default;
FastaReader& FastaReader::operator=(FastaReader&&) noexcept = default;

void FastaReader::open_bytes() {
  std::string error;
  bytes_ = FastaBytes::open(path_, index_.gzi, &error);
  if (!bytes_) throw DataError(fmt::format("cannot read FASTA '{}': {}", path_, error));
}

FastaReader FastaReader::clone() const { return FastaReader(path_, index_, index_records_); }

int FastaReader::contig_id(std::string_view name) const {
  const auto it = index_records_->ids.find(std::string(name));
  return it == index_records_->ids.end() ? -1 : it->second;
}

int FastaReader::checked_contig(std::string_view contig, int64_t start, int64_t end) const {
  const int id = contig_id(contig);
  if (id < 0) {
    throw DataError(fmt::format("contig '{}' is not in FASTA '{}'", contig, path_));
  }
  const Contig& c = index_records_->contigs[static_cast<size_t>(id)];
  if (start < 0 || start > end || end > c.length) {
    throw DataError(fmt::format("range [{}, {}) is outside contig '{}' (length {}) of '{}'", start,
                                end, contig, c.length, path_));
  }
  return id;
}

const char* FastaReader::read_bases(int id, int64_t start, int64_t end) const {
  const FaiEntry& e = index_records_->entries[static_cast<size_t>(id)];
  // Never nullopt: the constructor checked the record's last base.
  const auto byte_of = [&e](int64_t i) { return *fai_base_offset(e, i); };
  const int64_t first = byte_of(start);
  const int64_t span = byte_of(end - 1) - first + 1;
  if (!bytes_->read(first, span, raw_)) {
    throw DataError(fmt::format("reading {}:{}-{} from '{}' failed (I/O error or corrupt file)",
                                e.name, start + 1, end, path_));
  }
  if (static_cast<int64_t>(raw_.size()) != span) {
    throw DataError(fmt::format(
        "FASTA '{}' ends at byte {}, inside record '{}' (its index '{}' line {} says the "
        "record goes on to byte {}): the file was truncated or changed after indexing",
        path_, first + static_cast<int64_t>(raw_.size()), e.name, index_.fai, e.line,
        byte_of(e.length - 1) + 1));
  }
  const auto mismatch = [&](size_t at, const char* expected) {
    return DataError(fmt::format(
        "FASTA '{}': byte {} in record '{}' is {} where its index '{}' (line {}) places {}: the "
        "index does not match the file (changed after indexing?); delete the index and strand "
        "rebuilds it",
        path_, first + static_cast<int64_t>(at), e.name, describe(raw_[at]), index_.fai, e.line,
        expected));
  };
  // Pack the bases to the front of raw_ in place (the write position never passes the read).
  char* bytes = raw_.data();
  const auto terminator = static_cast<size_t>(e.line_width - e.line_bases);
  size_t in = 0;
  size_t out = 0;
  int64_t left = end - start;
  int64_t column = start % e.line_bases;
  for (;;) {
    const auto take = static_cast<size_t>(std::min(e.line_bases - column, left));
    const size_t bad = first_non_sequence_letter(bytes + in, take);
    if (bad != take) {
      if (!is_printable(bytes[in + bad])) throw mismatch(in + bad, "a base");
      // Indexed as a base (by samtools faidx, say), but not one strand reads (data/encoding.h).
      const int64_t base = end - left + static_cast<int64_t>(bad);
      throw DataError(fmt::format("{}:{}: {} at column {} of record '{}' {}", path_,
                                  line_of(first + static_cast<int64_t>(in + bad)),
                                  describe_sequence_byte(bytes[in + bad]), base % e.line_bases + 1,
                                  excerpt(e.name), non_sequence_letter_reason(bytes[in + bad])));
    }
    if (out != in) std::memmove(bytes + out, bytes + in, take);
    in += take;
    out += take;
    left -= static_cast<int64_t>(take);
    if (left == 0) break;
    const size_t bad_end = first_bad_terminator_byte(bytes + in, terminator);
    if (bad_end != terminator) throw mismatch(in + bad_end, "the end of a line");
    in += terminator;
    column = 0;
  }
  return bytes;
}

int64_t FastaReader::line_of(int64_t byte) const {
  constexpr int64_t kChunk = int64_t{1} << 20;
  std::string chunk;
  int64_t line = 1;
  for (int64_t at = 0; at < byte; at += kChunk) {
    if (!bytes_->read(at, std::min(kChunk, byte - at), chunk) || chunk.empty()) break;
    line += std::count(chunk.begin(), chunk.end(), '\n');
  }
  return line;
}

std::string FastaReader::fetch(std::string_view contig, int64_t start, int64_t end) const {
  const int id = checked_contig(contig, start, end);
  if (start == end) return {};
  return std::string(read_bases(id, start, end), static_cast<size_t>(end - start));
}

void FastaReader::fetch_codes(std::string_view contig, int64_t start, int64_t end, uint8_t* codes,
                              uint8_t* lower_mask) const {
  const int id = checked_contig(contig, start, end);
  if (start == end) return;
  encode(read_bases(id, start, end), static_cast<size_t>(end - start), codes, lower_mask);
}

}  // namespace strand::data
