// SampleWindows: the name and scored window of each sample of a scoring split, asked for in
// sample order as results are written. Streamed FASTA records (`--fasta` alone) are read again
// from the file, one record at a time, so no list of every sample's name is kept; other splits
// read their lists (DataSplit::sample_names, the interval source's windows).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "app/data_builder.h"
#include "data/fasta/fasta_records.h"
#include "data/intervals/intervals.h"
#include "data/sources/streamed_record_source.h"

namespace strand::app {

/// The names and windows of `split`'s samples (the split must outlive it).
class SampleWindows {
 public:
  explicit SampleWindows(const DataSplit& split);

  /// Sample `index`'s name: an interval's chrom:start-end, a record's or simulated sequence's
  /// name. Fast when indices do not decrease (streamed records: an earlier index reads the file
  /// from the start again).
  const std::string& name(int64_t index);
  /// The bases sample `index` covers: an interval source knows; a record or a simulated
  /// sequence is named by itself, its window centred in it.
  const data::Interval& window(int64_t index);

 private:
  void move_to(int64_t index);

  const DataSplit& split_;
  const data::StreamedRecordSource* records_;  // null unless the split streams records
  std::unique_ptr<data::FastaRecordReader> reader_;
  data::FastaRecord record_;
  int64_t index_ = -1;  // the sample name_ and window_ describe
  int64_t read_ = -1;   // streamed: the index of record_
  std::string name_;
  data::Interval window_;
};

}  // namespace strand::app
