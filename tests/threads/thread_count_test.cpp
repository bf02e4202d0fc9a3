// Results do not depend on the thread count: every CPU path a user runs (predictions, fast and
// brute-force ISM, DeepLIFT/SHAP, gradients, variant scores, marginalisation through the
// alternates engine and training steps) gives the same
// bytes at 1, 2 and 3 threads, on Basset- and BPNet-shaped models (Basset's training steps in
// bf16 too, on a CPU with AVX-512 BF16 or AMX). CI runs this suite twice:
// built for this machine and built for x86-64-v3 with oneDNN capped to AVX2
// (ONEDNN_MAX_CPU_ISA=AVX2), so both ISAs' kernels and oneDNN's are covered.
#include <doctest/doctest.h>
#include <omp.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "explain/deep_lift_shap.h"
#include "explain/explain_models.h"
#include "explain/gradient.h"
#include "explain/ism.h"
#include "explain/marginalize.h"
#include "kernels/cpu/gemm_bf16.h"
#include "layers/module.h"
#include "ops/elementwise.h"
#include "ops/reduction.h"
#include "optim/adam.h"
#include "tensor/precision.h"
#include "test_helpers.h"
#include "variants/pair_forward.h"
#include "variants/variants_test_support.h"

namespace strand {
namespace {

// The bytes of every tensor `compute` returns, run at `threads` threads.
std::vector<std::vector<uint8_t>> bytes_at(int threads,
                                           const std::function<std::vector<Tensor>()>& compute) {
  const int previous = omp_get_max_threads();
  omp_set_num_threads(threads);
  const std::vector<Tensor> results = compute();
  omp_set_num_threads(previous);
  std::vector<std::vector<uint8_t>> bytes;
  for (const Tensor& result : results) {
    const Tensor flat = result.contiguous().to(Device::cpu());
    const auto* first = static_cast<const uint8_t*>(flat.raw_data());
    bytes.emplace_back(first,
                       first + flat.numel() * static_cast<int64_t>(dtype_size(flat.dtype())));
  }
  return bytes;
}

// Checks that `compute` gives the same bytes at 1, 2 and 3 threads.
void check_thread_count_independent(const std::function<std::vector<Tensor>()>& compute) {
  const auto one = bytes_at(1, compute);
  for (const int threads : {2, 3}) {
    const auto other = bytes_at(threads, compute);
    REQUIRE(other.size() == one.size());
    for (size_t i = 0; i < one.size(); ++i) {
      CAPTURE(threads);
      CAPTURE(i);
      CHECK(other[i] == one[i]);
    }
  }
}

const app::DataDimensions kBasset{.length = 600, .tasks = 3};
const app::DataDimensions kBpnet{
    .length = 2114, .tasks = 1, .profile_tracks = 2, .profile_length = 1000};

std::shared_ptr<Model> basset() { return testing::preset_model("basset", kBasset, 90, 0.2); }
std::shared_ptr<Model> bpnet() { return testing::preset_model("bpnet", kBpnet, 91, 0.2); }

// Every output of the model for a batch, as predictions.
std::vector<Tensor> predictions(Model& model, const Tensor& codes) {
  NoGradGuard no_grad;
  std::vector<Tensor> values;
  for (const Var& output : model.forward_predictions({.sequence = Var(codes), .tracks = {}})) {
    values.push_back(output.value());
  }
  return values;
}

TEST_CASE("predictions of Basset and BPNet") {
  auto basset_model = basset();
  const Tensor basset_codes = testing::sequences(24, kBasset.length, 1);
  check_thread_count_independent([&] { return predictions(*basset_model, basset_codes); });
  auto bpnet_model = bpnet();
  const Tensor bpnet_codes = testing::sequences(6, kBpnet.length, 2);
  check_thread_count_independent([&] { return predictions(*bpnet_model, bpnet_codes); });
}

// Effects of fast and brute-force ISM.
std::vector<Tensor> ism_effects(Model& model, const Tensor& codes, explain::IsmOptions options) {
  std::vector<Tensor> effects;
  for (const auto path : {explain::IsmPath::kFast, explain::IsmPath::kBruteForce}) {
    options.path = path;
    effects.push_back(explain::ism(model, codes, options).effects);
  }
  return effects;
}

TEST_CASE("fast and brute-force ISM of Basset") {
  auto model = basset();
  const Tensor codes = testing::sequences(2, kBasset.length, 3);
  check_thread_count_independent([&] {
    return ism_effects(*model, codes,
                       {.target = {.task = 1}, .start = 290, .end = 306, .batch_size = 24});
  });
}

TEST_CASE("fast and brute-force ISM of BPNet's counts") {
  auto model = bpnet();
  const Tensor codes = testing::sequences(2, kBpnet.length, 4);
  check_thread_count_independent([&] {
    return ism_effects(*model, codes,
                       {.target = {.output = 1}, .start = 1000, .end = 1012, .batch_size = 24});
  });
}

TEST_CASE("DeepLIFT/SHAP and gradients of Basset and BPNet") {
  auto basset_model = basset();
  const Tensor basset_codes = testing::sequences(3, kBasset.length, 5);
  check_thread_count_independent([&] {
    const explain::DeepLiftShapOptions shap{
        .target = {.task = 0}, .references = 4, .batch_size = 6};
    const explain::GradientOptions gradient{.batch_size = 2};
    return std::vector<Tensor>{
        explain::deep_lift_shap(*basset_model, basset_codes, shap).hypothetical,
        explain::gradient(*basset_model, basset_codes, gradient)};
  });
  auto bpnet_model = bpnet();
  const Tensor bpnet_codes = testing::sequences(2, kBpnet.length, 6);
  check_thread_count_independent([&] {
    std::vector<Tensor> results;
    for (const size_t output : {size_t{0}, size_t{1}}) {
      const explain::DeepLiftShapOptions shap{
          .target = {.output = output}, .references = 3, .batch_size = 3};
      results.push_back(explain::deep_lift_shap(*bpnet_model, bpnet_codes, shap).hypothetical);
    }
    results.push_back(explain::gradient(*bpnet_model, bpnet_codes, {.target = {.output = 1}}));
    return results;
  });
}

// Variant scores: ref and alt predictions of SNVs, an MNV and indels, windowed and in full.
std::vector<Tensor> pair_scores(Model& model, const std::vector<variants::PairOutput>& outputs,
                                int64_t length) {
  const variants::testing::WindowPairs pairs = variants::testing::pairs_for(
      length, {{"A", "G"}, {"C", "T"}, {"AC", "GT"}, {"G", "GTTACA"}, {"GATTACA", "G"}}, 17);
  std::vector<Tensor> values;
  for (const bool incremental : {false, true}) {
    variants::PairForward forward(model, outputs, 0, /*rc_average=*/true, length, incremental);
    const variants::PairPredictions scored = forward.run(pairs.ref, pairs.alt, pairs.changed);
    values.insert(values.end(), scored.ref.begin(), scored.ref.end());
    values.insert(values.end(), scored.alt.begin(), scored.alt.end());
  }
  return values;
}

TEST_CASE("variant scores of Basset and BPNet") {
  auto basset_model = basset();
  check_thread_count_independent([&] {
    return pair_scores(*basset_model, {{0, false, {}}}, kBasset.length);
  });
  auto bpnet_model = bpnet();
  check_thread_count_independent([&] {
    return pair_scores(*bpnet_model, {{0, true, {1, 0}}, {1, false, {}}}, kBpnet.length);
  });
}

// One motif's before and after, and two motifs' means at three spacings, per task.
std::vector<Tensor> marginalized(Model& model, const Tensor& backgrounds,
                                 const explain::Target& target) {
  const explain::MarginalizeOptions options{.target = target, .batch_size = 2};
  const std::vector<uint8_t> a = explain::motif_codes("CAGCTG");
  const std::vector<uint8_t> b = explain::motif_codes("GATAA");
  const int64_t centre = backgrounds.size(1) / 2;
  const auto single = explain::marginalize(model, backgrounds, {{a, centre}}, options);
  std::vector<Tensor> values = {single.before, single.after};
  for (const auto& effect :
       explain::marginalize_spacing(model, backgrounds, a, b, 10, 12, options)) {
    values.insert(values.end(), {effect.background, effect.a, effect.b, effect.both});
  }
  return values;
}

TEST_CASE("marginalisation of Basset and BPNet's counts") {
  auto basset_model = basset();
  const Tensor basset_codes = testing::sequences(5, kBasset.length, 13);
  check_thread_count_independent([&] { return marginalized(*basset_model, basset_codes, {}); });
  auto bpnet_model = bpnet();
  const Tensor bpnet_codes = testing::sequences(3, kBpnet.length, 14);
  check_thread_count_independent(
      [&] { return marginalized(*bpnet_model, bpnet_codes, {.output = 1}); });
}

// The parameters after `steps` Adam steps on a loss that reaches every output.
std::vector<Tensor> trained_parameters(const std::function<std::shared_ptr<Model>()>& build,
                                       const Tensor& codes, int steps) {
  manual_seed(12);  // the Dropout layers' masks
  const std::shared_ptr<Model> built = build();
  Model& model = *built;
  model.train();
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-3});
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    Var loss;
    for (const Var& output : model.forward_outputs({.sequence = Var(codes), .tracks = {}})) {
      const Var term = sum(output * output);
      loss = loss.defined() ? loss + term : term;
    }
    loss.backward();
    optimizer.step();
  }
  std::vector<Tensor> values;
  for (const Var& parameter : model.parameters()) values.push_back(parameter.value().clone());
  return values;
}

TEST_CASE("training steps of Basset") {
  const Tensor codes = testing::sequences(16, kBasset.length, 7);
  check_thread_count_independent([&] { return trained_parameters(basset, codes, 2); });
}

TEST_CASE("training steps of Basset in bf16 (--precision bf16)") {
  const std::string reason = kernels::cpu::bf16_gemm_unavailable_reason();
  if (!reason.empty()) STRAND_SKIP(reason.c_str());
  const Tensor codes = testing::sequences(16, kBasset.length, 7);
  const Float32PrecisionScope bf16(Float32Precision::kBf16);
  check_thread_count_independent([&] { return trained_parameters(basset, codes, 2); });
}

TEST_CASE("training steps of BPNet") {
  const Tensor codes = testing::sequences(4, kBpnet.length, 8);
  check_thread_count_independent([&] { return trained_parameters(bpnet, codes, 2); });
}

}  // namespace
}  // namespace strand
