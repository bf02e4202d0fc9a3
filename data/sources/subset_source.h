// SubsetSource: some samples of another source, e.g. the validation part of a records set
// split by fractions (data/intervals/splits.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/sources/sequence_source.h"

namespace strand::data {

/// Samples `indices` of an in-memory source, in that order: sample i is the inner source's
/// sample indices[i], with its codes, labels and task names. Several subsets may share one
/// inner source, so the inner source must hold its samples in memory (it gets no
/// prepare_workers() call from here; a streaming IntervalSource would need per-loader file
/// handles: split its IntervalSet with select_intervals() instead).
class SubsetSource : public SequenceSource {
 public:
  /// Throws DataError when an index is outside the inner source.
  SubsetSource(std::shared_ptr<const SequenceSource> inner, std::vector<int64_t> indices);

  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  int64_t length() const override { return inner_->length(); }
  int64_t num_targets() const override { return inner_->num_targets(); }
  void fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
             int worker) const override {
    inner_->fetch(indices_[static_cast<size_t>(index)], shift, codes, lower_mask, worker);
  }
  void labels(int64_t index, float* out, uint8_t* mask) const override {
    inner_->labels(indices_[static_cast<size_t>(index)], out, mask);
  }
  bool has_lower_mask() const override { return inner_->has_lower_mask(); }
  std::vector<std::string> task_names() const override { return inner_->task_names(); }

  /// The source the samples come from.
  const SequenceSource& inner() const { return *inner_; }
  /// (N) the inner index of each sample.
  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  std::shared_ptr<const SequenceSource> inner_;
  std::vector<int64_t> indices_;
};

}  // namespace strand::data
