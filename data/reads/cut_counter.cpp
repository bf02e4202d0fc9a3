// The sliding window of per-base cut counts.
#include "data/reads/cut_counter.h"

#include <fmt/format.h>

#include <algorithm>

#include "data/data_error.h"

namespace strand::data {

CutCounter::CutCounter(const std::vector<Contig>& contigs, CutShift shift, ExcludedRanges excluded,
                       CutChunkSink sink, int64_t chunk)
    : contigs_(contigs),
      // A + cut is start + plus; a - cut is (end - 1) + minus with end - 1 >= start.
      lowest_offset_(std::min(shift.plus, shift.minus)),
      excluded_(std::move(excluded)),
      sink_(std::move(sink)),
      chunk_(std::max<int64_t>(chunk, 1)) {
  excluded_.resize(contigs_.size());
  for (auto& ranges : excluded_) {
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto& range : ranges) {
      if (!merged.empty() && range.first <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, range.second);
      } else {
        merged.push_back(range);
      }
    }
    ranges = std::move(merged);
  }
}

void CutCounter::add(const RecordCuts& record) {
  if (record.contig != contig_) {
    if (contig_ >= 0) flush(origin_ + static_cast<int64_t>(plus_.size()));
    contig_ = record.contig;
    origin_ = 0;
    plus_.clear();
    minus_.clear();
    next_excluded_ = 0;
  }
  // Bases before the lowest cut this record (and so every later one) can make are final.
  const int64_t final_before = record.start + lowest_offset_;
  if (final_before - origin_ >= chunk_) flush(final_before);
  const int64_t length = contigs_[static_cast<size_t>(contig_)].length;
  for (int i = 0; i < record.count; ++i) {
    const Cut& cut = record.cuts[static_cast<size_t>(i)];
    if (cut.position < 0 || cut.position >= length) {
      tally_.outside += record.weight;
      continue;
    }
    if (cut.position < origin_) {
      throw DataError(fmt::format(
          "cut counting: a cut at {}:{} came after that base was written (records out of order)",
          contigs_[static_cast<size_t>(contig_)].name, cut.position));
    }
    const auto at = static_cast<size_t>(cut.position - origin_);
    if (at >= plus_.size()) {
      plus_.resize(at + 1, 0);
      minus_.resize(at + 1, 0);
    }
    (cut.minus ? minus_ : plus_)[at] += record.weight;
  }
}

void CutCounter::finish() {
  if (contig_ >= 0) flush(origin_ + static_cast<int64_t>(plus_.size()));
  contig_ = -1;
}

void CutCounter::drop_excluded(int64_t start, int64_t end) {
  const auto& ranges = excluded_[static_cast<size_t>(contig_)];
  while (next_excluded_ < ranges.size() && ranges[next_excluded_].second <= start) {
    ++next_excluded_;
  }
  for (size_t r = next_excluded_; r < ranges.size() && ranges[r].first < end; ++r) {
    const int64_t lo = std::max(start, ranges[r].first);
    const int64_t hi = std::min(end, ranges[r].second);
    for (int64_t base = lo; base < hi; ++base) {
      const auto at = static_cast<size_t>(base - origin_);
      tally_.blacklisted += plus_[at] + minus_[at];
      plus_[at] = 0;
      minus_[at] = 0;
    }
  }
}

void CutCounter::flush(int64_t upto) {
  const int64_t held = static_cast<int64_t>(plus_.size());
  const int64_t n = std::clamp<int64_t>(upto - origin_, 0, held);
  if (n > 0) {
    drop_excluded(origin_, origin_ + n);
    const auto count = static_cast<size_t>(n);
    for (size_t i = 0; i < count; ++i) tally_.counted += plus_[i] + minus_[i];
    sink_(CutChunk{contig_, origin_, std::span<const uint32_t>(plus_.data(), count),
                   std::span<const uint32_t>(minus_.data(), count)});
    plus_.erase(plus_.begin(), plus_.begin() + n);
    minus_.erase(minus_.begin(), minus_.begin() + n);
  }
  origin_ = std::max(origin_, upto);
}

}  // namespace strand::data
