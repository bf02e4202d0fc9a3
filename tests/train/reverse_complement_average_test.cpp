// The one reverse-complement averaging rule of predict, variants and the Python package (issue
// 38: variants averaged a per-strand counts output's plus with plus): which tracks pair, and the
// average with a profile's positions reversed.
#include <doctest/doctest.h>

#include <vector>

#include "core/error.h"
#include "train/reverse_complement_average.h"

namespace strand::train {
namespace {

std::vector<data::TrackGroup> groups(const std::vector<std::vector<std::string>>& files) {
  std::vector<data::TrackGroup> out;
  for (const auto& list : files) out.push_back({list, ""});
  return out;
}

TEST_CASE("reverse-complement pairing: stranded pairs swap in per-track outputs only") {
  const auto tracks = groups({{"a.plus.bw", "a.minus.bw"}, {"b.bw"}, {"c+.bw", "c-.bw"}});
  const std::vector<int64_t> swapped = {1, 0, 2, 4, 3};
  CHECK(reverse_complement_tracks(Target::kLogCounts, 5, tracks, "counts") == swapped);
  CHECK(reverse_complement_tracks(Target::kProfile, 5, tracks, "profile") == swapped);
  // Labels (whatever their columns) and the total over tracks pair with themselves.
  CHECK(reverse_complement_tracks(Target::kLabels, 3, tracks, "output") ==
        std::vector<int64_t>{0, 1, 2});
  CHECK(reverse_complement_tracks(Target::kLogTotalCounts, 1, {}, "total") ==
        std::vector<int64_t>{0});
  CHECK_THROWS_WITH_AS(
      reverse_complement_tracks(Target::kLogCounts, 2, {}, "counts"),
      doctest::Contains("output 'counts' gives 2 values per profile track (target log_counts), "
                        "but the run's data.profile_bigwigs name 0 tracks"),
      Error);
}

TEST_CASE("reverse-complement average: paired tracks, positions reversed") {
  // (rows 2, tracks 2, positions 3)
  std::vector<float> forward = {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60};
  const std::vector<float> reverse = {100, 200, 300, 400, 500, 600, 7, 8, 9, 1, 2, 3};
  const std::vector<int64_t> swap = {1, 0};
  average_with_reverse_complement(forward.data(), reverse.data(), 2, 2, 3, swap);
  // Row 0, track 0 with the reverse's track 1 reversed (600, 500, 400).
  CHECK(forward == std::vector<float>{300.5F, 251, 201.5F, 152, 102.5F, 53, 6.5F, 11, 15.5F, 24.5F,
                                      29, 33.5F});
  // One value per track (positions 1), identity pairing.
  std::vector<float> values = {1, 3};
  const std::vector<float> other = {3, 5};
  average_with_reverse_complement(values.data(), other.data(), 1, 2, 1, {});
  CHECK(values == std::vector<float>{2, 4});
  CHECK_THROWS_AS(average_with_reverse_complement(values.data(), other.data(), 1, 2, 1,
                                                  std::vector<int64_t>{0}),
                  Error);
}

}  // namespace
}  // namespace strand::train
