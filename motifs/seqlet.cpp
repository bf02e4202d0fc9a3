// Reading seqlets out of a score set, strand-aware.
#include "motifs/seqlet.h"

namespace strand::motifs {

void read_seqlet(const ScoreSet& scores, const Seqlet& seqlet, Track track, float* out) {
  const std::vector<float>& source = track == Track::kOneHot    ? scores.one_hot
                                     : track == Track::kContrib ? scores.contrib
                                                                : scores.hypothetical;
  const int64_t length = seqlet.length();
  const float* base = source.data() + scores.at(seqlet.example, seqlet.start);
  if (!seqlet.revcomp) {
    for (int64_t i = 0; i < length * 4; ++i) out[i] = base[i];
    return;
  }
  for (int64_t p = 0; p < length; ++p) {
    for (int64_t c = 0; c < 4; ++c) out[p * 4 + c] = base[(length - 1 - p) * 4 + (3 - c)];
  }
}

Seqlet flipped(const Seqlet& seqlet) {
  Seqlet out = seqlet;
  out.revcomp = !seqlet.revcomp;
  return out;
}

Seqlet expanded(const Seqlet& seqlet, int64_t left, int64_t right) {
  Seqlet out = seqlet;
  if (!seqlet.revcomp) {
    out.start -= left;
    out.end += right;
  } else {
    out.start -= right;
    out.end += left;
  }
  return out;
}

bool inside(const Seqlet& seqlet, int64_t length) {
  return seqlet.start >= 0 && seqlet.end <= length && seqlet.start < seqlet.end;
}

}  // namespace strand::motifs
