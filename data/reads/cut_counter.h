// Cuts to per-base counts with memory flat in the number of reads: records come sorted, so
// only a window of the current contig is held (from the first base a later record can still
// cut to the last cut seen); the bases before it are final and go to a sink in chunks.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/reads/read_cuts.h"

namespace strand::data {

/// Final counts of bases [start, start + plus.size()) of a contig: cuts of + and - strand reads.
struct CutChunk {
  int contig = -1;  ///< FASTA index
  int64_t start = 0;
  std::span<const uint32_t> plus;
  std::span<const uint32_t> minus;  ///< as long as plus
};

/// Receives chunks in order: contigs in the reads' order, starts increasing within a contig.
using CutChunkSink = std::function<void(const CutChunk& chunk)>;

/// Base ranges [start, end) per contig (FASTA index) whose cuts are dropped.
using ExcludedRanges = std::vector<std::vector<std::pair<int64_t, int64_t>>>;

/// Cuts counted and dropped (weighted by the records' weights).
struct CutTally {
  int64_t counted = 0;      ///< inside a contig and outside the excluded ranges
  int64_t outside = 0;      ///< shifted before the contig's first base or past its last
  int64_t blacklisted = 0;  ///< inside an excluded range
};

/// Counts the cuts of sorted records (CutReader's order) base by base.
class CutCounter {
 public:
  /// `excluded` is indexed like `contigs` (or empty); its ranges are sorted and merged here.
  /// `chunk`: bases handed to the sink at a time (it bounds the memory held).
  CutCounter(const std::vector<Contig>& contigs, CutShift shift, ExcludedRanges excluded,
             CutChunkSink sink, int64_t chunk = int64_t{1} << 20);
  /// Counts a record's cuts. Records come in CutReader's order.
  void add(const RecordCuts& record);
  /// Hands the counts still held to the sink. Call once, after the last record.
  void finish();
  const CutTally& tally() const { return tally_; }

 private:
  void flush(int64_t upto);  // hands bases [origin_, upto) to the sink
  void drop_excluded(int64_t start, int64_t end);

  const std::vector<Contig>& contigs_;
  int64_t lowest_offset_;  // a record starting at s cuts no base before s + lowest_offset_
  ExcludedRanges excluded_;
  CutChunkSink sink_;
  int64_t chunk_;
  CutTally tally_;
  int contig_ = -1;
  int64_t origin_ = 0;           // the base plus_[0] and minus_[0] count
  std::vector<uint32_t> plus_;   // counts of bases origin_... of the current contig
  std::vector<uint32_t> minus_;  // same size as plus_
  size_t next_excluded_ = 0;     // first excluded range of contig_ not yet passed
};

}  // namespace strand::data
