// ISM: the fast path (explain/fast_ism.h) against the brute-force path on the reference model,
// Basset and BPNet presets and on random graphs that use every windowed step, to 1e-5 of the
// largest effect; the N policy; and the position range.
#include <doctest/doctest.h>

#include "alternates/relu_readout.h"
#include "cuda/cuda_test_support.h"
#include "explain/fast_ism.h"
#include "explain/ism.h"
#include "explain_models.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/crop1d.h"
#include "layers/dense.h"
#include "layers/dropout.h"
#include "layers/graph.h"
#include "layers/merge.h"
#include "layers/pooling.h"
#include "ops/reduction.h"

namespace strand {
namespace {

using explain::IsmOptions;
using explain::IsmPath;
using explain::IsmResult;
using explain::Target;

// The fast path equals brute force over `ranges` of positions of `codes`: every effect within
// 1e-5 of the scale max(1, largest effect, largest prediction). An effect is a difference of two
// predictions, each rounded to float32 on its own path, so it cannot agree more closely than the
// predictions' rounding; brute force disagrees with itself across batch sizes by as much (about
// 3e-7 on Basset's logits).
void check_fast_equals_brute_force(Model& model, const Tensor& codes, const Target& target,
                                   std::vector<std::pair<int64_t, int64_t>> ranges,
                                   int64_t batch_size = 64) {
  std::string why;
  REQUIRE_MESSAGE(explain::FastIsmPlan::make(model, codes.size(1), target, &why) != nullptr, why);
  double largest_effect = 0.0;
  for (const auto& [start, end] : ranges) {
    IsmOptions options;
    options.target = target;
    options.start = start;
    options.end = end;
    options.batch_size = batch_size;
    options.path = IsmPath::kFast;
    const IsmResult fast = explain::ism(model, codes, options);
    options.path = IsmPath::kBruteForce;
    const IsmResult brute = explain::ism(model, codes, options);
    CHECK(fast.fast);
    CHECK_FALSE(brute.fast);
    const auto f = fast.effects.to_vector<float>();
    const auto b = brute.effects.to_vector<float>();
    REQUIRE(f.size() == b.size());
    double scale = 1.0, worst = 0.0;
    for (size_t i = 0; i < f.size(); ++i) {
      scale = std::max(scale, std::abs(static_cast<double>(b[i])));
      worst = std::max(worst, std::abs(static_cast<double>(f[i]) - b[i]));
    }
    for (const float e : b)
      largest_effect = std::max(largest_effect, std::abs(static_cast<double>(e)));
    for (const float p : brute.prediction.to_vector<float>()) {
      scale = std::max(scale, std::abs(static_cast<double>(p)));
    }
    INFO("positions " << start << "-" << end << ": scale " << scale << ", largest difference "
                      << worst);
    CHECK(worst <= 1e-5 * scale);
    CHECK(testing::max_abs_difference(fast.prediction, brute.prediction) <= 1e-5 * scale);
  }
  // Some substitution changed the target (else the comparison proves nothing).
  CHECK(largest_effect > 1e-3);
}

TEST_CASE("ISM: fast path equals brute force on the reference preset") {
  auto model = testing::preset_model("reference", {.length = 200, .tasks = 1}, 1, 0.5);
  const Tensor codes = testing::sequences(3, 200, 2);
  check_fast_equals_brute_force(*model, codes, {}, {{0, 200}});
  check_fast_equals_brute_force(*model, codes, {.activation = true}, {{0, 30}});
}

TEST_CASE("ISM: fast path equals brute force on the Basset preset") {
  auto model = testing::preset_model("basset", {.length = 600, .tasks = 3}, 3, 0.2);
  const Tensor codes = testing::sequences(2, 600, 4);
  check_fast_equals_brute_force(*model, codes, {.task = 1}, {{0, 12}, {290, 302}, {588, 600}});
  check_fast_equals_brute_force(*model, codes, {}, {{100, 106}});
}

TEST_CASE("ISM: fast path equals brute force on the BPNet preset (dilated residual)") {
  const app::DataDimensions dimensions{
      .length = 2114, .tasks = 1, .profile_tracks = 2, .profile_length = 1000};
  auto model = testing::preset_model("bpnet", dimensions, 5, 0.2);
  const Tensor codes = testing::sequences(1, 2114, 6);
  // The counts head reads the last residual block through alternates/relu_readout.h where this
  // build can screen its units; the profile reads the block's convolved change.
  std::string why;
  const auto counts_plan = explain::FastIsmPlan::make(*model, 2114, {.output = 1}, &why);
  REQUIRE_MESSAGE(counts_plan != nullptr, why);
  CHECK(counts_plan->readouts() == (alternates::ReluReadout::kAvailable ? 1 : 0));
  const auto profile_plan = explain::FastIsmPlan::make(*model, 2114, {.output = 0}, &why);
  REQUIRE_MESSAGE(profile_plan != nullptr, why);
  CHECK(profile_plan->readouts() == 0);
  // counts (the first (B, T) output), then the profile through its wrapper.
  check_fast_equals_brute_force(*model, codes, {.output = 1},
                                {{0, 6}, {540, 546}, {1054, 1060}, {2108, 2114}});
  check_fast_equals_brute_force(*model, codes, {.output = 0, .task = 1}, {{6, 10}, {1055, 1059}});
}

// A graph with every windowed step: strided and valid convs, both poolings (one with a partial
// last window), crop, concat, add, BatchNorm, dropout, global pools and flatten-dense.
std::shared_ptr<Graph> every_step_graph() {
  auto graph = std::make_shared<Graph>();
  graph->add("conv", Conv1D(4, 8, 5, {.padding = Padding::kSame}), {"sequence"});
  graph->add("bn", BatchNorm1D(8), {"conv"});
  graph->add("act", GELU(), {"bn"});
  graph->add("strided", Conv1D(8, 8, 4, {.stride = 2}), {"act"});
  graph->add("tanh", Tanh(), {"strided"});
  graph->add("pool", MaxPool1D(3, 2, true), {"tanh"});
  graph->add("avg", AvgPool1D(2), {"tanh"});
  graph->add("crop", Crop1D(14), {"pool"});
  graph->add("crop_avg", Crop1D(14), {"avg"});
  graph->add("joined", Concat(), {"crop", "crop_avg"});
  graph->add("valid", Conv1D(16, 16, 3, {.dilation = 2}), {"joined"});
  graph->add("relu", ReLU(), {"valid"});
  graph->add("drop", Dropout(0.5), {"relu"});
  graph->add("same", Conv1D(16, 16, 3, {.padding = Padding::kSame}), {"drop"});
  graph->add("residual", Add(), {"drop", "same"});
  graph->add("gmax", GlobalMaxPool1D(), {"residual"});
  graph->add("gavg", GlobalAvgPool1D(), {"residual"});
  graph->add("flat", Flatten(), {"residual"});
  graph->add("dense_flat", Dense(16 * 10, 3), {"flat"});
  graph->add("dense_max", Dense(16, 3), {"gmax"});
  graph->add("dense_avg", Dense(16, 3), {"gavg"});
  graph->add("sum", Add(), {"dense_flat", "dense_max", "dense_avg"});
  graph->add("softplus", Softplus(), {"sum"});
  graph->add("out", Sigmoid(), {"softplus"});
  graph->add_output("out", "out");
  return graph;
}

TEST_CASE("ISM: fast path equals brute force on a graph of every windowed step") {
  auto graph = every_step_graph();
  InputShapes inputs;
  inputs.sequence = {64};
  REQUIRE(graph->output_shapes(inputs)[0] == Shape{3});
  testing::randomize_parameters(*graph, 7, 0.4);
  graph->eval();
  const Tensor codes = testing::sequences(2, 64, 8);
  check_fast_equals_brute_force(*graph, codes, {.task = 2}, {{0, 64}}, 37);
  check_fast_equals_brute_force(*graph, codes, {.activation = true}, {{10, 40}}, 200);
  // At 66 bases the max pooling's last window is partial: it and what follows run whole.
  const Tensor longer = testing::sequences(2, 66, 14);
  check_fast_equals_brute_force(*graph, longer, {}, {{0, 66}}, 100);
}

TEST_CASE("ISM: N positions get no row, each position's own letter an effect of 0") {
  auto model = testing::preset_model("reference", {.length = 50, .tasks = 1}, 9, 0.5);
  Tensor codes = testing::sequences(1, 50, 10);
  codes.data<uint8_t>()[7] = 4;
  for (const IsmPath path : {IsmPath::kFast, IsmPath::kBruteForce}) {
    IsmOptions options;
    options.path = path;
    const IsmResult result = explain::ism(*model, codes, options);
    const auto e = result.effects.to_vector<float>();
    const auto x = codes.to_vector<uint8_t>();
    int64_t nonzero = 0;
    for (int64_t c = 0; c < 4; ++c) {
      CHECK(e[static_cast<size_t>(c * 50 + 7)] == 0.0F);
      for (int64_t l = 0; l < 50; ++l) {
        if (x[static_cast<size_t>(l)] == c) CHECK(e[static_cast<size_t>(c * 50 + l)] == 0.0F);
        nonzero += e[static_cast<size_t>(c * 50 + l)] != 0.0F ? 1 : 0;
      }
    }
    CHECK(nonzero > 0);
  }
}

TEST_CASE("ISM: a position range outside the sequences is refused") {
  auto model = testing::preset_model("reference", {.length = 50, .tasks = 1}, 11);
  const Tensor codes = testing::sequences(1, 50, 12);
  IsmOptions options;
  options.start = 40;
  options.end = 60;
  CHECK_THROWS_WITH_AS(
      explain::ism(*model, codes, options),
      doctest::Contains("positions 40-60 are not a range inside the sequences' 50"), Error);
}

TEST_CASE("ISM: the fast path declines a model class it cannot see into") {
  class Opaque : public Model {
   public:
    Opaque() : conv_(register_module("conv", std::make_shared<Conv1D>(4, 2, 3))) {}
    std::vector<Var> forward_outputs(const ModelInputs& in) override {
      return {global_max_pool1d(conv_->forward(in.sequence))};
    }

   private:
    std::shared_ptr<Conv1D> conv_;
  };
  Opaque model;
  std::string why;
  CHECK(explain::FastIsmPlan::make(model, 20, {}, &why) == nullptr);
  CHECK(why.find("Sequential and Graph") != std::string::npos);
  const Tensor codes = testing::sequences(1, 20, 13);
  IsmOptions options;
  const IsmResult result = explain::ism(model, codes, options);  // brute force
  CHECK_FALSE(result.fast);
  options.path = IsmPath::kFast;
  CHECK_THROWS_WITH_AS(explain::ism(model, codes, options),
                       doctest::Contains("fast path does not cover"), Error);
}

}  // namespace
}  // namespace strand

namespace strand {
namespace {

TEST_CASE("ISM: brute force on the GPU equals the CPU's, in equal passes of any batch size") {
  STRAND_REQUIRE_GPU();
  // Basset: its BatchNorm1D -> ReLU -> MaxPool1D blocks run fused on the GPU.
  auto model = testing::preset_model("basset", {.length = 600, .tasks = 3}, 5, 0.2);
  const Tensor codes = testing::sequences(2, 600, 6);
  IsmOptions options;
  options.target = {.task = 2};
  options.start = 280;
  options.end = 320;
  options.path = IsmPath::kBruteForce;
  options.batch_size = 64;
  const IsmResult cpu = explain::ism(*model, codes, options);
  model->to(Device::cuda());
  CHECK(testing::max_abs_difference(cpu.effects, Tensor::zeros(cpu.effects.shape())) > 1e-4);
  // About 240 mutants: four passes of equal size, two, and all in one.
  for (const int64_t batch : {64, 130, 4096}) {
    CAPTURE(batch);
    options.batch_size = batch;
    const IsmResult gpu_result = explain::ism(*model, codes, options);
    CHECK_FALSE(gpu_result.fast);
    double scale = 1.0;
    for (const float p : cpu.prediction.to_vector<float>()) {
      scale = std::max(scale, std::abs(static_cast<double>(p)));
    }
    CHECK(testing::max_abs_difference(gpu_result.effects, cpu.effects) <= 1e-4 * scale);
    CHECK(testing::max_abs_difference(gpu_result.prediction, cpu.prediction) <= 1e-4 * scale);
  }
}

}  // namespace
}  // namespace strand
