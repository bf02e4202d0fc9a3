// SampleWindows (app/sample_windows.h).
#include "app/sample_windows.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/config_error.h"
#include "data/sources/interval_source.h"
#include "data/window.h"

namespace strand::app {

SampleWindows::SampleWindows(const DataSplit& split)
    : split_(split),
      records_(dynamic_cast<const data::StreamedRecordSource*>(split.source.get())) {}

const std::string& SampleWindows::name(int64_t index) {
  move_to(index);
  return name_;
}

const data::Interval& SampleWindows::window(int64_t index) {
  move_to(index);
  return window_;
}

void SampleWindows::move_to(int64_t index) {
  if (index == index_) return;
  if (index < 0 || index >= split_.source->size()) {
    throw Error(fmt::format("{}: sample {} of {}", split_.name, index, split_.source->size()));
  }
  if (records_ != nullptr) {
    if (reader_ == nullptr || index < read_) {
      reader_ = std::make_unique<data::FastaRecordReader>(records_->path(), false);
      read_ = -1;
    }
    for (; read_ < index; ++read_) {
      if (!reader_->next(record_)) {
        throw Error(fmt::format("{}: the FASTA changed while it was read (record {} is missing)",
                                records_->path(), read_ + 2));
      }
    }
    name_ = record_.name;
    window_ = records_->window(record_);
  } else if (const auto* source = dynamic_cast<const data::IntervalSource*>(split_.source.get())) {
    name_ = split_.sample_names[static_cast<size_t>(index)];
    window_ = source->window(index);
  } else {
    // A simulated sequence: named by itself, its window centred in it.
    name_ = split_.sample_names[static_cast<size_t>(index)];
    const int64_t length = split_.source->length();
    const int64_t raw = split_.raw_lengths[static_cast<size_t>(index)];
    window_ = data::Interval{};
    window_.contig = name_;
    window_.start = data::window_start(raw / 2, length, 0, raw);
    window_.end = std::min(window_.start + length, raw);
  }
  index_ = index;
}

}  // namespace strand::app
