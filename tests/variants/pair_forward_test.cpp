// PairForward's windowed path (explain/windowed_forward.h) on graphs: a BPNet's profile logits
// and counts for the alt windows of SNVs, MNVs and indels, at the centre, equal full passes,
// with and without reverse-complement averaging; Sequentials stay off it.
#include <doctest/doctest.h>

#include "explain/explain_models.h"
#include "variants/pair_forward.h"
#include "variants_test_support.h"

namespace strand::variants {
namespace {

double max_abs(const Tensor& t) {
  double largest = 0.0;
  for (const float v : t.contiguous().to_vector<float>()) {
    largest = std::max(largest, std::abs(static_cast<double>(v)));
  }
  return largest;
}

TEST_CASE("pair forward: a BPNet graph's alt windows equal full passes, profile and counts") {
  const int64_t length = 2114;
  const app::DataDimensions dimensions{
      .length = length, .tasks = 1, .profile_tracks = 2, .profile_length = 1000};
  auto model = strand::testing::preset_model("bpnet", dimensions, 31, 0.2);
  model->eval();
  std::string why;
  const auto plan = explain::WindowedForward::make(*model, length, {0, 1}, &why);
  REQUIRE_MESSAGE(plan != nullptr, why);
  REQUIRE((int64_t{64} << 20) / plan->reference_bytes_per_row() < 16);
  // Sixteen ref windows: more than one group of references (about 64 MiB of a BPNet's
  // activations), and every kind of allele.
  std::vector<std::pair<std::string, std::string>> alleles = {
      {"A", "G"}, {"C", "T"}, {"AC", "GT"}, {"G", "GTTACA"}, {"GATTACA", "G"}, {"A", "A"}};
  for (const char* snv : {"AC", "CG", "GT", "TA", "AT", "CA", "GC", "TG", "AG", "CT"}) {
    alleles.push_back({std::string(1, snv[0]), std::string(1, snv[1])});
  }
  const testing::WindowPairs pairs = testing::pairs_for(length, alleles, 17);
  // Profile logits (the strands' tracks swap under reverse complement), then counts.
  const std::vector<PairOutput> outputs = {{0, true, {1, 0}}, {1, false, {}}};
  for (const bool rc : {false, true}) {
    CAPTURE(rc);
    PairForward full(*model, outputs, 0, rc, length, false);
    PairForward windowed(*model, outputs, 0, rc, length, true);
    CHECK_FALSE(full.incremental());
    REQUIRE(windowed.incremental());
    const PairPredictions expected = full.run(pairs.ref, pairs.alt, pairs.changed);
    const PairPredictions got = windowed.run(pairs.ref, pairs.alt, pairs.changed);
    for (size_t k = 0; k < outputs.size(); ++k) {
      // Relative to the output's scale: the layers run one by one here and fused in the graph.
      const double scale = std::max(1.0, max_abs(expected.ref[k]));
      CAPTURE(k);
      CAPTURE(scale);
      CHECK(strand::testing::max_abs_difference(got.ref[k], expected.ref[k]) < 1e-5 * scale);
      CHECK(strand::testing::max_abs_difference(got.alt[k], expected.alt[k]) < 1e-5 * scale);
      // The alleles change the predictions (else the comparison proves nothing).
      CHECK(strand::testing::max_abs_difference(expected.alt[k], expected.ref[k]) > 1e-4);
    }
  }
}

TEST_CASE("pair forward: a Sequential IncrementalForward declines runs whole") {
  auto reference = testing::reference_experiment_model();
  PairForward forward(*reference, {{0, false, {}}}, 0, false, 100, true);
  CHECK_FALSE(forward.incremental());  // the fused convolution is cheaper whole
}

}  // namespace
}  // namespace strand::variants
