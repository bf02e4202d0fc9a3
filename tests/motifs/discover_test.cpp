// Motif discovery end to end on the planted fixture (tests/fixtures/motifs/: 64 sequences of
// 140 bases, each with TGATAAGG and CACGTGAC, either strand).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "motifs/discover.h"
#include "motifs/hits.h"
#include "motifs/motif_similarity.h"
#include "motifs/report_html.h"
#include "motifs/results_files.h"
#include "motifs/score_set.h"
#include "support/test_paths.h"

using namespace strand;
using namespace strand::motifs;

namespace {

std::vector<double> one_hot_columns(const std::string& motif) {
  std::vector<double> out;
  for (char base : motif) {
    for (char letter : std::string("ACGT")) out.push_back(base == letter ? 1.0 : 0.0);
  }
  return out;
}

ScoreSet planted() {
  const auto dir = test::source_dir() / "tests" / "fixtures" / "motifs";
  return read_score_set(dir / "planted_scores.npz", dir / "planted_scores_onehot.npz");
}

// The best column Pearson of any positive pattern's trimmed PPM with `motif`.
double best_match(const Discovery& d, const std::string& motif) {
  double best = -1;
  for (const Pattern& p : d.positive.patterns) {
    const std::vector<double> ppm = p.mean(Track::kOneHot);
    const auto [first, last] = trimmed_span(p.mean(Track::kContrib));
    const std::vector<double> trimmed(ppm.begin() + first * 4, ppm.begin() + last * 4);
    best = std::max(best, best_column_pearson(trimmed, one_hot_columns(motif)).mean_pearson);
  }
  return best;
}

}  // namespace

TEST_CASE("motifs: discovery recovers both planted motifs and writes its files") {
  const ScoreSet scores = planted();
  REQUIRE(scores.sequences == 64);
  REQUIRE(scores.length == 140);
  DiscoverOptions options;
  options.leiden_runs = 5;
  options.threads = 2;
  const Discovery d = discover(scores, options);
  CHECK(d.calls.positive.size() >= 100);
  REQUIRE(d.positive.patterns.size() >= 2);
  CHECK(best_match(d, "TGATAAGG") >= 0.8);
  CHECK(best_match(d, "CACGTGAC") >= 0.8);
  // Each pattern's subpatterns hold its seqlets, each once.
  REQUIRE(d.positive.subpatterns.size() == d.positive.patterns.size());
  for (size_t k = 0; k < d.positive.patterns.size(); ++k) {
    size_t total = 0;
    for (const Pattern& sub : d.positive.subpatterns[k]) total += sub.seqlets().size();
    CHECK(total == d.positive.patterns[k].seqlets().size());
  }
  // Largest first; every seqlet spans its pattern.
  for (size_t k = 1; k < d.positive.patterns.size(); ++k) {
    CHECK(d.positive.patterns[k - 1].seqlets().size() >= d.positive.patterns[k].seqlets().size());
  }
  test::TempDir dir;
  const auto paths = write_results(dir.path() / "out", d, scores, scores.length);
  for (const auto& path : paths) CHECK(std::filesystem::file_size(path) > 0);
  std::ifstream meme(dir.path() / "out" / "motifs.meme");
  std::stringstream text;
  text << meme.rdbuf();
  CHECK(text.str().find("MOTIF pos_pattern_0\n") != std::string::npos);
  CHECK(text.str().find("MOTIF pos_pattern_1\n") != std::string::npos);

  // The report names a planted motif among its matches and draws the logos.
  const std::vector<Motif> db = {{"GATA_planted", one_hot_columns("TGATAAGG")},
                                 {"EBOX_planted", one_hot_columns("CACGTGAC")},
                                 {"POLYA", one_hot_columns("AAAAAAAA")}};
  const std::string html = report_html(d, db, "planted");
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("GATA_planted</b>") != std::string::npos);

  // Hits of the two patterns in the same scores: about one per planted motif (128), each
  // pattern about half of them.
  const std::vector<KnownPattern> patterns = read_patterns(dir.path() / "out");
  REQUIRE(patterns.size() == d.positive.patterns.size());
  SeqletOptions seqlet_options;
  seqlet_options.threads = 2;
  const std::vector<Hit> hits = find_hits(scores, patterns, seqlet_options, 0.3);
  CHECK(hits.size() >= 110);
  CHECK(hits.size() <= 130);
  int64_t first = 0;
  for (const Hit& h : hits) first += h.pattern == 0;
  CHECK(first >= 50);
  CHECK(static_cast<int64_t>(hits.size()) - first >= 50);
}
