// AlternateForward (alternates/alternate_forward.h): the strategy it chooses for each model and
// placement, and a batch of alternates at shared and at scattered columns through each strategy
// equal to full passes (to float rounding), several outputs of a graph included.
#include <doctest/doctest.h>

#include "alternates/alternate_forward.h"
#include "alternates/alternates_models.h"
#include "explain/explain_models.h"
#include "layers/graph.h"
#include "layers/merge.h"
#include "train/code_inference.h"
#include "variants/variants_test_support.h"

namespace strand::alternates {
namespace {

// A small residual graph with two outputs: conv - ReLU - (x + ReLU(conv(x))) read by a global
// average (counts) and a conv head (a profile).
std::shared_ptr<Graph> residual_graph() {
  auto graph = std::make_shared<Graph>();
  graph->add("conv", Conv1D(4, 8, 7, {.padding = Padding::kSame}), {"sequence"});
  graph->add("relu", ReLU(), {"conv"});
  graph->add("block", Conv1D(8, 8, 3, {.dilation = 2, .padding = Padding::kSame}), {"relu"});
  graph->add("block_relu", ReLU(), {"block"});
  graph->add("residual", Add(), {"relu", "block_relu"});
  graph->add("profile", Conv1D(8, 2, 5, {.padding = Padding::kSame}), {"residual"});
  graph->add("pooled", GlobalAvgPool1D(), {"residual"});
  graph->add("counts", Dense(8, 1), {"pooled"});
  graph->add_output("profile", "profile");
  graph->add_output("counts", "counts");
  strand::testing::randomize_parameters(*graph, 3, 0.4);
  graph->eval();
  return graph;
}

// Every alternate of `batch` (reference rows `codes`) written out: (M, L) codes.
Tensor written_out(const Tensor& codes, const AlternateBatch& batch) {
  const auto m_count = static_cast<int64_t>(batch.slots.size());
  const int64_t length = codes.size(1), width = batch.letters.size(1);
  Tensor out = Tensor::empty({m_count, length}, DType::kUInt8);
  for (int64_t m = 0; m < m_count; ++m) {
    const auto i = static_cast<size_t>(m);
    std::memcpy(out.data<uint8_t>() + m * length, codes.data<uint8_t>() + batch.slots[i] * length,
                static_cast<size_t>(length));
    std::memcpy(out.data<uint8_t>() + m * length + batch.starts[i],
                batch.letters.data<uint8_t>() + m * width, static_cast<size_t>(width));
  }
  return out;
}

// The engine's outputs for `batch` equal full passes over the alternates written out.
void check_equals_full_passes(Model& model, const AlternateForward& engine, const Tensor& codes,
                              const AlternateBatch& batch, const std::vector<size_t>& outputs) {
  const References references = engine.reference(codes);
  const std::vector<Tensor> got = engine.alternates(references, batch);
  std::vector<train::OutputRequest> requests;
  for (const size_t k : outputs) requests.push_back({k, false});
  const std::vector<Tensor> full = train::forward_codes(model, written_out(codes, batch), requests);
  const std::vector<Tensor> full_ref = train::forward_codes(model, codes, requests);
  REQUIRE(got.size() == outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    CAPTURE(k);
    CHECK(strand::testing::max_abs_difference(engine.reference_output(references, k), full_ref[k]) <
          1e-5);
    CHECK(strand::testing::max_abs_difference(got[k], full[k]) < 1e-5);
  }
}

TEST_CASE("alternates: the engine picks a strategy by model and placement") {
  auto basset = strand::testing::basset_like(120, false);
  std::string why;
  const auto shared = AlternateForward::make(*basset, 120, {0}, Placement::kShared, &why);
  REQUIRE_MESSAGE(shared != nullptr, why);
  CHECK(shared->strategy() == Strategy::kFusedSequential);
  CHECK(shared->computes_wide_changes());
  CHECK(shared->alternates_per_call(1000) == 1000);  // one call: one GEMM per layer
  CHECK(shared->references_per_pass(50, 1) == 50);
  const auto scattered = AlternateForward::make(*basset, 120, {0}, Placement::kScattered, &why);
  REQUIRE_MESSAGE(scattered != nullptr, why);
  CHECK(scattered->strategy() == Strategy::kWindowed);
  CHECK_FALSE(scattered->computes_wide_changes());
  CHECK(scattered->windowed_steps() > 0);
  // One convolution before the global pooling: cheaper whole for shared columns; ISM's
  // scattered mutants still run windowed.
  auto reference = variants::testing::reference_experiment_model();
  CHECK(AlternateForward::make(*reference, 100, {0}, Placement::kShared, &why) == nullptr);
  CHECK(why.find("cheaper whole") != std::string::npos);
  CHECK(AlternateForward::make(*reference, 100, {0}, Placement::kScattered, &why) != nullptr);
  // Graphs run windowed whatever the placement.
  auto graph = residual_graph();
  for (const Placement placement : {Placement::kShared, Placement::kScattered}) {
    const auto engine = AlternateForward::make(*graph, 64, {0, 1}, placement, &why);
    REQUIRE_MESSAGE(engine != nullptr, why);
    CHECK(engine->strategy() == Strategy::kWindowed);
  }
}

TEST_CASE("alternates: both strategies equal full passes, shared and scattered columns") {
  const Tensor codes = strand::testing::random_codes(3, 120, 41);
  // Alternates of rows 2, 0, 0, 1: two letters at the centre (shared) or along the sequence.
  const std::vector<int64_t> slots = {2, 0, 0, 1};
  const Tensor letters = strand::testing::random_codes(4, 2, 42);
  const std::vector<int64_t> centre = {60, 60, 60, 60}, along = {0, 31, 60, 118};
  auto basset = strand::testing::basset_like(120, true);
  std::string why;
  const auto fused = AlternateForward::make(*basset, 120, {0}, Placement::kShared, &why);
  REQUIRE_MESSAGE(fused != nullptr, why);
  check_equals_full_passes(*basset, *fused, codes, {slots, centre, letters}, {0});
  const auto windowed = AlternateForward::make(*basset, 120, {0}, Placement::kScattered, &why);
  REQUIRE_MESSAGE(windowed != nullptr, why);
  check_equals_full_passes(*basset, *windowed, codes, {slots, along, letters}, {0});
  // A graph's two outputs at once (the profile (M, 2, L) and the counts (M, 1)).
  auto graph = residual_graph();
  const Tensor short_codes = strand::testing::random_codes(3, 64, 43);
  const std::vector<int64_t> graph_starts = {0, 20, 31, 62};
  const auto engine = AlternateForward::make(*graph, 64, {0, 1}, Placement::kScattered, &why);
  REQUIRE_MESSAGE(engine != nullptr, why);
  check_equals_full_passes(*graph, *engine, short_codes, {slots, graph_starts, letters}, {0, 1});
}

}  // namespace
}  // namespace strand::alternates
