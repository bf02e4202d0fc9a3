// ArraySource: an in-memory dataset of (codes, labels), e.g. a simulated dataset.
#pragma once

#include <cstdint>
#include <vector>

#include "data/sources/sequence_source.h"

namespace strand::data {

/// N stored sequences of equal length S (codes, row-major (N, S)) with labels (N, T). Samples
/// are L-base windows centred in each sequence (L <= S; jitter moves them inside it).
class ArraySource : public SequenceSource {
 public:
  /// codes: (N, S) uint8 values 0..4; labels: (N, T); label_mask: (N, T) or empty (all
  /// valid); window: L, 0 means S. Throws DataError on inconsistent sizes or codes > 4.
  ArraySource(std::vector<uint8_t> codes, int64_t stored_length, std::vector<float> labels,
              int64_t num_targets, std::vector<uint8_t> label_mask = {}, int64_t window = 0);

  int64_t size() const override { return size_; }
  int64_t length() const override { return window_; }
  int64_t num_targets() const override { return num_targets_; }
  void fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
             int worker) const override;
  void labels(int64_t index, float* out, uint8_t* mask) const override;

 private:
  std::vector<uint8_t> codes_;
  std::vector<float> labels_;
  std::vector<uint8_t> label_mask_;
  int64_t stored_length_;
  int64_t num_targets_;
  int64_t window_;
  int64_t size_ = 0;
};

}  // namespace strand::data
