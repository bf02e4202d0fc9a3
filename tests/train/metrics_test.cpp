// Metrics against scikit-learn fixtures (scripts/make_metric_fixtures.py) and hand cases.
#include "train/metrics.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "support/test_paths.h"

namespace {

using strand::train::MetricAccumulator;

nlohmann::json load_fixtures() {
  const auto path = strand::test::source_dir() / "tests/train/fixtures/metrics.json";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open ", path.string());
  return nlohmann::json::parse(in);
}

// null in the fixture means "undefined", which the C++ API reports as NaN.
void check_value(const nlohmann::json& expected, double actual, const std::string& what) {
  INFO(what);
  if (expected.is_null()) {
    CHECK(std::isnan(actual));
  } else {
    CHECK(std::abs(actual - expected.get<double>()) <= 1e-12);
  }
}

}  // namespace

TEST_CASE("metrics match scikit-learn on every fixture case") {
  const auto fixtures = load_fixtures();
  REQUIRE(fixtures["cases"].size() >= 10);
  for (const auto& c : fixtures["cases"]) {
    const auto scores = c["scores"].get<std::vector<double>>();
    const auto labels = c["labels"].get<std::vector<double>>();
    const std::string name = c["name"];
    check_value(c["accuracy"], strand::train::accuracy(scores, labels), name + " accuracy");
    check_value(c["auroc"], strand::train::auroc(scores, labels), name + " auroc");
    check_value(c["auprc"], strand::train::auprc(scores, labels), name + " auprc");
    const auto all = strand::train::binary_metrics(scores, labels);
    check_value(c["auroc"], all.auroc, name + " binary_metrics.auroc");
    check_value(c["auprc"], all.auprc, name + " binary_metrics.auprc");
    CHECK(all.count == scores.size());
  }
}

TEST_CASE("auROC and auPRC of a small hand-worked example") {
  // Sorted descending: 0.8(+) 0.4(-) 0.35(+) 0.1(-). Pairs won: 3 of 4.
  const std::vector<double> scores{0.1, 0.4, 0.35, 0.8};
  const std::vector<double> labels{0, 0, 1, 1};
  CHECK(strand::train::auroc(scores, labels) == doctest::Approx(0.75));
  // AP = 0.5 * 1 + 0.5 * 2/3.
  CHECK(strand::train::auprc(scores, labels) == doctest::Approx(0.5 + 1.0 / 3.0));
  CHECK(strand::train::accuracy(scores, labels) == doctest::Approx(0.75));
}

TEST_CASE("metrics are invariant to the order of examples") {
  std::vector<double> scores{0.3, 0.3, 0.9, 0.1, 0.3, 0.7, 0.7, 0.2};
  std::vector<double> labels{1, 0, 1, 0, 0, 1, 0, 1};
  const double roc = strand::train::auroc(scores, labels);
  const double prc = strand::train::auprc(scores, labels);
  std::reverse(scores.begin(), scores.end());
  std::reverse(labels.begin(), labels.end());
  CHECK(strand::train::auroc(scores, labels) == roc);
  CHECK(strand::train::auprc(scores, labels) == prc);
}

TEST_CASE("metric inputs are validated") {
  const std::vector<double> scores{0.1, 0.2};
  CHECK_THROWS_AS((void)strand::train::auroc(scores, std::vector<double>{1.0}),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)strand::train::auroc(scores, std::vector<double>{1.0, 0.5}),
                  std::invalid_argument);
  const std::vector<double> bad_scores{0.1, std::numeric_limits<double>::quiet_NaN()};
  CHECK_THROWS_AS((void)strand::train::auprc(bad_scores, std::vector<double>{1.0, 0.0}),
                  std::invalid_argument);
  CHECK(std::isnan(strand::train::accuracy({}, {})));
  CHECK(std::isnan(strand::train::auroc({}, {})));
}

TEST_CASE("accumulator with masks, NaN labels and uneven batches matches scikit-learn") {
  const auto acc_fixture = load_fixtures()["accumulator"];
  const std::size_t tasks = acc_fixture["num_tasks"];
  const auto scores = acc_fixture["scores"].get<std::vector<double>>();
  const auto mask = acc_fixture["mask"].get<std::vector<double>>();
  std::vector<float> scores_f(scores.begin(), scores.end());
  std::vector<float> labels_f;
  std::vector<float> mask_f(mask.begin(), mask.end());
  for (const auto& v : acc_fixture["labels"]) {
    labels_f.push_back(v.is_null() ? std::numeric_limits<float>::quiet_NaN() : v.get<float>());
  }
  const std::size_t rows = scores.size() / tasks;

  MetricAccumulator acc(tasks);
  acc.add(std::vector<float>{0.9f, 0.1f}, std::vector<float>{1.0f, 0.0f});  // discarded by reset
  acc.reset();
  CHECK(acc.count(0) == 0);
  // Uneven batch sizes: 1, 2, 3, ... rows.
  std::size_t row = 0;
  for (std::size_t batch = 1; row < rows; ++batch) {
    const std::size_t n = std::min(batch, rows - row) * tasks;
    const std::size_t off = row * tasks;
    acc.add(std::span<const float>(scores_f).subspan(off, n),
            std::span<const float>(labels_f).subspan(off, n),
            std::span<const float>(mask_f).subspan(off, n));
    row += n / tasks;
  }
  const auto all = acc.compute_all();
  REQUIRE(all.size() == tasks);
  for (std::size_t t = 0; t < tasks; ++t) {
    const auto& e = acc_fixture["expected"][t];
    CHECK(all[t].count == e["count"].get<std::size_t>());
    // Scores went through float; the fixture scores are 2-decimal values whose float rounding
    // preserves their order and ties, so rank metrics are unchanged.
    check_value(e["auroc"], all[t].auroc, "task auroc");
    check_value(e["auprc"], all[t].auprc, "task auprc");
  }
  // Accuracy uses the threshold, where float rounding could matter; check with double input.
  MetricAccumulator acc_d(tasks);
  std::vector<double> labels_d(labels_f.begin(), labels_f.end());
  acc_d.add(std::span<const double>(scores), std::span<const double>(labels_d),
            std::span<const double>(mask));
  for (std::size_t t = 0; t < tasks; ++t) {
    check_value(acc_fixture["expected"][t]["accuracy"], acc_d.compute(t).accuracy, "task accuracy");
  }
}

TEST_CASE("accumulator rejects malformed batches without changing its state") {
  MetricAccumulator acc(2);
  acc.add(std::vector<float>{0.9f, 0.1f}, std::vector<float>{1.0f, 0.0f});
  CHECK_THROWS_AS(acc.add(std::vector<float>{0.9f, 0.1f, 0.3f}, std::vector<float>{1, 0, 1}),
                  std::invalid_argument);
  CHECK_THROWS_AS(acc.add(std::vector<float>{0.9f, 0.1f}, std::vector<float>{1.0f, 2.0f}),
                  std::invalid_argument);
  CHECK_THROWS_AS(acc.add(std::vector<float>{0.9f, 0.1f}, std::vector<float>{1.0f, 0.0f},
                          std::vector<float>{1.0f}),
                  std::invalid_argument);
  CHECK(acc.count(0) == 1);
  CHECK(acc.count(1) == 1);
  CHECK_THROWS_AS((void)acc.count(2), std::out_of_range);
  CHECK_THROWS_AS(MetricAccumulator(0), std::invalid_argument);
}
