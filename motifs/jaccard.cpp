// Continuous Jaccard at the best alignment.
#include "motifs/jaccard.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace strand::motifs {
namespace {

// numpy's l1 of modisco: values / sum |values| (unchanged when all are 0).
void l1_into(const float* values, int64_t length, float* out, int64_t channel_offset) {
  double total = 0;
  for (int64_t i = 0; i < length * 4; ++i) total += std::abs(values[i]);
  const float scale = total == 0 ? 1.0f : static_cast<float>(1.0 / total);
  for (int64_t p = 0; p < length; ++p) {
    for (int64_t c = 0; c < 4; ++c) {
      out[p * kSnippetChannels + channel_offset + c] = values[p * 4 + c] * scale;
    }
  }
}

// One position's 8 channels as a vector (GCC/Clang vector extensions: AVX on x86, NEON pairs on
// Arm), and its bits.
using Lanes = float __attribute__((vector_size(32)));
using LaneBits = int32_t __attribute__((vector_size(32)));

inline Lanes load_lanes(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

constexpr LaneBits kAbsBits = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff,
                               0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};

// One position: adds signed min(|x|, |y|) (negative where x and y differ in sign) to `lo` and
// max(|x|, |y|) to `hi`, channel by channel.
inline void accumulate_position(const float* x, const float* y, Lanes& lo, Lanes& hi) {
  const Lanes xv = load_lanes(x), yv = load_lanes(y);
  const auto xb = reinterpret_cast<const LaneBits&>(xv), yb = reinterpret_cast<const LaneBits&>(yv);
  const LaneBits axb = xb & kAbsBits, ayb = yb & kAbsBits;
  const Lanes ax = reinterpret_cast<const Lanes&>(axb), ay = reinterpret_cast<const Lanes&>(ayb);
  const Lanes m = ax < ay ? ax : ay;
  const LaneBits signed_m = reinterpret_cast<const LaneBits&>(m) | ((xb ^ yb) & ~kAbsBits);
  lo += reinterpret_cast<const Lanes&>(signed_m);
  hi += ax < ay ? ay : ax;
}

// Sum over `positions` of signed min(|x|, |y|) and of max(|x|, |y|), two positions per step on
// two pairs of accumulators held in registers (one pair would chain every add on the last).
inline void accumulate(const float* x, const float* y, int64_t positions, float& min_sum,
                       float& max_sum) {
  static_assert(kSnippetChannels == 8);
  Lanes lo0 = {}, hi0 = {}, lo1 = {}, hi1 = {};
  int64_t p = 0;
  for (; p + 1 < positions; p += 2) {
    accumulate_position(x + p * 8, y + p * 8, lo0, hi0);
    accumulate_position(x + p * 8 + 8, y + p * 8 + 8, lo1, hi1);
  }
  if (p < positions) accumulate_position(x + p * 8, y + p * 8, lo0, hi0);
  const Lanes l = lo0 + lo1, h = hi0 + hi1;
  for (int c = 0; c < 8; ++c) min_sum += l[c], max_sum += h[c];
}

}  // namespace

std::vector<float> seqlet_snippet(const ScoreSet& scores, const Seqlet& seqlet) {
  const int64_t length = seqlet.length();
  std::vector<float> buffer(static_cast<size_t>(length * 4));
  std::vector<float> out(static_cast<size_t>(length * kSnippetChannels));
  read_seqlet(scores, seqlet, Track::kHypothetical, buffer.data());
  l1_into(buffer.data(), length, out.data(), 0);
  read_seqlet(scores, seqlet, Track::kContrib, buffer.data());
  l1_into(buffer.data(), length, out.data(), 4);
  return out;
}

std::vector<float> snippet_of(const std::vector<double>& hypothetical,
                              const std::vector<double>& contrib) {
  const auto length = static_cast<int64_t>(hypothetical.size() / 4);
  std::vector<float> h(hypothetical.begin(), hypothetical.end());
  std::vector<float> c(contrib.begin(), contrib.end());
  std::vector<float> out(static_cast<size_t>(length * kSnippetChannels));
  l1_into(h.data(), length, out.data(), 0);
  l1_into(c.data(), length, out.data(), 4);
  return out;
}

std::vector<float> reverse_snippet(const std::vector<float>& snippet) {
  const auto length = static_cast<int64_t>(snippet.size()) / kSnippetChannels;
  std::vector<float> out(snippet.size());
  for (int64_t p = 0; p < length; ++p) {
    for (int64_t block = 0; block < 2; ++block) {
      for (int64_t c = 0; c < 4; ++c) {
        out[p * kSnippetChannels + block * 4 + c] =
            snippet[(length - 1 - p) * kSnippetChannels + block * 4 + (3 - c)];
      }
    }
  }
  return out;
}

int64_t overlap_pad(int64_t length, double min_overlap, bool round_up) {
  const double pad = static_cast<double>(length) * (1.0 - min_overlap);
  return round_up ? static_cast<int64_t>(std::ceil(pad)) : static_cast<int64_t>(pad);
}

Alignment best_jaccard(const float* x, int64_t x_length, const float* y, int64_t y_length,
                       int64_t pad) {
  constexpr int64_t C = kSnippetChannels;
  // |x| summed over x's positions, to count the positions that fall on y's padding.
  thread_local std::vector<float> prefix;
  prefix.assign(static_cast<size_t>(x_length + 1), 0.0f);
  for (int64_t p = 0; p < x_length; ++p) {
    float s = 0;
    for (int64_t c = 0; c < C; ++c) s += std::abs(x[p * C + c]);
    prefix[p + 1] = prefix[p] + s;
  }
  Alignment best{-2.0f, 0};
  for (int64_t offset = -pad; offset <= y_length - x_length + pad; ++offset) {
    // x position p lies on y position offset + p.
    const int64_t first = std::max<int64_t>(0, -offset);
    const int64_t last = std::min(x_length, y_length - offset);
    float min_sum = 0, max_sum = 0;
    if (last > first) {
      accumulate(x + first * C, y + (offset + first) * C, last - first, min_sum, max_sum);
    }
    max_sum += prefix[first] + (prefix[x_length] - prefix[std::max(last, first)]);
    const float score = max_sum > 0 ? min_sum / max_sum : 0.0f;
    if (score > best.score) best = {score, offset};
  }
  return best;
}

float flat_jaccard(const float* x, const float* y, int64_t size) {
  float min_sum = 0, max_sum = 0;
  accumulate(x, y, size / kSnippetChannels, min_sum, max_sum);
  return max_sum > 0 ? min_sum / max_sum : 0.0f;
}

}  // namespace strand::motifs
