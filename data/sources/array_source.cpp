// ArraySource: windows cut from in-memory code arrays.
#include "data/sources/array_source.h"

#include <algorithm>

#include "data/data_error.h"
#include "data/window.h"
#include "fmt/format.h"

namespace strand::data {

ArraySource::ArraySource(std::vector<uint8_t> codes, int64_t stored_length,
                         std::vector<float> labels, int64_t num_targets,
                         std::vector<uint8_t> label_mask, int64_t window)
    : codes_(std::move(codes)),
      labels_(std::move(labels)),
      label_mask_(std::move(label_mask)),
      stored_length_(stored_length),
      num_targets_(num_targets),
      window_(window == 0 ? stored_length : window) {
  if (stored_length_ <= 0 || codes_.size() % static_cast<size_t>(stored_length_) != 0) {
    throw DataError(fmt::format("ArraySource: {} codes is not a multiple of the length {}",
                                codes_.size(), stored_length_));
  }
  size_ = static_cast<int64_t>(codes_.size()) / stored_length_;
  if (num_targets_ < 0 || labels_.size() != static_cast<size_t>(size_ * num_targets_)) {
    throw DataError(fmt::format("ArraySource: expected {} x {} labels, got {}", size_, num_targets_,
                                labels_.size()));
  }
  if (!label_mask_.empty() && label_mask_.size() != labels_.size()) {
    throw DataError(fmt::format("ArraySource: label mask has {} entries, labels have {}",
                                label_mask_.size(), labels_.size()));
  }
  if (window_ <= 0 || window_ > stored_length_) {
    throw DataError(fmt::format("ArraySource: window {} must be in 1..{} (stored length)", window_,
                                stored_length_));
  }
  const auto bad = std::find_if(codes_.begin(), codes_.end(), [](uint8_t c) { return c > kCodeN; });
  if (bad != codes_.end()) {
    throw DataError(fmt::format("ArraySource: code {} at position {} is not in 0..4", *bad,
                                bad - codes_.begin()));
  }
}

void ArraySource::fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
                        int /*worker*/) const {
  const uint8_t* row = codes_.data() + index * stored_length_;
  const int64_t start = window_start(stored_length_ / 2, window_, shift, stored_length_);
  copy_window(row, stored_length_, start, window_, codes);
  if (lower_mask != nullptr) std::fill_n(lower_mask, window_, uint8_t{0});
}

void ArraySource::labels(int64_t index, float* out, uint8_t* mask) const {
  const auto t = static_cast<size_t>(num_targets_);
  const auto offset = static_cast<size_t>(index) * t;
  std::copy_n(labels_.begin() + static_cast<std::ptrdiff_t>(offset), t, out);
  if (label_mask_.empty()) {
    std::fill_n(mask, t, uint8_t{1});
  } else {
    std::copy_n(label_mask_.begin() + static_cast<std::ptrdiff_t>(offset), t, mask);
  }
}

}  // namespace strand::data
