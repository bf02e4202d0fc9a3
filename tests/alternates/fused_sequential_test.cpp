// FusedSequential (alternates/fused_sequential.h): alt windows computed from the ref windows'
// activations equal full passes (to float rounding) for SNVs, MNVs and indels, at the centre and
// at the window's ends, through convolutions of any padding, stride and dilation, max and average
// pooling (ceil mode too), batch normalisation and dropout; models it declines.
#include <doctest/doctest.h>

#include "alternates/alternates_models.h"
#include "alternates/fused_sequential.h"
#include "train/code_inference.h"
#include "variants/variants_test_support.h"

namespace strand::alternates {
namespace {

using variants::testing::pairs_for;
using variants::testing::WindowPairs;

double worst(const Tensor& a, const Tensor& b) { return strand::testing::max_abs_difference(a, b); }

// Row `row` of `alt` as an alternate of reference row `row`, its letters over `changed` (at
// least one column; an empty range reads the centre).
Tensor alternate(const FusedSequential& plan, const SequentialReference& kept, const Tensor& alt,
                 int64_t row, ColumnRange changed, const Sequential& model) {
  const int64_t length = alt.size(1);
  const int64_t width = std::max<int64_t>(1, changed.end - changed.begin);
  const int64_t start = std::clamp<int64_t>(
      changed.begin < changed.end ? changed.begin : length / 2, 0, length - width);
  const std::vector<int64_t> slots = {row}, starts = {start};
  const std::vector<ColumnRange> ranges = {changed};
  const Tensor letters = alt.slice(0, row, row + 1).slice(1, start, start + width).contiguous();
  const Tensor values = plan.alternates(kept, {slots, starts, letters, ranges});
  return apply_activation(model.output_activation(0), Var(values)).value();
}

TEST_CASE("fused sequential: alt windows equal full passes for SNVs, MNVs and indels") {
  for (const bool same : {false, true}) {
    for (const int64_t length : {120, 121}) {
      CAPTURE(same);
      CAPTURE(length);
      auto model = strand::testing::basset_like(length, same);
      const std::optional<FusedSequential> plan = FusedSequential::plan(*model, length);
      REQUIRE(plan.has_value());
      const std::vector<std::pair<std::string, std::string>> alleles = {
          {"A", "G"}, {"C", "T"}, {"ACG", "TCA"}, {"A", "A"}, {"G", "GTTACA"}, {"GATTACA", "G"}};
      const WindowPairs pairs = pairs_for(length, alleles, 7);
      const std::vector<train::OutputRequest> request = {{0, true}};
      const Tensor full_ref = train::forward_codes(*model, pairs.ref, request)[0];
      const Tensor full_alt = train::forward_codes(*model, pairs.alt, request)[0];
      CHECK(worst(full_alt, full_ref) > 1e-4);  // the alleles change the predictions
      const SequentialReference kept = plan->reference(pairs.ref);
      const Tensor ref = apply_activation(model->output_activation(0), Var(kept.output)).value();
      CHECK(worst(ref, full_ref) < 1e-6);
      for (int64_t r = 0; r < static_cast<int64_t>(alleles.size()); ++r) {
        CAPTURE(alleles[static_cast<size_t>(r)].second);
        const Tensor alt =
            alternate(*plan, kept, pairs.alt, r, pairs.changed[static_cast<size_t>(r)], *model);
        CHECK(worst(alt, full_alt.slice(0, r, r + 1).contiguous()) < 1e-6);
      }
      // A range reaching the window's ends (padding, the last partial pool of ceil mode).
      for (const ColumnRange edge : {ColumnRange{0, 3}, ColumnRange{length - 4, length}}) {
        Tensor alt = pairs.ref.clone();
        for (int64_t p = edge.begin; p < edge.end; ++p) {
          alt.data<uint8_t>()[p] = static_cast<uint8_t>((alt.data<uint8_t>()[p] + 1) % 4);
        }
        const Tensor full =
            train::forward_codes(*model, alt.slice(0, 0, 1).contiguous(), request)[0];
        CHECK(worst(alternate(*plan, kept, alt, 0, edge, *model), full) < 1e-6);
      }
    }
  }
}

TEST_CASE("fused sequential: the reference model and models without a mixing layer run whole") {
  auto reference = variants::testing::reference_experiment_model();
  CHECK_FALSE(FusedSequential::plan(*reference, 100).has_value());  // one convolution
  auto convolutions_only = std::make_shared<Sequential>();
  convolutions_only->add(Conv1D(4, 4, 5));
  convolutions_only->add(MaxPool1D(2));
  CHECK_FALSE(FusedSequential::plan(*convolutions_only, 100).has_value());  // nothing mixes
}

}  // namespace
}  // namespace strand::alternates
