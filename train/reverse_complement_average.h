// Averaging a model's predictions with its reverse complement's: one rule for `strand predict
// --rc-average`, `strand variants --rc-average` and Model.predict(rc_average=True). A window's
// value of track t pairs with the reverse complement's value of the track t becomes under
// reverse complement: itself for labels and total counts, the other strand of a stranded pair
// ("plus.bw,minus.bw") for outputs with one value or one profile per profile track (targets
// log_counts and profile), as the data loader swaps those tracks when it reverse complements a
// training window. A profile's positions are reversed as well.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "data/signals/signal_tracks.h"
#include "train/objective.h"

namespace strand::train {

/// (tracks) the reverse complement's track that each track of an output trained on `target`
/// pairs with: the identity for labels and log_total_counts; for profile and log_counts, the
/// profile tracks' map (data::reverse_track_map of `profile_groups`, the run's
/// data.profile_bigwigs). Throws Error naming `output` when those groups do not give `tracks`
/// tracks (which strands to swap is then unknown).
std::vector<int64_t> reverse_complement_tracks(Target target, int64_t tracks,
                                               const std::vector<data::TrackGroup>& profile_groups,
                                               const std::string& output);

/// forward := (forward + the reverse complement's values) / 2, in place. forward and reverse:
/// (rows, tracks, positions) float32, row-major (positions 1 for one value per track); track t
/// of a row averages with track reverse_tracks[t] of the same row of `reverse`, its positions
/// reversed. Empty reverse_tracks: each track with itself.
void average_with_reverse_complement(float* forward, const float* reverse, int64_t rows,
                                     int64_t tracks, int64_t positions,
                                     std::span<const int64_t> reverse_tracks);

}  // namespace strand::train
