// BigWigReader and BigWigWriter over libBigWig.
#include "data/signals/bigwig.h"

#include <bigWig.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>

#include "data/data_error.h"
#include "io/atomic_file.h"

namespace strand::data {
namespace {

// libBigWig positions are uint32_t.
constexpr int64_t kMaxBigWigLength = std::numeric_limits<uint32_t>::max();

// bwInit sets libBigWig's globals (and curl's, for remote files) and must run once before any
// other call; local files do not need curl, so its result only matters for URLs, which strand
// does not open.
void init_libbigwig() {
  static std::once_flag once;
  std::call_once(once, [] { static_cast<void>(bwInit(1 << 17)); });
}

}  // namespace

// ---- BigWigReader ----------------------------------------------------------------------------

struct BigWigReader::Handle {
  bigWigFile_t* file = nullptr;
  explicit Handle(bigWigFile_t* f) : file(f) {}
  ~Handle() {
    if (file != nullptr) bwClose(file);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

namespace {

bigWigFile_t* open_for_reading(const std::string& path) {
  init_libbigwig();
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw DataError(fmt::format("bigWig '{}' {}", path,
                                std::filesystem::is_directory(path, error)
                                    ? "is a directory, expected a file"
                                    : "does not exist or is not a regular file"));
  }
  if (::access(path.c_str(), R_OK) != 0) {
    throw DataError(fmt::format("bigWig '{}' cannot be read (permission denied)", path));
  }
  if (bwIsBigWig(path.c_str(), nullptr) != 1) {
    throw DataError(fmt::format(
        "'{}' is not a bigWig file (it does not start with the bigWig magic number 0x{:08X})", path,
        static_cast<uint32_t>(BIGWIG_MAGIC)));
  }
  bigWigFile_t* file = bwOpen(path.c_str(), nullptr, "r");
  if (file == nullptr || file->cl == nullptr) {
    if (file != nullptr) bwClose(file);
    throw DataError(
        fmt::format("bigWig '{}' cannot be read: its header or chromosome list is damaged", path));
  }
  return file;
}

}  // namespace

BigWigReader::BigWigReader(std::string path) : path_(std::move(path)) {
  handle_ = std::make_unique<Handle>(open_for_reading(path_));
  const chromList_t* list = handle_->file->cl;
  for (int64_t i = 0; i < list->nKeys; ++i) {
    Contig contig{list->chrom[i], static_cast<int64_t>(list->len[i])};
    if (!ids_.emplace(contig.name, contigs_.size()).second) {
      throw DataError(fmt::format("bigWig '{}' lists contig '{}' twice in its chromosome list",
                                  path_, contig.name));
    }
    contigs_.push_back(std::move(contig));
  }
  if (contigs_.empty()) {
    throw DataError(fmt::format("bigWig '{}' has an empty chromosome list", path_));
  }
  // libBigWig reads the data index on the first query; a file without one (libBigWig writes
  // none when no value was added) or with a damaged one fails every query, so fail here.
  bwOverlappingIntervals_t* probe = bwGetOverlappingIntervals(
      handle_->file, contigs_.front().name.c_str(), 0,
      static_cast<uint32_t>(std::min<int64_t>(1, contigs_.front().length)));
  if (probe == nullptr) {
    throw DataError(fmt::format(
        "bigWig '{}' has no readable data index (a file without values, or a damaged one)", path_));
  }
  bwDestroyOverlappingIntervals(probe);
}

BigWigReader::BigWigReader(std::string path, std::vector<Contig> contigs)
    : path_(std::move(path)), contigs_(std::move(contigs)) {
  handle_ = std::make_unique<Handle>(open_for_reading(path_));
  for (size_t i = 0; i < contigs_.size(); ++i) ids_.emplace(contigs_[i].name, i);
}

BigWigReader::~BigWigReader() = default;
BigWigReader::BigWigReader(BigWigReader&&) noexcept = default;
BigWigReader& BigWigReader::operator=(BigWigReader&&) noexcept = default;

BigWigReader BigWigReader::clone() const { return BigWigReader(path_, contigs_); }

int64_t BigWigReader::contig_length(std::string_view name) const {
  const auto it = ids_.find(std::string(name));
  return it == ids_.end() ? -1 : contigs_[it->second].length;
}

void BigWigReader::read(std::string_view contig, int64_t start, int64_t end, float* out) const {
  const auto it = ids_.find(std::string(contig));
  if (it == ids_.end()) {
    throw DataError(fmt::format("bigWig '{}' has no contig '{}'", path_, contig));
  }
  const Contig& c = contigs_[it->second];
  if (start < 0 || start > end || end > c.length) {
    throw DataError(fmt::format("bigWig '{}': range {}:{}-{} is outside the contig ({} bases)",
                                path_, contig, start, end, c.length));
  }
  std::fill(out, out + (end - start), 0.0F);
  if (start == end) return;
  bwOverlappingIntervals_t* found = bwGetOverlappingIntervals(
      handle_->file, c.name.c_str(), static_cast<uint32_t>(start), static_cast<uint32_t>(end));
  if (found == nullptr) {
    throw DataError(fmt::format("bigWig '{}': reading {}:{}-{} failed (a damaged file?)", path_,
                                contig, start, end));
  }
  // Entries may start before `start` or end after `end`; only the overlap is written.
  std::unique_ptr<bwOverlappingIntervals_t, void (*)(bwOverlappingIntervals_t*)> owner(
      found, bwDestroyOverlappingIntervals);
  for (uint32_t i = 0; i < found->l; ++i) {
    const float value = found->value[i];
    if (std::isnan(value)) continue;
    const int64_t lo = std::max<int64_t>(found->start[i], start);
    const int64_t hi = std::min<int64_t>(found->end[i], end);
    if (std::isinf(value)) {
      throw DataError(fmt::format("bigWig '{}': {}:{}-{} holds an infinite value", path_, contig,
                                  found->start[i], found->end[i]));
    }
    if (lo < hi) std::fill(out + (lo - start), out + (hi - start), value);
  }
}

// ---- BigWigWriter ----------------------------------------------------------------------------

BigWigWriter::BigWigWriter(std::filesystem::path path, std::vector<Contig> contigs)
    : path_(std::move(path)), contigs_(std::move(contigs)) {
  if (contigs_.empty()) {
    throw DataError(fmt::format("bigWig '{}': the chromosome list is empty", path_.string()));
  }
  for (size_t i = 0; i < contigs_.size(); ++i) {
    const Contig& c = contigs_[i];
    if (c.name.empty() || c.length < 1 || c.length > kMaxBigWigLength) {
      throw DataError(fmt::format(
          "bigWig '{}': contig '{}' of length {} cannot be written (a name, and a length in "
          "[1, {}], are needed)",
          path_.string(), c.name, c.length, kMaxBigWigLength));
    }
    if (!ids_.emplace(c.name, i).second) {
      throw DataError(
          fmt::format("bigWig '{}': contig '{}' is listed twice", path_.string(), c.name));
    }
  }
  stored_.resize(contigs_.size());
  started_.assign(contigs_.size(), false);
}

// Spans packed as 12 bytes (start, end, value) in an unlinked temporary file beside the target:
// no name is left behind, whatever ends the process.
struct BigWigWriter::SpillFile {
  struct Packed {
    uint32_t start;
    uint32_t end;
    float value;
  };

  explicit SpillFile(const std::filesystem::path& target) : target_(target) {
    std::string name = target.string() + ".spans.XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd >= 0) ::unlink(name.c_str());
    file_ = fd >= 0 ? ::fdopen(fd, "w+b") : nullptr;
    if (file_ == nullptr) {
      if (fd >= 0) ::close(fd);
      throw DataError(fmt::format("bigWig '{}': cannot create a temporary file in its directory",
                                  target.string()));
    }
  }
  ~SpillFile() { std::fclose(file_); }
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends spans; returns the index of the first.
  int64_t append(std::span<const BigWigSpan> spans) {
    packed_.resize(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) {
      packed_[i] = Packed{static_cast<uint32_t>(spans[i].start),
                          static_cast<uint32_t>(spans[i].end), spans[i].value};
    }
    if (std::fseek(file_, 0, SEEK_END) != 0 ||
        std::fwrite(packed_.data(), sizeof(Packed), packed_.size(), file_) != packed_.size()) {
      throw DataError(
          fmt::format("bigWig '{}': cannot write its temporary spans file (is the disk full?)",
                      target_.string()));
    }
    const int64_t first = count_;
    count_ += static_cast<int64_t>(spans.size());
    return first;
  }

  // Spans [first, first + n).
  void read(int64_t first, size_t n, std::vector<BigWigSpan>& out) {
    packed_.resize(n);
    if (std::fflush(file_) != 0 ||
        ::fseeko(file_, static_cast<off_t>(first) * static_cast<off_t>(sizeof(Packed)), SEEK_SET) !=
            0 ||
        std::fread(packed_.data(), sizeof(Packed), n, file_) != n) {
      throw DataError(
          fmt::format("bigWig '{}': cannot read back its temporary spans file", target_.string()));
    }
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      out[i] = BigWigSpan{packed_[i].start, packed_[i].end, packed_[i].value};
    }
  }

 private:
  std::filesystem::path target_;
  std::FILE* file_ = nullptr;
  int64_t count_ = 0;
  std::vector<Packed> packed_;
};

BigWigWriter::~BigWigWriter() = default;

void BigWigWriter::spill_pending(bool keep_last) {
  const size_t n = pending_.size() - (keep_last && !pending_.empty() ? 1 : 0);
  if (n == 0) return;
  if (!spill_) spill_ = std::make_unique<SpillFile>(path_);
  const int64_t first = spill_->append(std::span<const BigWigSpan>(pending_.data(), n));
  StoredSpans& stored = stored_[current_];
  if (stored.count == 0) stored.first = first;
  stored.count += static_cast<int64_t>(n);
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
}

void BigWigWriter::add(size_t contig, const BigWigSpan& span) {
  const Contig& c = contigs_[contig];
  if (finished_) {
    throw DataError(fmt::format("bigWig '{}': values added after finish()", path_.string()));
  }
  if (contig != current_) {
    if (started_[contig]) {
      throw DataError(fmt::format(
          "bigWig '{}': values of contig '{}' added again after those of '{}' (each contig's "
          "values must come together)",
          path_.string(), c.name, contigs_[current_].name));
    }
    spill_pending(false);
    current_ = contig;
  }
  started_[contig] = true;
  if (span.start < 0 || span.start >= span.end || span.end > c.length ||
      !std::isfinite(span.value)) {
    throw DataError(fmt::format(
        "bigWig '{}': span {}:{}-{} = {} is invalid (a non-empty range inside the contig's {} "
        "bases and a finite value are needed)",
        path_.string(), c.name, span.start, span.end, span.value, c.length));
  }
  // pending_ keeps the contig's last span until the contig ends.
  if (!pending_.empty() && span.start < pending_.back().end) {
    throw DataError(fmt::format(
        "bigWig '{}': span {}:{}-{} overlaps or precedes the span before it ({}-{})",
        path_.string(), c.name, span.start, span.end, pending_.back().start, pending_.back().end));
  }
  if (span.value == 0.0F) return;
  StoredSpans& stored = stored_[contig];
  if (pending_.empty() && stored.count == 0) stored.start = span.start;
  stored.end = span.end;
  stored.sum += static_cast<double>(span.value) * static_cast<double>(span.end - span.start);
  // A span continuing the previous one with the same value extends it.
  if (!pending_.empty() && pending_.back().end == span.start &&
      pending_.back().value == span.value) {
    pending_.back().end = span.end;
    return;
  }
  pending_.push_back(span);
  constexpr size_t kPendingSpans = size_t{1} << 16;
  if (pending_.size() >= kPendingSpans) spill_pending(true);
}

namespace {

size_t checked_contig(const std::unordered_map<std::string, size_t>& ids, std::string_view name,
                      const std::filesystem::path& path) {
  const auto it = ids.find(std::string(name));
  if (it == ids.end()) {
    throw DataError(
        fmt::format("bigWig '{}': contig '{}' is not in its chromosome list", path.string(), name));
  }
  return it->second;
}

}  // namespace

void BigWigWriter::add_spans(std::string_view contig, std::span<const BigWigSpan> spans) {
  const size_t id = checked_contig(ids_, contig, path_);
  for (const BigWigSpan& span : spans) add(id, span);
}

void BigWigWriter::add_values(std::string_view contig, int64_t start,
                              std::span<const float> values) {
  const size_t id = checked_contig(ids_, contig, path_);
  const auto n = static_cast<int64_t>(values.size());
  for (int64_t i = 0; i < n;) {
    int64_t j = i + 1;
    while (j < n && values[static_cast<size_t>(j)] == values[static_cast<size_t>(i)]) ++j;
    add(id, BigWigSpan{start + i, start + j, values[static_cast<size_t>(i)]});
    i = j;
  }
}

namespace {

// A temporary file next to the target that libBigWig writes; removed when this goes away.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::filesystem::path& target) {
    std::string name = target.string() + ".bigwig.XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0) {
      throw DataError(fmt::format("bigWig '{}': cannot create a temporary file in its directory",
                                  target.string()));
    }
    ::close(fd);
    path_ = name;
  }
  ~TemporaryFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Spans [first, first + n) of a contig's spans, in order.
using SpanSource =
    std::function<void(size_t contig, int64_t first, size_t n, std::vector<BigWigSpan>& out)>;

// Writes the spans of each contig (counts[c] of them, from `source`) to `path` through
// libBigWig; false when a call fails.
bool write_with_libbigwig(const std::string& path, const std::vector<Contig>& contigs,
                          const std::vector<int64_t>& counts, const SpanSource& source) {
  init_libbigwig();
  bigWigFile_t* file = bwOpen(path.c_str(), nullptr, "w");
  if (file == nullptr) return false;
  // bwClose finalises the file (index, zoom levels) and frees everything, also after an error.
  std::unique_ptr<bigWigFile_t, void (*)(bigWigFile_t*)> owner(file, bwClose);
  if (bwCreateHdr(file, 10) != 0) return false;
  std::vector<const char*> names;
  std::vector<uint32_t> lengths;
  for (const Contig& c : contigs) {
    names.push_back(c.name.c_str());
    lengths.push_back(static_cast<uint32_t>(c.length));
  }
  file->cl = bwCreateChromList(names.data(), lengths.data(), static_cast<int64_t>(names.size()));
  if (file->cl == nullptr || bwWriteHdr(file) != 0) return false;
  // libBigWig writes no data index for a file without values, and readers then fail: such a
  // file gets one explicit 0 at the first base (the same as no data to a reader).
  const bool any = std::any_of(counts.begin(), counts.end(), [](int64_t n) { return n > 0; });
  constexpr int64_t kChunk = int64_t{1} << 20;
  std::vector<BigWigSpan> list;
  std::vector<const char*> chrom;
  std::vector<uint32_t> starts, ends;
  std::vector<float> values;
  for (size_t c = 0; c < contigs.size(); ++c) {
    const int64_t total = !any && c == 0 ? 1 : counts[c];
    for (int64_t first = 0; first < total; first += kChunk) {
      const auto n = static_cast<size_t>(std::min(kChunk, total - first));
      if (any) {
        source(c, first, n, list);
      } else {
        list.assign(1, BigWigSpan{0, 1, 0.0F});
      }
      chrom.assign(n, names[c]);
      starts.resize(n);
      ends.resize(n);
      values.resize(n);
      for (size_t i = 0; i < n; ++i) {
        starts[i] = static_cast<uint32_t>(list[i].start);
        ends[i] = static_cast<uint32_t>(list[i].end);
        values[i] = list[i].value;
      }
      const int rc = first == 0 ? bwAddIntervals(file, chrom.data(), starts.data(), ends.data(),
                                                 values.data(), static_cast<uint32_t>(n))
                                : bwAppendIntervals(file, starts.data(), ends.data(), values.data(),
                                                    static_cast<uint32_t>(n));
      if (rc != 0) return false;
    }
  }
  return true;
}

// Copies `from` into `to` atomically in blocks (a bigWig may be larger than memory allows).
void publish_copy(const std::string& from, const std::filesystem::path& to) {
  std::ifstream in(from, std::ios::binary);
  io::AtomicFileWriter out(to);
  std::vector<char> block(size_t{1} << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (got > 0) out.write(std::as_bytes(std::span<const char>(block.data(), got)));
  }
  if (!in.eof()) {
    throw DataError(
        fmt::format("bigWig '{}': cannot read back the temporary file '{}'", to.string(), from));
  }
  out.commit();
}

}  // namespace

void BigWigWriter::finish() {
  if (finished_) {
    throw DataError(fmt::format("bigWig '{}': finish() called twice", path_.string()));
  }
  finished_ = true;
  spill_pending(false);
  std::vector<int64_t> counts;
  for (const StoredSpans& stored : stored_) counts.push_back(stored.count);
  const SpanSource source = [this](size_t contig, int64_t first, size_t n,
                                   std::vector<BigWigSpan>& out) {
    spill_->read(stored_[contig].first + first, n, out);
  };
  const TemporaryFile temporary(path_);
  if (!write_with_libbigwig(temporary.path(), contigs_, counts, source)) {
    throw DataError(
        fmt::format("bigWig '{}': libBigWig failed to write the file (is the disk "
                    "full or the directory not writable?)",
                    path_.string()));
  }
  // bwClose reports nothing, so the file is read back: the chromosome list and every contig's
  // sum of values must be what was added.
  const BigWigReader check(temporary.path());
  std::vector<float> buffer;
  for (size_t c = 0; c < contigs_.size(); ++c) {
    const Contig& contig = contigs_[c];
    if (check.contig_length(contig.name) != contig.length) {
      throw DataError(fmt::format("bigWig '{}': the written file lacks contig '{}' of {} bases",
                                  path_.string(), contig.name, contig.length));
    }
    if (stored_[c].count == 0) continue;
    const double expected = stored_[c].sum;
    double found = 0.0;
    const int64_t lo = stored_[c].start;
    const int64_t hi = stored_[c].end;
    constexpr int64_t kChunk = int64_t{1} << 20;
    for (int64_t at = lo; at < hi; at += kChunk) {
      const int64_t end = std::min(hi, at + kChunk);
      buffer.resize(static_cast<size_t>(end - at));
      check.read(contig.name, at, end, buffer.data());
      for (const float v : buffer) found += v;
    }
    if (std::abs(found - expected) > 1e-6 * (1.0 + std::abs(expected))) {
      throw DataError(fmt::format(
          "bigWig '{}': the written file reads back a sum of {} over contig '{}', not the {} "
          "written (a libBigWig writer bug?)",
          path_.string(), found, contig.name, expected));
    }
  }
  publish_copy(temporary.path(), path_);
}

}  // namespace strand::data
