// IncrementalForward: alt windows computed from the ref windows' activations equal full passes
// (to float rounding) for SNVs, MNVs and indels, at the centre and at the window's ends,
// through convolutions of any padding, stride and dilation, max and average pooling (ceil mode
// too), batch normalisation and dropout; and PairForward's incremental path equals its full
// one, with reverse-complement averaging.
#include <doctest/doctest.h>

#include "autograd/grad_mode.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/dropout.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "train/code_inference.h"
#include "variants/incremental_forward.h"
#include "variants/pair_forward.h"
#include "variants_test_support.h"

namespace strand::variants {
namespace {

using testing::pairs_for;
using testing::WindowPairs;

// A Basset-like model: conv - BN - ReLU - max pool, twice more with other geometries, then
// Flatten - Dense - BN - ReLU - Dropout - Dense - Sigmoid. Its BatchNorm statistics come from
// one training-mode pass over random codes.
std::shared_ptr<Sequential> basset_like(int64_t length, bool same_padding) {
  manual_seed(26);
  auto model = std::make_shared<Sequential>();
  Conv1DOptions first;
  first.padding = same_padding ? Padding::kSame : Padding::kValid;
  model->add(Conv1D(4, 12, 9, first));
  model->add(BatchNorm1D(12));
  model->add(ReLU());
  model->add(MaxPool1D(3));
  Conv1DOptions dilated;
  dilated.dilation = 2;
  dilated.padding = same_padding ? Padding::kSame : Padding::kValid;
  model->add(Conv1D(12, 8, 5, dilated));
  model->add(ReLU());
  model->add(AvgPool1D(2, 2, true));
  Conv1DOptions strided;
  strided.stride = 2;
  model->add(Conv1D(8, 8, 3, strided));
  model->add(BatchNorm1D(8));
  model->add(ReLU());
  model->add(MaxPool1D(2));
  model->add(Flatten());
  const int64_t features = numel(model->output_shape({length}));
  model->add(Dense(features, 16));
  model->add(BatchNorm1D(16));
  model->add(ReLU());
  model->add(Dropout(0.3));
  model->add(Dense(16, 3));
  model->add(Sigmoid());
  {
    NoGradGuard no_grad;
    model->train();
    model->forward_outputs({Var(strand::testing::random_codes(16, length, 5)), {}});
  }
  model->eval();
  return model;
}

double worst(const Tensor& a, const Tensor& b) { return strand::testing::max_abs_difference(a, b); }

TEST_CASE("incremental forward: alt windows equal full passes for SNVs, MNVs and indels") {
  for (const bool same : {false, true}) {
    for (const int64_t length : {120, 121}) {
      CAPTURE(same);
      CAPTURE(length);
      auto model = basset_like(length, same);
      const std::optional<IncrementalForward> plan = IncrementalForward::plan(*model, length);
      REQUIRE(plan.has_value());
      const std::vector<std::pair<std::string, std::string>> alleles = {
          {"A", "G"}, {"C", "T"}, {"ACG", "TCA"}, {"A", "A"}, {"G", "GTTACA"}, {"GATTACA", "G"}};
      const WindowPairs pairs = pairs_for(length, alleles, 7);
      const std::vector<train::OutputRequest> request = {{0, true}};
      const Tensor full_ref = train::forward_codes(*model, pairs.ref, request)[0];
      const Tensor full_alt = train::forward_codes(*model, pairs.alt, request)[0];
      CHECK(worst(full_alt, full_ref) > 1e-4);  // the alleles change the predictions
      ReferenceActivations kept;
      const Tensor ref = plan->forward_reference(pairs.ref, true, kept);
      CHECK(worst(ref, full_ref) < 1e-6);
      for (int64_t r = 0; r < static_cast<int64_t>(alleles.size()); ++r) {
        CAPTURE(alleles[static_cast<size_t>(r)].second);
        const std::vector<int64_t> row = {r};
        const Tensor alt = plan->forward_alternate(pairs.alt.slice(0, r, r + 1), kept, row,
                                                   pairs.changed[static_cast<size_t>(r)], true);
        CHECK(worst(alt, full_alt.slice(0, r, r + 1).contiguous()) < 1e-6);
      }
      // A range reaching the window's ends (padding, the last partial pool of ceil mode).
      for (const ChangedRange edge : {ChangedRange{0, 3}, ChangedRange{length - 4, length}}) {
        Tensor alt = pairs.ref.clone();
        for (int64_t p = edge.begin; p < edge.end; ++p) {
          alt.data<uint8_t>()[p] = static_cast<uint8_t>((alt.data<uint8_t>()[p] + 1) % 4);
        }
        const Tensor full =
            train::forward_codes(*model, alt.slice(0, 0, 1).contiguous(), request)[0];
        const std::vector<int64_t> first = {0};
        CHECK(worst(plan->forward_alternate(alt.slice(0, 0, 1), kept, first, edge, true), full) <
              1e-6);
      }
    }
  }
}

TEST_CASE("incremental forward: the reference model and graphs run whole") {
  auto reference = testing::reference_experiment_model();
  CHECK_FALSE(IncrementalForward::plan(*reference, 100).has_value());  // one convolution
  auto convolutions_only = std::make_shared<Sequential>();
  convolutions_only->add(Conv1D(4, 4, 5));
  convolutions_only->add(MaxPool1D(2));
  CHECK_FALSE(IncrementalForward::plan(*convolutions_only, 100).has_value());  // nothing mixes
}

TEST_CASE("incremental forward: PairForward's incremental path equals its full passes") {
  const int64_t length = 150;
  auto model = basset_like(length, false);
  const std::vector<std::pair<std::string, std::string>> alleles = {
      {"A", "G"}, {"GATTACA", "G"}, {"C", "T"}, {"T", "TGG"}, {"AC", "GT"}, {"A", "A"}};
  const WindowPairs pairs = pairs_for(length, alleles, 11);
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

}  // namespace
}  // namespace strand::variants

namespace strand::variants {
namespace {

TEST_CASE("pair forward: ALTs sharing a ref window (multi-allelic) get one ref prediction") {
  const int64_t length = 150;
  auto model = basset_like(length, false);
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
