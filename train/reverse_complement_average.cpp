// The reverse-complement pairing of an output's tracks, and the average (see the header).
#include "train/reverse_complement_average.h"

#include <fmt/format.h>

#include "core/error.h"

namespace strand::train {

std::vector<int64_t> reverse_complement_tracks(Target target, int64_t tracks,
                                               const std::vector<data::TrackGroup>& profile_groups,
                                               const std::string& output) {
  if (target == Target::kProfile || target == Target::kLogCounts) {
    std::vector<int64_t> map = data::reverse_track_map(profile_groups);
    if (static_cast<int64_t>(map.size()) != tracks) {
      throw Error(fmt::format(
          "output '{}' gives {} values per profile track (target {}), but the run's "
          "data.profile_bigwigs name {} tracks: which strands to swap under reverse complement "
          "is unknown",
          output, tracks, target_name(target), map.size()));
    }
    return map;
  }
  std::vector<int64_t> identity(static_cast<size_t>(tracks));
  for (int64_t t = 0; t < tracks; ++t) identity[static_cast<size_t>(t)] = t;
  return identity;
}

void average_with_reverse_complement(float* forward, const float* reverse, int64_t rows,
                                     int64_t tracks, int64_t positions,
                                     std::span<const int64_t> reverse_tracks) {
  STRAND_CHECK(reverse_tracks.empty() || static_cast<int64_t>(reverse_tracks.size()) == tracks,
               "reverse-complement average: {} track pairings for {} tracks", reverse_tracks.size(),
               tracks);
  for (int64_t b = 0; b < rows; ++b) {
    for (int64_t t = 0; t < tracks; ++t) {
      const int64_t paired = reverse_tracks.empty() ? t : reverse_tracks[static_cast<size_t>(t)];
      STRAND_CHECK(paired >= 0 && paired < tracks,
                   "reverse-complement average: track {} pairs with {}, outside [0, {})", t, paired,
                   tracks);
      float* row = forward + (b * tracks + t) * positions;
      const float* other = reverse + (b * tracks + paired) * positions;
      for (int64_t j = 0; j < positions; ++j) {
        row[j] = 0.5F * (row[j] + other[positions - 1 - j]);
      }
    }
  }
}

}  // namespace strand::train
