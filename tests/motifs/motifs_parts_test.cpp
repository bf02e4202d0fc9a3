// The building blocks of motif discovery: thresholds, isotonic fit, AUROC, Jaccard alignment,
// strand handling, column matching, and the score files' checks.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "io/npz.h"
#include "motifs/collapse.h"
#include "motifs/jaccard.h"
#include "motifs/motif_similarity.h"
#include "motifs/null_thresholds.h"
#include "motifs/score_set.h"
#include "motifs/seqlet.h"
#include "support/test_paths.h"

using namespace strand;
using namespace strand::motifs;

TEST_CASE("motifs: percentiles interpolate as numpy's and the isotonic fit pools violators") {
  CHECK(percentile_of_sorted({1, 2, 3, 4}, 50) == doctest::Approx(2.5));
  CHECK(percentile_of_sorted({1, 2, 3, 4}, 100) == doctest::Approx(4));
  // y = 1, 0, 1, 1 at x = 0..3: the first two pool to 0.5.
  const IsotonicFit fit({0, 1, 2, 3}, {1, 0, 1, 1}, {1, 1, 1, 1});
  CHECK(fit(0) == doctest::Approx(0.5));
  CHECK(fit(1) == doctest::Approx(0.5));
  CHECK(fit(1.5) == doctest::Approx(0.75));
  CHECK(fit(10) == doctest::Approx(1.0));  // clipped
}

TEST_CASE("motifs: the isotonic threshold separates real windows from the null") {
  std::vector<double> values, null;
  for (int i = 0; i < 100; ++i) values.push_back(i * 0.1);  // 0 .. 9.9, strongest last
  for (int i = 0; i < 100; ++i) null.push_back(i * 0.05);   // 0 .. 4.95
  const double t = isotonic_threshold(values, null, true, 0.2);
  CHECK(t > 4.0);
  CHECK(t < 6.0);
}

TEST_CASE("motifs: AUROC counts ties as half") {
  CHECK(roc_auc({0, 1}, {2, 3}) == doctest::Approx(1.0));
  CHECK(roc_auc({2, 3}, {0, 1}) == doctest::Approx(0.0));
  CHECK(roc_auc({1}, {1}) == doctest::Approx(0.5));
}

TEST_CASE("motifs: the Jaccard alignment finds a shifted copy and scores itself 1") {
  std::vector<float> y(20 * kSnippetChannels, 0.0f);
  for (int p = 5; p < 12; ++p) y[p * kSnippetChannels + p % 8] = 1.0f + 0.1f * p;
  const Alignment self = best_jaccard(y.data(), 20, y.data(), 20, 6);
  CHECK(self.score == doctest::Approx(1.0));
  CHECK(self.offset == 0);
  // x: y's positions 5..11 as a 7-long snippet; its start lies at y's 5.
  std::vector<float> x(y.begin() + 5 * kSnippetChannels, y.begin() + 12 * kSnippetChannels);
  const Alignment shifted = best_jaccard(x.data(), 7, y.data(), 20, 2);
  CHECK(shifted.offset == 5);
  CHECK(shifted.score == doctest::Approx(1.0));
  CHECK(overlap_pad(41, 0.7, false) == 12);
  CHECK(overlap_pad(41, 0.7, true) == 13);
}

TEST_CASE("motifs: a reverse-complement seqlet reads positions and letters reversed") {
  // One sequence of 3 bases: A C G with hypothetical scores 1..12.
  std::vector<float> hyp(12), onehot(12, 0.0f);
  for (int i = 0; i < 12; ++i) hyp[i] = static_cast<float>(i + 1);
  onehot[0] = onehot[4 + 1] = onehot[8 + 2] = 1.0f;
  const ScoreSet set = make_score_set(1, 3, hyp, onehot);
  float out[8];
  read_seqlet(set, {0, 1, 3, true}, Track::kOneHot, out);
  // Bases C G reverse-complemented: C G -> C G (G's complement C first, then C's G).
  CHECK(out[1] == 1.0f);  // C
  CHECK(out[6] == 1.0f);  // G
  read_seqlet(set, {0, 1, 3, true}, Track::kHypothetical, out);
  CHECK(out[0] == 12.0f);  // last position's T score as A
  CHECK(expanded({0, 5, 10, true}, 2, 1).start == 4);
  CHECK(expanded({0, 5, 10, true}, 2, 1).end == 12);
}

TEST_CASE("motifs: column Pearson finds a motif on the other strand") {
  // GATA as one-hot columns, and its reverse complement TATC.
  const std::vector<double> gata = {0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0};
  const std::vector<double> tatc = {0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0};
  const ColumnMatch match = best_column_pearson(gata, tatc);
  CHECK(match.mean_pearson == doctest::Approx(1.0));
  CHECK(match.revcomp);
}

TEST_CASE("motifs: score files of different shapes are refused naming both") {
  test::TempDir dir;
  const auto write = [&](const std::string& name, int64_t n, int64_t length) {
    io::NpzWriter npz(dir.path() / name);
    npz.begin_array("arr_0", io::NpyType::kFloat32, {n, 4, length});
    npz.append(std::vector<float>(static_cast<size_t>(n * 4 * length), 0.0f));
    npz.commit();
  };
  write("a.npz", 2, 50);
  write("a_onehot.npz", 3, 50);
  CHECK(default_sequences_path(dir.path() / "a.npz") == dir.path() / "a_onehot.npz");
  try {
    (void)read_score_set(dir.path() / "a.npz", dir.path() / "a_onehot.npz");
    FAIL("expected a refusal");
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    CHECK(what.find("a.npz' holds 2 sequences of 50 bases") != std::string::npos);
    CHECK(what.find("a_onehot.npz' holds 3") != std::string::npos);
  }
}
