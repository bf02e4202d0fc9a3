// PairForward's path through the alternates engine (alternates/alternate_forward.h): on graphs
// (the windowed strategy) a BPNet's profile logits and counts for the alt windows of SNVs, MNVs
// and indels, at the centre, equal full passes, with and without reverse-complement averaging;
// on a Basset-like Sequential (the fused strategy) the same, multi-allelic records sharing one
// ref prediction; a Sequential the engine declines runs whole.
#include <doctest/doctest.h>

#include "alternates/alternates_models.h"
#include "explain/explain_models.h"
#include "train/code_inference.h"
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
  const auto plan = alternates::AlternateForward::make(*model, length, {0, 1},
                                                       alternates::Placement::kShared, &why);
  REQUIRE_MESSAGE(plan != nullptr, why);
  REQUIRE(plan->strategy() == alternates::Strategy::kWindowed);
  REQUIRE(plan->references_per_pass(16, int64_t{64} << 20) < 16);
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

TEST_CASE("pair forward: a Sequential the alternates engine declines runs whole") {
  auto reference = testing::reference_experiment_model();
  PairForward forward(*reference, {{0, false, {}}}, 0, false, 100, true);
  CHECK_FALSE(forward.incremental());  // the fused convolution is cheaper whole
}

double worst(const Tensor& a, const Tensor& b) { return strand::testing::max_abs_difference(a, b); }

TEST_CASE("pair forward: a Sequential's alt windows through the engine equal full passes") {
  const int64_t length = 150;
  auto model = strand::testing::basset_like(length, false);
  const std::vector<std::pair<std::string, std::string>> alleles = {
      {"A", "G"}, {"GATTACA", "G"}, {"C", "T"}, {"T", "TGG"}, {"AC", "GT"}, {"A", "A"}};
  const testing::WindowPairs pairs = testing::pairs_for(length, alleles, 11);
  for (const bool rc : {false, true}) {
    CAPTURE(rc);
    PairForward full(*model, {{0, false, {}}}, 0, rc, length, false);
    PairForward incremental(*model, {{0, false, {}}}, 0, rc, length, true);
    CHECK_FALSE(full.incremental());
    REQUIRE(incremental.incremental());
    const PairPredictions expected = full.run(pairs.ref, pairs.alt, pairs.changed);
    const PairPredictions got = incremental.run(pairs.ref, pairs.alt, pairs.changed);
    CHECK(worst(got.ref[0], expected.ref[0]) < 1e-6);
    CHECK(worst(got.alt[0], expected.alt[0]) < 1e-6);
  }
}

TEST_CASE("pair forward: ALTs sharing a ref window (multi-allelic) get one ref prediction") {
  const int64_t length = 150;
  auto model = strand::testing::basset_like(length, false);
  // Rows 0-2 and 4 share their source, so their ref windows are equal (REF 'A' at the centre).
  const Tensor source = strand::testing::random_codes(2, length + 20, 3);
  const std::vector<std::pair<int, std::pair<std::string, std::string>>> rows = {
      {0, {"A", "C"}}, {0, {"A", "G"}}, {0, {"A", "T"}}, {1, {"A", "G"}}, {0, {"A", "AGG"}}};
  const auto count = static_cast<int64_t>(rows.size());
  Tensor ref = Tensor::empty({count, length}, DType::kUInt8);
  Tensor alt = Tensor::empty({count, length}, DType::kUInt8);
  std::vector<ChangedRange> changed;
  for (int64_t r = 0; r < count; ++r) {
    const auto& [from, alleles] = rows[static_cast<size_t>(r)];
    build_allele_windows(source.data<uint8_t>() + from * (length + 20), length, alleles.first,
                         alleles.second, ref.data<uint8_t>() + r * length,
                         alt.data<uint8_t>() + r * length);
    changed.push_back(changed_range(length, alleles.first, alleles.second));
  }
  const std::vector<train::OutputRequest> request = {{0, true}};
  const Tensor expected_ref = train::forward_codes(*model, ref, request)[0];
  const Tensor expected_alt = train::forward_codes(*model, alt, request)[0];
  for (const bool incremental : {false, true}) {
    CAPTURE(incremental);
    PairForward forward(*model, {{0, false, {}}}, 0, false, length, incremental);
    const PairPredictions got = forward.run(ref, alt, changed);
    CHECK(worst(got.ref[0], expected_ref) < 1e-6);
    CHECK(worst(got.alt[0], expected_alt) < 1e-6);
  }
}

}  // namespace
}  // namespace strand::variants
