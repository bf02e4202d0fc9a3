// LoaderConfig: every knob of a genomic data loader in one struct, plus the factory that
// builds the source and loader from it (what `strand train --fasta ... --intervals ...` uses).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/batch.h"
#include "data/data_loader.h"
#include "data/intervals.h"
#include "data/sequence_source.h"

namespace strand::data {

struct LoaderConfig {
  std::string fasta;               ///< reference FASTA, plain or BGZF
  std::string fasta_index;         ///< .fai location if not next to the FASTA (e.g. read-only dir)
  std::string intervals;           ///< BED / narrowPeak / DREAM TSV, or the label TSV for "records"
  std::string format = "bed";      ///< bed, narrowpeak, dream, records
  std::vector<int> label_columns;  ///< 1-based; empty: the format's default
  BadIntervalPolicy bad_intervals = BadIntervalPolicy::kError;
  int64_t window = 1000;   ///< L; for "records" 0 means the common record length
  bool use_summit = true;  ///< narrowPeak: centre on the summit
  int64_t jitter = 0;      ///< J
  double rc_probability = 0.5;
  bool both_strands = false;  ///< evaluation: every sample forward and reverse complemented
  double substitution_rate = 0.0;
  int64_t batch_size = 64;
  bool balanced = false;
  bool shuffle = true;
  uint64_t seed = 0;
  int shard_rank = 0;
  int shard_count = 1;
  bool drop_last = false;
  int prefetch_depth = 2;
  int threads = 1;
  bool streaming = false;
  bool lower_mask = false;

  /// Throws DataError naming the first offending field, its value and what is allowed.
  void validate() const;
};

/// Builds the source described by `config` (after validate()).
std::shared_ptr<SequenceSource> make_source(const LoaderConfig& config);

/// Builds source and loader; the allocator is the batch buffer hook.
std::unique_ptr<DataLoader> make_loader(const LoaderConfig& config, BatchAllocator allocator = {});

}  // namespace strand::data
