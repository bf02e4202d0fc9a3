// Pattern instances: seqlets labelled by their best-matching pattern.
#include "motifs/hits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "io/npz.h"
#include "motifs/jaccard.h"
#include "motifs/results_files.h"

namespace strand::motifs {
namespace {

std::vector<double> as_doubles(const io::NpyArray& array) {
  std::vector<double> out(array.bytes.size() / sizeof(float));
  for (size_t i = 0; i < out.size(); ++i) {
    float v;
    std::memcpy(&v, array.bytes.data() + i * sizeof(float), sizeof(float));
    out[i] = v;
  }
  return out;
}

// The (width, 4) snippet of the scores' [start, start + width) of one sequence, either strand.
std::vector<float> window_snippet(const ScoreSet& scores, int64_t example, int64_t start,
                                  int64_t width, bool revcomp) {
  return seqlet_snippet(scores, Seqlet{example, start, start + width, revcomp});
}

// The best placement of one pattern in [lo, hi) of a sequence.
Hit best_placement(const ScoreSet& scores, const KnownPattern& p, const std::vector<float>& x,
                   int64_t example, int64_t lo, int64_t hi) {
  Hit best;
  best.similarity = -2;
  for (int64_t start = lo; start + p.width() <= hi; ++start) {
    for (bool rc : {false, true}) {
      // The window read on the pattern's strand: a reverse hit reads the window
      // reverse-complemented against the forward pattern.
      const std::vector<float> y = window_snippet(scores, example, start, p.width(), rc);
      const double s = flat_jaccard(x.data(), y.data(), static_cast<int64_t>(x.size()));
      if (s > best.similarity) best = {example, start, start + p.width(), rc, 0, s, 0};
    }
  }
  return best;
}

}  // namespace

std::vector<KnownPattern> read_patterns(const std::filesystem::path& folder) {
  const std::filesystem::path path = folder / "patterns.npz";
  std::vector<KnownPattern> out;
  const std::vector<io::NpyArray> arrays = io::read_npz(path);
  for (const io::NpyArray& a : arrays) {
    if (!a.name.ends_with("_contrib") || a.descr != "<f4") continue;
    const std::string name = a.name.substr(0, a.name.size() - 8);
    const auto hyp = std::find_if(arrays.begin(), arrays.end(), [&](const io::NpyArray& b) {
      return b.name == name + "_hypothetical";
    });
    if (hyp == arrays.end()) {
      throw std::runtime_error(
          fmt::format("'{}': {} has no {}_hypothetical", path.string(), a.name, name));
    }
    const std::vector<double> contrib = as_doubles(a), hypothetical = as_doubles(*hyp);
    const auto [first, last] = trimmed_span(contrib);
    out.push_back({name,
                   name.starts_with("neg_") ? -1 : 1,
                   {hypothetical.begin() + first * 4, hypothetical.begin() + last * 4},
                   {contrib.begin() + first * 4, contrib.begin() + last * 4}});
  }
  if (out.empty()) {
    throw std::runtime_error(
        fmt::format("'{}': no pattern (expected <name>_contrib arrays, as "
                    "strand motifs writes)",
                    path.string()));
  }
  return out;
}

std::vector<Hit> find_hits(const ScoreSet& scores, const std::vector<KnownPattern>& patterns,
                           const SeqletOptions& options, double min_similarity) {
  const SeqletCalls calls = call_seqlets(scores, options);
  std::vector<std::pair<Seqlet, int>> seqlets;
  for (const Seqlet& s : calls.positive) seqlets.emplace_back(s, 1);
  for (const Seqlet& s : calls.negative) seqlets.emplace_back(s, -1);
  std::vector<std::vector<float>> cores;
  for (const KnownPattern& p : patterns) cores.push_back(snippet_of(p.hypothetical, p.contrib));
  std::vector<Hit> hits(seqlets.size());
#pragma omp parallel for num_threads(options.threads) schedule(dynamic, 16)
  for (size_t i = 0; i < seqlets.size(); ++i) {
    const auto& [s, sign] = seqlets[i];
    hits[i].similarity = -2;
    for (size_t k = 0; k < patterns.size(); ++k) {
      if (patterns[k].sign != sign) continue;
      const int64_t lo = std::max<int64_t>(0, s.start - patterns[k].width());
      const int64_t hi = std::min(scores.length, s.end + patterns[k].width());
      Hit h = best_placement(scores, patterns[k], cores[k], s.example, lo, hi);
      h.pattern = k;
      if (h.similarity > hits[i].similarity) hits[i] = h;
    }
  }
  std::erase_if(hits, [&](const Hit& h) { return h.similarity < min_similarity; });
  for (Hit& h : hits) {
    for (int64_t p = h.start; p < h.end; ++p) {
      for (int64_t c = 0; c < 4; ++c) h.contribution += scores.contrib[scores.at(h.example, p, c)];
    }
  }
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    return a.example != b.example ? a.example < b.example : a.start < b.start;
  });
  return hits;
}

std::string hits_tsv(const std::vector<Hit>& hits, const std::vector<KnownPattern>& patterns) {
  std::string text = "example\tstart\tend\tstrand\tpattern\tsimilarity\tcontribution\n";
  for (const Hit& h : hits) {
    text +=
        fmt::format("{}\t{}\t{}\t{}\t{}\t{:.4f}\t{:.6g}\n", h.example, h.start, h.end,
                    h.revcomp ? '-' : '+', patterns[h.pattern].name, h.similarity, h.contribution);
  }
  return text;
}

}  // namespace strand::motifs
