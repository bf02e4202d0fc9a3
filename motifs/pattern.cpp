// Patterns: adding seqlets at their best placement, growing, trimming, polishing.
#include "motifs/pattern.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "motifs/jaccard.h"

namespace strand::motifs {
namespace {

constexpr std::array<Track, 3> kTracks = {Track::kOneHot, Track::kContrib, Track::kHypothetical};

// modisco's magnitude(): mean-centred, scaled to unit norm.
std::vector<double> magnitude(std::vector<double> values) {
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double norm = 0;
  for (double& v : values) v -= mean, norm += v * v;
  norm = std::sqrt(norm) + 1e-7;
  for (double& v : values) v /= norm;
  return values;
}

std::vector<double> reversed(const std::vector<double>& values) {
  const size_t length = values.size() / 4;
  std::vector<double> out(values.size());
  for (size_t p = 0; p < length; ++p) {
    for (size_t c = 0; c < 4; ++c) out[p * 4 + c] = values[(length - 1 - p) * 4 + (3 - c)];
  }
  return out;
}

// The best cosine of x (child) against each window of the zero-padded parent y.
Placement best_cosine(const std::vector<double>& x, const std::vector<double>& y, int64_t pad) {
  const auto xl = static_cast<int64_t>(x.size() / 4), yl = static_cast<int64_t>(y.size() / 4);
  double x_norm = 0;
  for (double v : x) x_norm += v * v;
  x_norm = std::sqrt(x_norm);
  Placement best{0, false, -2.0};
  for (int64_t offset = -pad; offset <= yl - xl + pad; ++offset) {
    double dot = 0, y_norm = 0;
    for (int64_t p = std::max<int64_t>(0, -offset); p < std::min(xl, yl - offset); ++p) {
      for (int64_t c = 0; c < 4; ++c) {
        const double yv = y[(offset + p) * 4 + c];
        dot += x[p * 4 + c] * yv;
        y_norm += yv * yv;
      }
    }
    const double denom = x_norm * std::sqrt(y_norm);
    const double score = denom > 0 ? dot / denom : 0.0;
    if (score > best.score) best = {offset, false, score};
  }
  return best;
}

}  // namespace

Pattern::Pattern(const ScoreSet& scores, const std::vector<Seqlet>& seqlets) {
  if (seqlets.empty()) throw std::runtime_error("a pattern needs at least one seqlet");
  length_ = seqlets.front().length();
  for (auto& sum : sums_) sum.assign(static_cast<size_t>(length_ * 4), 0.0);
  for (const Seqlet& seqlet : seqlets) add(scores, seqlet);
}

void Pattern::accumulate(const ScoreSet& scores, const Seqlet& seqlet) {
  std::vector<float> values(static_cast<size_t>(length_ * 4));
  for (size_t t = 0; t < kTracks.size(); ++t) {
    read_seqlet(scores, seqlet, kTracks[t], values.data());
    for (size_t i = 0; i < values.size(); ++i) sums_[t][i] += values[i];
  }
}

void Pattern::add(const ScoreSet& scores, const Seqlet& seqlet) {
  if (seqlet.length() != length_) {
    throw std::runtime_error("a seqlet added to a pattern must span it");
  }
  if (!keys_.insert({seqlet.example, seqlet.start, seqlet.end}).second) return;
  seqlets_.push_back(seqlet);
  accumulate(scores, seqlet);
}

std::vector<double> Pattern::mean(Track track) const {
  const auto t =
      static_cast<size_t>(std::find(kTracks.begin(), kTracks.end(), track) - kTracks.begin());
  std::vector<double> out = sums_[t];
  const double count = seqlets_.empty() ? 1e-7 : static_cast<double>(seqlets_.size());
  for (double& v : out) v /= count;
  return out;
}

std::optional<Pattern> Pattern::expanded(const ScoreSet& scores, int64_t left,
                                         int64_t right) const {
  std::vector<Seqlet> grown;
  for (const Seqlet& seqlet : seqlets_) {
    Seqlet g = motifs::expanded(seqlet, left, right);
    if (inside(g, scores.length)) grown.push_back(g);
  }
  if (grown.empty()) return std::nullopt;
  return Pattern(scores, grown);
}

Pattern Pattern::trimmed(const ScoreSet& scores, int64_t start, int64_t end) const {
  return *expanded(scores, -start, end - length_);  // a trim never leaves the sequence
}

Placement place(const Pattern& parent, const std::vector<double>& child_hypothetical,
                const std::vector<double>& child_contrib, AlignMetric metric, double min_overlap) {
  const auto child_length = static_cast<int64_t>(child_contrib.size() / 4);
  const int64_t pad = overlap_pad(child_length, min_overlap, true);
  if (metric == AlignMetric::kPearson) {
    const std::vector<double> y = magnitude(parent.mean(Track::kContrib));
    const std::vector<double> x = magnitude(child_contrib);
    Placement fwd = best_cosine(x, y, pad);
    Placement rev = best_cosine(magnitude(reversed(child_contrib)), y, pad);
    rev.revcomp = true;
    return rev.score > fwd.score ? rev : fwd;
  }
  const std::vector<float> y =
      snippet_of(parent.mean(Track::kHypothetical), parent.mean(Track::kContrib));
  const std::vector<float> x = snippet_of(child_hypothetical, child_contrib);
  const Alignment fwd = best_jaccard(x.data(), child_length, y.data(), parent.length(), pad);
  const std::vector<float> xr = reverse_snippet(x);
  const Alignment rev = best_jaccard(xr.data(), child_length, y.data(), parent.length(), pad);
  if (rev.score > fwd.score) return {rev.offset, true, rev.score};
  return {fwd.offset, false, fwd.score};
}

Pattern merge_seqlets(const ScoreSet& scores, Pattern parent, const std::vector<Seqlet>& seqlets,
                      AlignMetric metric, double min_overlap) {
  std::vector<float> buffer;
  for (Seqlet seqlet : seqlets) {
    const int64_t length = seqlet.length();
    buffer.resize(static_cast<size_t>(length * 4));
    std::vector<double> hyp(buffer.size()), contrib(buffer.size());
    read_seqlet(scores, seqlet, Track::kHypothetical, buffer.data());
    std::copy(buffer.begin(), buffer.end(), hyp.begin());
    read_seqlet(scores, seqlet, Track::kContrib, buffer.data());
    std::copy(buffer.begin(), buffer.end(), contrib.begin());
    const Placement at = place(parent, hyp, contrib, metric, min_overlap);
    if (at.revcomp) seqlet = flipped(seqlet);
    const Seqlet grown = expanded(seqlet, std::max<int64_t>(at.offset, 0),
                                  std::max<int64_t>(parent.length() - (at.offset + length), 0));
    if (!inside(grown, scores.length)) continue;
    const int64_t parent_left = std::max<int64_t>(0, -at.offset);
    const int64_t parent_right = std::max<int64_t>(0, at.offset + length - parent.length());
    if (parent_left > 0 || parent_right > 0) {
      std::optional<Pattern> bigger = parent.expanded(scores, parent_left, parent_right);
      if (!bigger) continue;
      parent = std::move(*bigger);
    }
    parent.add(scores, grown);
  }
  return parent;
}

std::vector<double> position_information(const std::vector<double>& ppm,
                                         const std::array<double, 4>& background,
                                         double pseudocount) {
  const size_t length = ppm.size() / 4;
  std::vector<double> out(length, 0.0);
  for (size_t p = 0; p < length; ++p) {
    double total = 0;
    for (size_t c = 0; c < 4; ++c) total += ppm[p * 4 + c];
    for (size_t c = 0; c < 4; ++c) {
      const double q = total > 0 ? ppm[p * 4 + c] / total : 0.25;
      out[p] += std::log2((q + pseudocount) / (1 + pseudocount * 4)) * q -
                std::log2(background[c]) * background[c];
    }
  }
  return out;
}

std::optional<Pattern> polish(const ScoreSet& scores, const Pattern& pattern, int64_t flank,
                              int64_t window, const std::array<double, 4>& background) {
  std::optional<Pattern> grown = pattern.expanded(scores, flank, flank);
  if (!grown) return std::nullopt;
  if (grown->length() > window) {
    const std::vector<double> ic = position_information(grown->mean(Track::kOneHot), background);
    double sum = 0, best = -1e300;
    int64_t best_start = 0;
    for (int64_t p = 0; p < static_cast<int64_t>(ic.size()); ++p) {
      sum += ic[p];
      if (p >= window) sum -= ic[p - window];
      if (p >= window - 1 && sum > best) best = sum, best_start = p - window + 1;
    }
    grown = grown->trimmed(scores, best_start, best_start + window);
  }
  return grown->expanded(scores, flank, flank);
}

}  // namespace strand::motifs
