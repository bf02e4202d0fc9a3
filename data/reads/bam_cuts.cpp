// Alignment records to cuts: HTSlib's sam_read1 over the whole file, filters and the sort check
// per record.
#include "data/reads/bam_cuts.h"

#include <fmt/format.h>
#include <htslib/hts.h>
#include <htslib/sam.h>

#include <vector>

#include "data/data_error.h"
#include "data/warnings.h"

namespace strand::data {
namespace {

class AlignmentCutReader : public CutReader {
 public:
  AlignmentCutReader(std::string path, const FastaReader& genome, CutReaderOptions options)
      : path_(std::move(path)), options_(std::move(options)) {
    silence_htslib_log();
    file_ = sam_open(path_.c_str(), "r");
    if (file_ == nullptr) {
      throw DataError(fmt::format("reads '{}': cannot open it as SAM, BAM or CRAM", path_));
    }
    if (file_->format.format == cram && !options_.reference.empty()) {
      // CRAM stores bases as differences to the reference: decoding needs the FASTA.
      hts_set_fai_filename(file_, options_.reference.c_str());
    }
    header_ = sam_hdr_read(file_);
    if (header_ == nullptr) {
      sam_close(file_);
      throw DataError(fmt::format("reads '{}': cannot read its SAM/BAM/CRAM header", path_));
    }
    record_ = bam_init1();
    const int n = sam_hdr_nref(header_);
    for (int tid = 0; tid < n; ++tid) {
      fasta_ids_.push_back(genome.contig_id(sam_hdr_tid2name(header_, tid)));
    }
  }
  ~AlignmentCutReader() override {
    bam_destroy1(record_);
    sam_hdr_destroy(header_);
    sam_close(file_);
  }
  AlignmentCutReader(const AlignmentCutReader&) = delete;
  AlignmentCutReader& operator=(const AlignmentCutReader&) = delete;

  bool next(RecordCuts& out) override {
    while (true) {
      const int got = sam_read1(file_, header_, record_);
      if (got == -1) return false;
      if (got < -1) {
        throw DataError(fmt::format(
            "reads '{}': record {} cannot be read (truncated or corrupt file, or a CRAM whose "
            "reference is not --fasta)",
            path_, tally_.records + 1));
      }
      ++tally_.records;
      check_order();
      if (!counts()) continue;
      const bam1_core_t& core = record_->core;
      const int contig = fasta_ids_[static_cast<size_t>(core.tid)];
      if (contig < 0) {
        ++tally_.unknown_contigs[sam_hdr_tid2name(header_, core.tid)];
        continue;
      }
      const bool minus = (core.flag & BAM_FREVERSE) != 0;
      // The 5' base: the first aligned base of a + read, the last of a - read (soft clips are
      // not aligned, as bedtools bamtobed, which chrombpnet uses, sees them).
      const int64_t five_prime = minus ? bam_endpos(record_) - 1 : core.pos;
      out.contig = contig;
      out.start = core.pos;
      out.cuts[0] = Cut{five_prime + (minus ? options_.shift.minus : options_.shift.plus), minus};
      out.count = 1;
      out.weight = 1;
      ++tally_.kept;
      return true;
    }
  }

  const ReadTally& tally() const override { return tally_; }

 private:
  // Refuses a record before the previous one: another contig of the header's order come back,
  // or a smaller position on the same contig. Records without a contig (unmapped, unplaced)
  // come last in a sorted file.
  void check_order() {
    const bam1_core_t& core = record_->core;
    const int tid = core.tid;
    if (tid < 0) {
      unplaced_seen_ = true;
      return;
    }
    const bool after_unplaced = unplaced_seen_;
    if (after_unplaced || tid < last_tid_ || (tid == last_tid_ && core.pos < last_pos_)) {
      const std::string before =
          after_unplaced
              ? std::string("unplaced records (no contig)")
              : fmt::format("{}:{}", sam_hdr_tid2name(header_, last_tid_), last_pos_ + 1);
      throw DataError(fmt::format(
          "reads '{}': record {} ('{}' at {}:{}) comes after {}: the file is not sorted by "
          "coordinate (sort it with `samtools sort`)",
          path_, tally_.records, bam_get_qname(record_), sam_hdr_tid2name(header_, tid),
          core.pos + 1, before));
    }
    last_tid_ = tid;
    last_pos_ = core.pos;
  }

  // Whether the record passes the filters; tallies why not.
  bool counts() {
    const bam1_core_t& core = record_->core;
    const uint16_t flag = core.flag;
    const ReadFilters& f = options_.filters;
    if ((flag & BAM_FUNMAP) != 0 || core.tid < 0) return ++tally_.unmapped, false;
    if ((flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) != 0) return ++tally_.secondary, false;
    if ((flag & BAM_FQCFAIL) != 0) return ++tally_.qc_fail, false;
    if ((flag & BAM_FDUP) != 0 && !f.keep_duplicates) return ++tally_.duplicates, false;
    if (core.qual < f.min_mapq) return ++tally_.low_mapq, false;
    if (f.proper_pairs_only && (flag & BAM_FPROPER_PAIR) == 0) {
      return ++tally_.not_proper_pair, false;
    }
    return true;
  }

  std::string path_;
  CutReaderOptions options_;
  samFile* file_ = nullptr;
  sam_hdr_t* header_ = nullptr;
  bam1_t* record_ = nullptr;
  std::vector<int> fasta_ids_;  // per header contig (tid): its FASTA index, -1 when absent
  ReadTally tally_;
  int last_tid_ = -1;
  int64_t last_pos_ = -1;
  bool unplaced_seen_ = false;
};

}  // namespace

std::unique_ptr<CutReader> open_alignment_cuts(const std::string& path, const FastaReader& genome,
                                               const CutReaderOptions& options) {
  return std::make_unique<AlignmentCutReader>(path, genome, options);
}

}  // namespace strand::data
