// IntervalSource: windows around labelled intervals of an indexed FASTA, held in memory as
// codes or streamed from the file per sample.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"
#include "data/signals/interval_signals.h"
#include "data/sources/sequence_source.h"

namespace strand::data {

/// Settings of an IntervalSource.
struct IntervalSourceOptions {
  int64_t window = 1000;    ///< L: bases per sample, centred on the interval
  int64_t jitter = 0;       ///< J, the largest |shift| fetch() will be asked for
  bool use_summit = true;   ///< centre on the narrowPeak summit when present
  bool streaming = false;   ///< fetch from the file per sample instead of holding codes
  bool lower_mask = false;  ///< keep soft-mask information for fetch(lower_mask)
  BadIntervalPolicy policy = BadIntervalPolicy::kError;  ///< intervals invalid for the FASTA
  LabelOptions labels;  ///< as read; require_valid also holds after invalid intervals are dropped
  /// bigWig tracks: profile targets, control inputs, and count labels replacing the file's
  /// (targets kCounts; the intervals must then be read without labels, labelled false).
  SignalOptions signals;
};

/// Samples are intervals; sample i is the L-base window centred on interval i (or its summit),
/// moved by the jitter shift and kept inside the contig (a contig shorter than L is padded
/// with N). In-memory mode stores each window plus J bases of flank per side as codes (about
/// N * (L + 2J) bytes); streaming mode keeps only the intervals and opens one FastaReader per
/// worker, so memory does not grow with the sequence held.
class IntervalSource : public SequenceSource {
 public:
  /// Validates the intervals against the FASTA (policy from options) and, in memory mode,
  /// loads the windows.
  IntervalSource(FastaReader reader, IntervalSet intervals, const IntervalSourceOptions& options);

  int64_t size() const override { return static_cast<int64_t>(samples_.size()); }
  int64_t length() const override { return options_.window; }
  int64_t num_targets() const override;
  void prepare_workers(int n) override;
  void fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
             int worker) const override;
  void labels(int64_t index, float* out, uint8_t* mask) const override;
  bool has_lower_mask() const override { return options_.lower_mask || options_.streaming; }
  /// The file's task names, or the count bigWigs' names when the labels are their sums.
  std::vector<std::string> task_names() const override;

  /// The bases sample `index` covers without a shift: contig, start and end of its window,
  /// the end cut at the contig's end (fetch() pads the rest with N); line as in the file.
  Interval window(int64_t index) const;
  int64_t profile_tracks() const override;
  int64_t profile_length() const override;
  int64_t control_tracks() const override;
  void signals(int64_t index, int64_t shift, float* profile, float* control,
               int worker) const override;
  std::vector<int64_t> reverse_profile_tracks() const override;
  std::vector<int64_t> reverse_control_tracks() const override;
  void labels_at(int64_t index, int64_t shift, float* out, uint8_t* mask,
                 int worker) const override;

  /// The bigWig tracks of the samples, or null when options.signals asks for none.
  const IntervalSignals* signal_tracks() const { return signals_.get(); }

  /// The intervals after validation (one per sample).
  const IntervalSet& intervals() const { return intervals_; }
  /// The settings it was built with.
  const IntervalSourceOptions& options() const { return options_; }
  /// Counts from reading and validating the intervals.
  const IntervalStats& stats() const { return intervals_.stats; }
  /// Bytes of sequence held in memory (0 in streaming mode).
  size_t resident_bytes() const { return pool_.size(); }

 private:
  struct Sample {
    int contig = 0;
    int64_t centre = 0;
    int64_t contig_length = 0;
    int64_t slice_start = 0;   // in-memory: genomic start of the stored slice
    int64_t slice_length = 0;  // in-memory: bases stored
    size_t offset = 0;         // in-memory: position of the slice in pool_
  };

  FastaReader reader_;
  IntervalSet intervals_;
  IntervalSourceOptions options_;
  std::vector<Sample> samples_;
  std::vector<uint8_t> pool_;  // in-memory codes; bit 3 set for lowercase when lower_mask
  std::vector<FastaReader> worker_readers_;
  std::unique_ptr<IntervalSignals> signals_;  // null without tracks
};

}  // namespace strand::data
