// BigWigReader and BigWigWriter over libBigWig.
#include "data/signals/bigwig.h"

#include <bigWig.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
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
  spans_.resize(contigs_.size());
  started_.assign(contigs_.size(), false);
}

BigWigWriter::~BigWigWriter() = default;

void BigWigWriter::add(size_t contig, const BigWigSpan& span) {
  const Contig& c = contigs_[contig];
  if (finished_) {
    throw DataError(fmt::format("bigWig '{}': values added after finish()", path_.string()));
  }
  if (contig != current_ && started_[contig]) {
    throw DataError(fmt::format(
        "bigWig '{}': values of contig '{}' added again after those of '{}' (each contig's "
        "values must come together)",
        path_.string(), c.name, contigs_[current_].name));
  }
  current_ = contig;
  started_[contig] = true;
  if (span.start < 0 || span.start >= span.end || span.end > c.length ||
      !std::isfinite(span.value)) {
    throw DataError(fmt::format(
        "bigWig '{}': span {}:{}-{} = {} is invalid (a non-empty range inside the contig's {} "
        "bases and a finite value are needed)",
        path_.string(), c.name, span.start, span.end, span.value, c.length));
  }
  std::vector<BigWigSpan>& spans = spans_[contig];
  if (!spans.empty() && span.start < spans.back().end) {
    throw DataError(fmt::format(
        "bigWig '{}': span {}:{}-{} overlaps or precedes the span before it ({}-{})",
        path_.string(), c.name, span.start, span.end, spans.back().start, spans.back().end));
  }
  if (span.value == 0.0F) return;
  // A span continuing the previous one with the same value extends it.
  if (!spans.empty() && spans.back().end == span.start && spans.back().value == span.value) {
    spans.back().end = span.end;
    return;
  }
  spans.push_back(span);
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

// Writes `spans` (per contig) to `path` through libBigWig; false when a call fails.
bool write_with_libbigwig(const std::string& path, const std::vector<Contig>& contigs,
                          const std::vector<std::vector<BigWigSpan>>& spans) {
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
  bool any = false;
  for (const auto& contig_spans : spans) any = any || !contig_spans.empty();
  constexpr size_t kChunk = size_t{1} << 20;
  std::vector<const char*> chrom;
  std::vector<uint32_t> starts, ends;
  std::vector<float> values;
  for (size_t c = 0; c < contigs.size(); ++c) {
    std::vector<BigWigSpan> sentinel;
    if (!any && c == 0) sentinel.push_back(BigWigSpan{0, 1, 0.0F});
    const std::vector<BigWigSpan>& list = sentinel.empty() ? spans[c] : sentinel;
    for (size_t first = 0; first < list.size(); first += kChunk) {
      const size_t n = std::min(kChunk, list.size() - first);
      chrom.assign(n, names[c]);
      starts.resize(n);
      ends.resize(n);
      values.resize(n);
      for (size_t i = 0; i < n; ++i) {
        starts[i] = static_cast<uint32_t>(list[first + i].start);
        ends[i] = static_cast<uint32_t>(list[first + i].end);
        values[i] = list[first + i].value;
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

}  // namespace

void BigWigWriter::finish() {
  if (finished_) {
    throw DataError(fmt::format("bigWig '{}': finish() called twice", path_.string()));
  }
  finished_ = true;
  const TemporaryFile temporary(path_);
  if (!write_with_libbigwig(temporary.path(), contigs_, spans_)) {
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
    if (spans_[c].empty()) continue;
    double expected = 0.0;
    for (const BigWigSpan& s : spans_[c])
      expected += static_cast<double>(s.value) * (s.end - s.start);
    double found = 0.0;
    const int64_t lo = spans_[c].front().start;
    const int64_t hi = spans_[c].back().end;
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
  std::ifstream in(temporary.path(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    throw DataError(fmt::format("bigWig '{}': cannot read back the temporary file '{}'",
                                path_.string(), temporary.path()));
  }
  io::write_file_atomically(path_, bytes);
}

}  // namespace strand::data
