// FastaReader: faidx-backed random access; htslib return codes become DataError here.
#include "data/fasta_reader.h"

#include <htslib/faidx.h>

#include <cstdlib>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/warnings.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

}  // namespace

void FastaReader::FaiDeleter::operator()(faidx_t* fai) const { fai_destroy(fai); }

FastaReader::FastaReader(const std::string& path, const FastaOptions& options) : path_(path) {
  index_ = ensure_fasta_index(path, options);
  open_handle();
  // Lengths come from the .fai itself: htslib 1.16 only reports them as int.
  for (FaiEntry& e : read_fai(index_.fai)) {
    ids_.emplace(e.name, static_cast<int>(contigs_.size()));
    contigs_.push_back({std::move(e.name), e.length});
  }
  if (static_cast<int>(contigs_.size()) != faidx_nseq(fai_.get())) {
    throw DataError(fmt::format("FASTA index '{}' lists {} records but htslib loaded {}",
                                index_.fai, contigs_.size(), faidx_nseq(fai_.get())));
  }
}

FastaReader::FastaReader(std::string path, FastaIndexPaths index, std::vector<Contig> contigs,
                         std::unordered_map<std::string, int> ids)
    : path_(std::move(path)),
      index_(std::move(index)),
      contigs_(std::move(contigs)),
      ids_(std::move(ids)) {
  open_handle();
}

FastaReader::~FastaReader() = default;
FastaReader::FastaReader(FastaReader&&) noexcept = default;
FastaReader& FastaReader::operator=(FastaReader&&) noexcept = default;

void FastaReader::open_handle() {
  silence_htslib_log();
  fai_.reset(fai_load3(path_.c_str(), index_.fai.c_str(),
                       index_.gzi.empty() ? nullptr : index_.gzi.c_str(), 0));
  if (!fai_) {
    throw DataError(
        fmt::format("cannot load FASTA index '{}' for '{}' (corrupt index?)", index_.fai, path_));
  }
}

FastaReader FastaReader::clone() const { return FastaReader(path_, index_, contigs_, ids_); }

int FastaReader::contig_id(std::string_view name) const {
  const auto it = ids_.find(std::string(name));
  return it == ids_.end() ? -1 : it->second;
}

const Contig& FastaReader::checked_contig(std::string_view contig, int64_t start,
                                          int64_t end) const {
  const int id = contig_id(contig);
  if (id < 0) {
    throw DataError(fmt::format("contig '{}' is not in FASTA '{}'", contig, path_));
  }
  const Contig& c = contigs_[static_cast<size_t>(id)];
  if (start < 0 || start > end || end > c.length) {
    throw DataError(fmt::format("range [{}, {}) is outside contig '{}' (length {}) of '{}'", start,
                                end, contig, c.length, path_));
  }
  return c;
}

std::string FastaReader::fetch(std::string_view contig, int64_t start, int64_t end) const {
  const Contig& c = checked_contig(contig, start, end);
  if (start == end) return {};
  hts_pos_t len = 0;
  std::unique_ptr<char, FreeDeleter> seq(
      faidx_fetch_seq64(fai_.get(), c.name.c_str(), start, end - 1, &len));
  if (!seq || len != end - start) {
    throw DataError(fmt::format("reading {}:{}-{} from '{}' failed (file changed or corrupt?)",
                                c.name, start + 1, end, path_));
  }
  return std::string(seq.get(), static_cast<size_t>(len));
}

void FastaReader::fetch_codes(std::string_view contig, int64_t start, int64_t end, uint8_t* codes,
                              uint8_t* lower_mask) const {
  const Contig& c = checked_contig(contig, start, end);
  if (start == end) return;
  hts_pos_t len = 0;
  std::unique_ptr<char, FreeDeleter> seq(
      faidx_fetch_seq64(fai_.get(), c.name.c_str(), start, end - 1, &len));
  if (!seq || len != end - start) {
    throw DataError(fmt::format("reading {}:{}-{} from '{}' failed (file changed or corrupt?)",
                                c.name, start + 1, end, path_));
  }
  encode(seq.get(), static_cast<size_t>(len), codes, lower_mask);
}

}  // namespace strand::data
