// The cut sites of sequencing reads, the unit a base-resolution accessibility track counts: the
// enzyme's cut is the read's 5' end moved by the assay's shift. Shared by the BAM and fragment
// readers (bam_cuts.h, fragment_cuts.h) and the counting that turns cuts into a track
// (cut_counter.h).
//
// The shift convention is chrombpnet's (helpers/preprocessing/reads_to_bigwig.py), stated on the
// read's 5' base in reference coordinates (0-based): a + strand read's 5' base is its first
// aligned base (pos), a - strand read's its last aligned base (end - 1); the cut is that base
// plus the strand's shift. ATAC from a BAM: +4 / -4 (the centre of Tn5's 9-bp duplication for
// both reads of one insertion); DNase: 0 / +1. 10x fragment files already carry Tn5's +4/-5 in
// their start and end, so their default is 0 / +1 for both assays (chrombpnet's 4-4, -4-(-5)).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"

namespace strand::data {

/// The enzyme whose cuts the reads mark.
enum class Assay { kAtac, kDnase };

/// How the reads are stored.
enum class ReadsFormat {
  kAlignments,  ///< SAM, BAM or CRAM (HTSlib), one record per read
  kFragments,   ///< 10x-style fragment TSV, plain or (b)gzipped: chrom, start, end[, barcode,
                ///< count], one line per fragment (two cuts)
};

/// Bases added to the 5' base of + and - strand reads (a fragment's start and end - 1) to give
/// the cut (see the file comment).
struct CutShift {
  int64_t plus = 0;   ///< added to a + strand read's first aligned base
  int64_t minus = 0;  ///< added to a - strand read's last aligned base
};

/// chrombpnet's shift for `assay` on reads stored as `format`.
CutShift default_cut_shift(Assay assay, ReadsFormat format);

/// Which alignment records count. Unmapped, secondary, supplementary and QC-failed records never
/// do.
struct ReadFilters {
  int64_t min_mapq = 0;            ///< records of lower mapping quality are dropped
  bool keep_duplicates = false;    ///< count records flagged duplicate (0x400); for fragments,
                                   ///< weight each line by its count column (PCR copies)
  bool proper_pairs_only = false;  ///< drop records not flagged properly paired (0x2)
};

/// One cut: a base of a contig and the strand of the read that marks it.
struct Cut {
  int64_t position = 0;  ///< 0-based base; may fall outside the contig (dropped when counted)
  bool minus = false;    ///< from a - strand read (a fragment's end)
};

/// The cuts of one record (a read: one cut; a fragment: two), in the file's sort order.
struct RecordCuts {
  int contig = -1;          ///< the contig's index in the FASTA
  int64_t start = 0;        ///< the record's leftmost base: the file's sort key
  std::array<Cut, 2> cuts;  ///< the first `count` hold this record's cuts
  int count = 0;
  uint32_t weight = 1;  ///< reads this record stands for (fragments' count column)
};

/// What a reader saw and why it dropped records.
struct ReadTally {
  int64_t records = 0;                             ///< records (alignments or fragment lines) read
  int64_t kept = 0;                                ///< records whose cuts were counted
  int64_t unmapped = 0;                            ///< flag 0x4
  int64_t secondary = 0;                           ///< flag 0x100 or supplementary 0x800
  int64_t qc_fail = 0;                             ///< flag 0x200
  int64_t duplicates = 0;                          ///< flag 0x400 (without keep_duplicates)
  int64_t low_mapq = 0;                            ///< below min_mapq
  int64_t not_proper_pair = 0;                     ///< without 0x2 (with proper_pairs_only)
  std::map<std::string, int64_t> unknown_contigs;  ///< records on contigs not in the FASTA
};

/// A source of RecordCuts in the file's order. Readers check the order as they go: every
/// contig's records form one block, starts never decrease within it; an unsorted file is a
/// DataError naming the file and the record or line.
class CutReader {
 public:
  virtual ~CutReader() = default;
  /// The next record with cuts to count (filtered records are tallied and skipped); false at
  /// the end of the file.
  virtual bool next(RecordCuts& out) = 0;
  /// The records seen so far.
  virtual const ReadTally& tally() const = 0;
};

/// What open_cut_reader() needs besides the file.
struct CutReaderOptions {
  ReadsFormat format = ReadsFormat::kAlignments;
  CutShift shift;
  ReadFilters filters;
  std::string reference;  ///< FASTA a CRAM file is decoded against
};

/// A reader of `path`'s cuts; contigs are named by their index in `genome`. Throws DataError
/// naming the file when it cannot be opened or read.
std::unique_ptr<CutReader> open_cut_reader(const std::string& path, const FastaReader& genome,
                                           const CutReaderOptions& options);

/// kAlignments when HTSlib recognises `path` as SAM, BAM or CRAM, else kFragments.
ReadsFormat detect_reads_format(const std::string& path);

}  // namespace strand::data
