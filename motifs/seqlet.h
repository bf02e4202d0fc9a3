// A seqlet: a window of one sequence (TF-MoDISco's unit), on either strand, and the views of the
// score set it selects.
#pragma once

#include <cstdint>
#include <vector>

#include "motifs/score_set.h"

namespace strand::motifs {

/// Bases [start, end) of sequence `example`, read reverse-complemented when `revcomp`.
struct Seqlet {
  int64_t example = 0;
  int64_t start = 0;
  int64_t end = 0;
  bool revcomp = false;

  [[nodiscard]] int64_t length() const { return end - start; }
  friend bool operator==(const Seqlet&, const Seqlet&) = default;
};

/// Which track of a ScoreSet to read.
enum class Track { kOneHot, kContrib, kHypothetical };

/// The (length, 4) values of `track` under `seqlet`, in its own orientation (a reverse-complement
/// seqlet reads positions and letters reversed). `out` must hold length * 4 floats.
void read_seqlet(const ScoreSet& scores, const Seqlet& seqlet, Track track, float* out);

/// The seqlet on the other strand of the same bases.
Seqlet flipped(const Seqlet& seqlet);

/// `seqlet` grown by `left` bases before its first position and `right` after its last, in its
/// own orientation (for a reverse-complement seqlet, left is toward higher coordinates).
Seqlet expanded(const Seqlet& seqlet, int64_t left, int64_t right);

/// Whether `seqlet` lies within sequences of `length` bases.
bool inside(const Seqlet& seqlet, int64_t length);

}  // namespace strand::motifs
