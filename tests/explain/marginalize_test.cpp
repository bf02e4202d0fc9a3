// marginalize() and marginalize_spacing() through the alternates engine
// (explain/insertion_values.h) equal their whole passes to float rounding: on the Basset preset
// (the fused strategy) and on the BPNet preset (the windowed strategy, counts and the profile's
// summary).
#include <doctest/doctest.h>

#include "alternates/alternate_forward.h"
#include "explain/marginalize.h"
#include "explain_models.h"

namespace strand {
namespace {

// Both tensors within 1e-5 of max(1, the largest value).
void check_close(const Tensor& got, const Tensor& expected) {
  double scale = 1.0;
  for (const float v : expected.to_vector<float>()) {
    scale = std::max(scale, std::abs(static_cast<double>(v)));
  }
  REQUIRE(got.shape() == expected.shape());
  CHECK(testing::max_abs_difference(got, expected) <= 1e-5 * scale);
}

void check_engine_equals_whole(Model& model, const Tensor& backgrounds,
                               const explain::Target& target) {
  // The engine takes the model (else both sides would run whole).
  CHECK(alternates::AlternateForward::make(model, backgrounds.size(1), {target.output},
                                           alternates::Placement::kShared, nullptr) != nullptr);
  explain::MarginalizeOptions engine{.target = target, .batch_size = 3};
  explain::MarginalizeOptions whole = engine;
  whole.alternates = false;
  const std::vector<uint8_t> a = explain::motif_codes("CAGCTGTT");
  const std::vector<uint8_t> b = explain::motif_codes("GATAA");
  const int64_t centre = backgrounds.size(1) / 2;
  const auto got = explain::marginalize(model, backgrounds, {{a, centre}}, engine);
  const auto expected = explain::marginalize(model, backgrounds, {{a, centre}}, whole);
  check_close(got.before, expected.before);
  check_close(got.after, expected.after);
  // The motif changes the target (else the comparison proves nothing).
  CHECK(testing::max_abs_difference(expected.after, expected.before) > 1e-4);
  const auto pairs = explain::marginalize_spacing(model, backgrounds, a, b, 12, 14, engine);
  const auto pairs_whole = explain::marginalize_spacing(model, backgrounds, a, b, 12, 14, whole);
  REQUIRE(pairs.size() == 3);
  for (size_t i = 0; i < pairs.size(); ++i) {
    CAPTURE(i);
    check_close(pairs[i].background, pairs_whole[i].background);
    check_close(pairs[i].a, pairs_whole[i].a);
    check_close(pairs[i].b, pairs_whole[i].b);
    check_close(pairs[i].both, pairs_whole[i].both);
  }
}

TEST_CASE("marginalize: through the alternates engine equals whole passes (Basset, BPNet)") {
  auto basset = testing::preset_model("basset", {.length = 300, .tasks = 3}, 21, 0.2);
  check_engine_equals_whole(*basset, testing::sequences(7, 300, 22, false), {.activation = true});
  const app::DataDimensions dimensions{
      .length = 2114, .tasks = 1, .profile_tracks = 2, .profile_length = 1000};
  auto bpnet = testing::preset_model("bpnet", dimensions, 23, 0.2);
  const Tensor backgrounds = testing::sequences(2, 2114, 24, false);
  check_engine_equals_whole(*bpnet, backgrounds, {.output = 1});
  check_engine_equals_whole(*bpnet, backgrounds, {.output = 0, .task = 1});
}

}  // namespace
}  // namespace strand
