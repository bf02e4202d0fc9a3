// Fragment lines to cuts: HTSlib's hts_getline reads plain, gzip and bgzip text alike.
#include "data/reads/fragment_cuts.h"

#include <fmt/format.h>
#include <htslib/hts.h>
#include <htslib/kseq.h>
#include <htslib/kstring.h>

#include <cstdlib>
#include <string_view>
#include <unordered_set>

#include "data/data_error.h"
#include "data/text_fields.h"
#include "data/warnings.h"

namespace strand::data {
namespace {

class FragmentCutReader : public CutReader {
 public:
  FragmentCutReader(std::string path, const FastaReader& genome, CutReaderOptions options)
      : path_(std::move(path)), genome_(genome), options_(std::move(options)) {
    silence_htslib_log();
    file_ = hts_open(path_.c_str(), "r");
    if (file_ == nullptr) {
      throw DataError(fmt::format("fragments '{}': cannot open it", path_));
    }
  }
  ~FragmentCutReader() override {
    std::free(line_.s);
    hts_close(file_);
  }
  FragmentCutReader(const FragmentCutReader&) = delete;
  FragmentCutReader& operator=(const FragmentCutReader&) = delete;

  bool next(RecordCuts& out) override {
    while (true) {
      const int got = hts_getline(file_, KS_SEP_LINE, &line_);
      if (got == -1) return false;
      if (got < -1) {
        throw DataError(fmt::format(
            "fragments '{}': cannot read past line {} (truncated or corrupt compressed file)",
            path_, line_number_));
      }
      ++line_number_;
      std::string_view line(line_.s, line_.l);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty() || line.front() == '#' || is_blank(line)) continue;
      ++tally_.records;
      if (parse(line, out)) return true;
    }
  }

  const ReadTally& tally() const override { return tally_; }

 private:
  [[noreturn]] void bad_line(std::string_view line, std::string_view what) const {
    throw DataError(fmt::format(
        "fragments '{}' line {}: {} (expected tab-separated chrom, start, end[, barcode, count] "
        "with 0 <= start < end): '{}'",
        path_, line_number_, what, excerpt(line)));
  }

  // Fills `out` from a fragment line; false when the line is skipped (unknown contig).
  bool parse(std::string_view line, RecordCuts& out) {
    const std::vector<std::string_view> fields = split_tabs(line);
    if (fields.size() < 3) bad_line(line, "fewer than 3 columns");
    const std::optional<int64_t> start = parse_int(fields[1]);
    const std::optional<int64_t> end = parse_int(fields[2]);
    if (!start || !end) bad_line(line, "start or end is not an integer");
    if (*start < 0 || *start >= *end) bad_line(line, "start and end do not make a fragment");
    uint32_t weight = 1;
    if (options_.filters.keep_duplicates && fields.size() >= 5) {
      const std::optional<int64_t> count = parse_int(fields[4]);
      if (!count || *count < 1 || *count > UINT32_MAX) {
        bad_line(line, "the count column (5th) is not a positive integer");
      }
      weight = static_cast<uint32_t>(*count);
    }
    check_order(fields[0], *start, line);
    if (contig_id_ < 0) {
      ++tally_.unknown_contigs[contig_];
      return false;
    }
    out.contig = contig_id_;
    out.start = *start;
    out.cuts[0] = Cut{*start + options_.shift.plus, false};
    out.cuts[1] = Cut{*end - 1 + options_.shift.minus, true};
    out.count = 2;
    out.weight = weight;
    ++tally_.kept;
    return true;
  }

  // Each contig's lines in one block, starts not decreasing within it.
  void check_order(std::string_view contig, int64_t start, std::string_view line) {
    if (contig != contig_ || line_number_with_contig_ == 0) {
      if (finished_.contains(std::string(contig))) {
        bad_line(line, fmt::format("contig '{}' comes back after '{}': the file is not sorted "
                                   "(sort -k1,1 -k2,2n)",
                                   excerpt(contig), excerpt(contig_)));
      }
      if (line_number_with_contig_ != 0) finished_.insert(contig_);
      contig_ = std::string(contig);
      contig_id_ = genome_.contig_id(contig_);
      last_start_ = start;
      line_number_with_contig_ = line_number_;
      return;
    }
    if (start < last_start_) {
      bad_line(line, fmt::format("start {} comes after start {} on '{}': the file is not sorted "
                                 "(sort -k1,1 -k2,2n)",
                                 start, last_start_, excerpt(contig)));
    }
    last_start_ = start;
  }

  std::string path_;
  const FastaReader& genome_;
  CutReaderOptions options_;
  htsFile* file_ = nullptr;
  kstring_t line_ = KS_INITIALIZE;
  int64_t line_number_ = 0;
  ReadTally tally_;
  std::string contig_;                        // the contig of the current block
  int contig_id_ = -1;                        // its FASTA index
  int64_t last_start_ = 0;                    // the last start seen on it
  int64_t line_number_with_contig_ = 0;       // the block's first line; 0 before any
  std::unordered_set<std::string> finished_;  // contigs whose block has ended
};

}  // namespace

std::unique_ptr<CutReader> open_fragment_cuts(const std::string& path, const FastaReader& genome,
                                              const CutReaderOptions& options) {
  return std::make_unique<FragmentCutReader>(path, genome, options);
}

}  // namespace strand::data
