// Scores and p-values: the Jensen-Shannon distance equals scipy's on fixture logits, log2 fold
// changes of counts and log counts, and chrombpnet's empirical p-values.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "data/text_fields.h"
#include "variants/variant_scores.h"
#include "variants_test_support.h"

namespace strand::variants {
namespace {

std::vector<float> floats(std::string_view text) {
  std::vector<float> values;
  std::stringstream in{std::string(text)};
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(std::stof(item));
  return values;
}

TEST_CASE("variant scores: the Jensen-Shannon distance equals scipy's (base 2, of softmaxes)") {
  data::LineReader in(strand::testing::source_dir() + "/tests/variants/fixtures/jsd_cases.tsv");
  std::string line;
  int cases = 0;
  while (in.next(line)) {
    if (line.starts_with('#')) continue;
    const std::vector<std::string_view> f = data::split_tabs(line);
    REQUIRE(f.size() == 3);
    const std::vector<float> alt = floats(f[0]), ref = floats(f[1]);
    REQUIRE(alt.size() == ref.size());
    const double expected = std::stod(std::string(f[2]));
    CAPTURE(alt.size());
    CHECK(jensen_shannon_distance(alt.data(), ref.data(), static_cast<int64_t>(alt.size())) ==
          doctest::Approx(expected).epsilon(1e-9));
    ++cases;
  }
  CHECK(cases == 5);
  // Disjoint distributions are 1 apart; logits of +-100 make them so.
  const std::vector<float> a = {100.0f, -100.0f}, b = {-100.0f, 100.0f};
  CHECK(jensen_shannon_distance(a.data(), b.data(), 2) == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("variant scores: log2 fold change of log counts and of counts") {
  CHECK(log2_fold_change(OutputKind::kLogCounts, std::log(4.0), std::log(16.0)) ==
        doctest::Approx(2.0));
  CHECK(log2_fold_change(OutputKind::kCounts, 8.0, 2.0) == doctest::Approx(-2.0));
  CHECK(score_names(OutputKind::kValue) == std::vector<std::string>{"ref", "alt", "diff"});
  CHECK(score_names(OutputKind::kLogCounts).back() == "log2fc");
  CHECK(score_names(OutputKind::kProfile) == std::vector<std::string>{"jsd"});
  CHECK(score_tail("diff") == Tail::kBoth);
  CHECK(score_tail("jsd") == Tail::kRight);
  CHECK(score_tail("ref") == Tail::kNone);
}

TEST_CASE("variant scores: empirical p-values count the null's tail as chrombpnet's get_pvals") {
  const std::vector<float> null = {-3, -2, -1, 0, 1, 2, 3, 4, 5};  // sorted, n = 9
  // Right tail: (#{null >= x} + 1) / 10.
  CHECK(empirical_p_value(null, 4.5, Tail::kRight) == doctest::Approx(0.2));
  CHECK(empirical_p_value(null, 4.0, Tail::kRight) == doctest::Approx(0.3));
  CHECK(empirical_p_value(null, 9.0, Tail::kRight) == doctest::Approx(0.1));
  CHECK(empirical_p_value(null, -9.0, Tail::kRight) == doctest::Approx(1.0));
  // Both: twice the smaller of the right tail and (#{null <= x} + 1) / 10, at most 1.
  CHECK(empirical_p_value(null, -2.5, Tail::kBoth) == doctest::Approx(0.4));
  CHECK(empirical_p_value(null, 9.0, Tail::kBoth) == doctest::Approx(0.2));
  CHECK(empirical_p_value(null, 1.0, Tail::kBoth) == doctest::Approx(1.0));
  CHECK(std::isnan(empirical_p_value({}, 1.0, Tail::kBoth)));
  CHECK(std::isnan(empirical_p_value(null, 1.0, Tail::kNone)));
}

}  // namespace
}  // namespace strand::variants
