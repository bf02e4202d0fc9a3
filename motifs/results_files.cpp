// motifs.meme, patterns.npz, seqlets.tsv and the HDF5 results.
#include "motifs/results_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "io/atomic_file.h"
#include "io/npz.h"
#include "motifs/modisco_h5.h"

namespace strand::motifs {

std::vector<NamedPattern> named_patterns(const Discovery& d) {
  std::vector<NamedPattern> out;
  for (size_t k = 0; k < d.positive.patterns.size(); ++k) {
    out.push_back({fmt::format("pos_pattern_{}", k), &d.positive.patterns[k]});
  }
  for (size_t k = 0; k < d.negative.patterns.size(); ++k) {
    out.push_back({fmt::format("neg_pattern_{}", k), &d.negative.patterns[k]});
  }
  return out;
}

std::pair<int64_t, int64_t> trimmed_span(const std::vector<double>& cwm, double fraction) {
  const auto length = static_cast<int64_t>(cwm.size() / 4);
  std::vector<double> score(static_cast<size_t>(length), 0.0);
  for (int64_t p = 0; p < length; ++p) {
    for (int64_t c = 0; c < 4; ++c) score[p] += std::abs(cwm[p * 4 + c]);
  }
  const double peak = length ? *std::max_element(score.begin(), score.end()) : 0.0;
  int64_t first = 0, last = length;
  while (first < length && score[first] < peak * fraction) ++first;
  while (last > first && score[last - 1] < peak * fraction) --last;
  return {first, last};
}

std::string meme_text(const Discovery& d) {
  std::string text = fmt::format(
      "MEME version 4\n\nALPHABET= ACGT\n\nstrands: + -\n\nBackground letter frequencies\n"
      "A {:.4f} C {:.4f} G {:.4f} T {:.4f}\n\n",
      d.background[0], d.background[1], d.background[2], d.background[3]);
  for (const NamedPattern& named : named_patterns(d)) {
    const std::vector<double> ppm = named.pattern->mean(Track::kOneHot);
    const auto [first, last] = trimmed_span(named.pattern->mean(Track::kContrib));
    text += fmt::format("MOTIF {}\nletter-probability matrix: alength= 4 w= {} nsites= {} E= 0\n",
                        named.name, last - first, named.pattern->seqlets().size());
    for (int64_t p = first; p < last; ++p) {
      double total = 0;
      for (int64_t c = 0; c < 4; ++c) total += ppm[p * 4 + c];
      for (int64_t c = 0; c < 4; ++c) {
        text += fmt::format("{}{:.6f}", c ? " " : "", total > 0 ? ppm[p * 4 + c] / total : 0.25);
      }
      text += "\n";
    }
    text += "\n";
  }
  return text;
}

namespace {

void write_patterns_npz(const std::filesystem::path& path, const Discovery& d) {
  io::NpzWriter npz(path);
  const std::pair<const char*, Track> tracks[] = {{"sequence", Track::kOneHot},
                                                  {"contrib", Track::kContrib},
                                                  {"hypothetical", Track::kHypothetical}};
  for (const NamedPattern& named : named_patterns(d)) {
    for (const auto& [suffix, track] : tracks) {
      const std::vector<double> mean = named.pattern->mean(track);
      const std::vector<float> values(mean.begin(), mean.end());
      npz.begin_array(fmt::format("{}_{}", named.name, suffix), io::NpyType::kFloat32,
                      {named.pattern->length(), 4});
      npz.append(values);
    }
  }
  npz.commit();
}

std::string seqlets_tsv(const Discovery& d) {
  std::string text = "pattern\texample\tstart\tend\tstrand\n";
  for (const NamedPattern& named : named_patterns(d)) {
    for (const Seqlet& s : named.pattern->seqlets()) {
      text += fmt::format("{}\t{}\t{}\t{}\t{}\n", named.name, s.example, s.start, s.end,
                          s.revcomp ? '-' : '+');
    }
  }
  return text;
}

}  // namespace

std::vector<std::filesystem::path> write_results(const std::filesystem::path& folder,
                                                 const Discovery& d, const ScoreSet& scores,
                                                 int64_t window) {
  std::filesystem::create_directories(folder);
  const std::vector<std::filesystem::path> paths = {folder / "modisco_results.h5",
                                                    folder / "patterns.npz", folder / "seqlets.tsv",
                                                    folder / "motifs.meme"};
  write_modisco_h5(paths[0], d, scores, window);
  write_patterns_npz(paths[1], d);
  io::write_file_atomically(paths[2], seqlets_tsv(d));
  io::write_file_atomically(paths[3], meme_text(d));
  return paths;
}

}  // namespace strand::motifs
