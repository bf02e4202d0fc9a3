// FastaRecordReader and UniqueNames (data/fasta/fasta_records.h): FastaScanner over BGZF reads,
// collecting each record as the scanner passes it.
#include "data/fasta/fasta_records.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <unordered_map>

#include "data/data_error.h"
#include "data/fasta/fasta_index.h"
#include "data/fasta/fasta_scanner.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

// Bytes read per step: small, since the records completed by one step wait in a queue.
constexpr size_t kChunkBytes = size_t{64} << 10;

}  // namespace

// The scanner's events build the records; a record is complete (and checked) once the next
// header starts or the file ends.
struct FastaRecordReader::State : FastaScanEvents {
  State(const std::string& fasta, bool keep)
      : path(fasta),
        keep_bases(keep),
        chunks(fasta, kChunkBytes),
        scanner(fasta, false, false, this) {}

  void record(std::string_view name, int64_t line) override {
    if (open) done.push_back(std::move(current));
    current = FastaRecord{};
    current.name = std::string(name);
    current.line = line;
    open = true;
  }
  void bases(const unsigned char* data, size_t n) override {
    if (!open) return;  // sequence before the first header: the scanner fails at the line's end
    current.length += static_cast<int64_t>(n);
    if (keep_bases) current.bases.append(reinterpret_cast<const char*>(data), n);
  }

  // Reads the next chunk; false once the file has ended (the last record then waits in `done`).
  bool read_more() {
    if (ended) return false;
    if (chunks.feed(scanner)) return true;
    scanner.finish();
    if (open) done.push_back(std::move(current));
    open = false;
    ended = true;
    return true;
  }

  std::string path;
  bool keep_bases;
  FastaChunks chunks;
  FastaScanner scanner;
  std::deque<FastaRecord> done;  // complete records not yet returned
  FastaRecord current;           // the record being read
  bool open = false;             // `current` holds a record
  bool ended = false;
};

FastaRecordReader::FastaRecordReader(const std::string& path, bool keep_bases) {
  check_fasta_file(path);
  state_ = std::make_unique<State>(path, keep_bases);
}

FastaRecordReader::~FastaRecordReader() = default;
FastaRecordReader::FastaRecordReader(FastaRecordReader&&) noexcept = default;
FastaRecordReader& FastaRecordReader::operator=(FastaRecordReader&&) noexcept = default;

bool FastaRecordReader::next(FastaRecord& record) {
  while (state_->done.empty()) {
    if (!state_->read_more()) return false;
  }
  record = std::move(state_->done.front());
  state_->done.pop_front();
  return true;
}

const std::string& FastaRecordReader::path() const { return state_->path; }

void UniqueNames::add(std::string_view name) {
  hashes_.push_back(std::hash<std::string_view>{}(name));
}

void UniqueNames::check(const std::string& path) {
  std::vector<uint64_t> hashes = std::move(hashes_);
  hashes_ = {};
  std::sort(hashes.begin(), hashes.end());
  // The hashes two or more names share: real duplicates, or (rarely) a collision.
  std::vector<uint64_t> shared;
  for (size_t i = 1; i < hashes.size(); ++i) {
    if (hashes[i] == hashes[i - 1] && (shared.empty() || shared.back() != hashes[i])) {
      shared.push_back(hashes[i]);
    }
  }
  hashes = {};
  if (shared.empty()) return;
  // The names behind them, in file order: the first repeat is the error check_fasta_content
  // gives.
  std::unordered_map<std::string, int64_t> lines;
  FastaRecordReader reader(path, false);
  FastaRecord record;
  while (reader.next(record)) {
    if (!std::binary_search(shared.begin(), shared.end(),
                            std::hash<std::string_view>{}(record.name))) {
      continue;
    }
    const auto [it, inserted] = lines.emplace(record.name, record.line);
    if (!inserted) {
      throw DataError(fmt::format("{}:{}: {}", path, record.line,
                                  duplicate_name_message(record.name, it->second)));
    }
  }
}

}  // namespace strand::data
