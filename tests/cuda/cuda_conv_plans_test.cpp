// The conv engine's plans (tensor/cuda/conv_engine.h): cuDNN's search workspace capped by free
// memory; every announced batch size chosen (and planned) when a shape is first met, then reused
// untimed; strand's kernel never timed on a pass it cannot win; plans exported, adopted (no new
// choice, the same results), refused when made on another GPU, and round-tripped through a run
// directory's file (train/cuda_plans.h); an adopted cuDNN algorithm used where cuDNN supports it
// and ignored where not. Results are checked against the CPU as in cuda_conv_test.cpp.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "conv_engine_scopes.h"
#include "cuda_test_support.h"
#include "ops/conv1d.h"
#include "tensor/conv_plan_table.h"
#include "train/cuda_plans.h"

using namespace strand;
using namespace strand::testing;

namespace {

[[maybe_unused]] constexpr double kTolerance = 1e-4;

// A small dense layer: 8 -> 6 channels, kernel 5, "same" padding, 40 positions.
[[maybe_unused]] const Conv1DParams kSame{1, 1, 2, 2};
[[maybe_unused]] Tensor small_input(int64_t batch) {
  return random_tensor({batch, 8, 40}, 300 + static_cast<uint64_t>(batch), DType::kFloat32);
}
[[maybe_unused]] Tensor small_weight() { return random_tensor({6, 8, 5}, 299, DType::kFloat32); }

// The forward pass of the small layer at `batch` on the GPU, checked against the CPU.
[[maybe_unused]] void check_small_forward(int64_t batch) {
  const Tensor x = small_input(batch), w = small_weight();
  check_close(ops::conv1d(gpu(x), gpu(w), Tensor(), kSame), ops::conv1d(x, w, Tensor(), kSame),
              kTolerance, "conv1d");
}

#ifdef STRAND_WITH_CUDA
// The remembered choice of `op` at batch `batch`, if any.
std::optional<cuda::ConvChoice> choice_of(const std::string& op, int64_t batch) {
  const std::string marker = " B" + std::to_string(batch) + " ";
  for (const cuda::ConvChoice& c : cuda::conv_choices()) {
    if (c.op == op && c.shape.find(marker) != std::string::npos) return c;
  }
  return std::nullopt;
}
#endif

}  // namespace

TEST_CASE("cuda: cuDNN's search workspace is at most 256 MiB and half the free memory") {
#ifndef STRAND_WITH_CUDA
  STRAND_SKIP("built without the CUDA backend");
#else
  constexpr size_t kMiB = size_t{1} << 20;
  CHECK(cuda::find_workspace_limit(140000 * kMiB) == 256 * kMiB);
  CHECK(cuda::find_workspace_limit(512 * kMiB) == 256 * kMiB);
  CHECK(cuda::find_workspace_limit(300 * kMiB) == 150 * kMiB);
  CHECK(cuda::find_workspace_limit(0) == 0);
#endif
}

TEST_CASE("cuda: a shape's announced batch sizes are chosen when it is first met") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: nothing to choose");
    return;
  }
  const ConvPolicyScope policy;             // kAuto, nothing remembered, no sizes
  cuda::plan_batch_sizes({6}, true);        // a training run's last batch: every pass
  cuda::plan_batch_sizes({10, 16}, false);  // evaluation batches: forward passes only
  const Tensor x = gpu(small_input(16)), w = gpu(small_weight());
  (void)ops::conv1d(x, w, Tensor(), kSame);
  const Tensor g = gpu(random_tensor({16, 6, 40}, 310, DType::kFloat32));
  (void)ops::conv1d_backward_weight(g, x, {6, 8, 5}, kSame);
  CHECK(choice_of("forward", 16));
  CHECK(choice_of("forward", 6));
  CHECK(choice_of("forward", 10));
  CHECK(choice_of("backward_weight", 16));
  CHECK(choice_of("backward_weight", 6));
  CHECK_FALSE(choice_of("backward_weight", 10));  // evaluation runs no backward pass
  CHECK_FALSE(choice_of("backward_input", 16));   // not met yet
  const size_t planned = cuda::conv_choices().size();
  // The announced sizes then run what was chosen for them: right, and with no new choice.
  check_small_forward(6);
  check_small_forward(10);
  const Tensor x6 = small_input(6);
  const Tensor g6 = random_tensor({6, 6, 40}, 311, DType::kFloat32);
  check_close(ops::conv1d_backward_weight(gpu(g6), gpu(x6), {6, 8, 5}, kSame),
              ops::conv1d_backward_weight(g6, x6, {6, 8, 5}, kSame), 10 * kTolerance,
              "conv1d_backward_weight at a planned size");
  CHECK(cuda::conv_choices().size() == planned);
#endif
}

TEST_CASE("cuda: a pass strand's kernel cannot win takes cuDNN untimed") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: nothing to choose");
    return;
  }
  const ConvPolicyScope policy;
  // 32 x 128 x 190 x 128 x 11 = 1.1e9 multiply-adds: past kOwnHopelessMacs.
  const Tensor x = ops::affine(random_tensor({32, 128, 200}, 320, DType::kFloat32), 0.1, 0.0);
  const Tensor w = ops::affine(random_tensor({128, 128, 11}, 321, DType::kFloat32), 0.1, 0.0);
  check_close(ops::conv1d(gpu(x), gpu(w), Tensor(), {}), ops::conv1d(x, w, Tensor(), {}), 1e-4,
              "conv1d past the own kernel's reach");
  const std::optional<cuda::ConvChoice> choice = choice_of("forward", 32);
  REQUIRE(choice);
  CHECK(choice->chosen == "cudnn");
  CHECK(choice->own_ms < 0.0);    // strand's kernel never ran
  CHECK(choice->cudnn_ms < 0.0);  // nothing was timed
#endif
}

TEST_CASE(
    "cuda: exported conv plans are adopted with no new choice, and refused from another GPU") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: nothing to choose");
    return;
  }
  const ConvPolicyScope policy;
  check_small_forward(4);  // timed: both implementations on a small shape
  const ConvPlanTable made = cuda::export_conv_plans(Device::cuda());
  CHECK_FALSE(made.device_name.empty());
  CHECK(made.cudnn_version == cuda::cudnn_version());
  REQUIRE(made.choices.size() == 1);
  const ConvChoiceRecord record = made.choices.front();
  CHECK(record.key.find("forward float32") == 0);
  const ConvPlanTable table = conv_plans_from_json(conv_plans_to_json(made), "test");

  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);  // forgets every choice
  REQUIRE(cuda::conv_choices().empty());
  CHECK(cuda::adopt_conv_plans(table, Device::cuda()).empty());
  check_small_forward(4);
  REQUIRE(cuda::conv_choices().size() == 1);
  const cuda::ConvChoice adopted = cuda::conv_choices().front();
  CHECK(adopted.shape == record.key);
  CHECK(adopted.chosen == record.chosen);
  CHECK(adopted.own_ms == record.own_ms);  // as adopted, not timed again
  CHECK(adopted.cudnn_ms == record.cudnn_ms);

  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
  ConvPlanTable foreign = table;
  foreign.device_name = "Not This GPU";
  CHECK(cuda::adopt_conv_plans(foreign, Device::cuda()).find("made on a 'Not This GPU'") !=
        std::string::npos);
  CHECK(cuda::conv_choices().empty());
  foreign = table;
  foreign.cudnn_version += 1;
  CHECK(cuda::adopt_conv_plans(foreign, Device::cuda()).find("cuDNN") != std::string::npos);
  CHECK(cuda::conv_choices().empty());
#endif
}

TEST_CASE("cuda: conv plans round-trip through a run directory's file") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: nothing to choose");
    return;
  }
  const ConvPolicyScope policy;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "strand_cuda_conv_plans_test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "cuda_plans.json";
  check_small_forward(5);
  CHECK(train::save_cuda_plans(file, Device::cuda()) >= 1);
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
  CHECK(train::load_cuda_plans(file, Device::cuda()).empty());
  CHECK(choice_of("forward", 5));
  // The same file as if written on another GPU: a warning naming it, nothing adopted.
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  ConvPlanTable table = conv_plans_from_json(text.str(), file.string());
  table.device_name = "Not This GPU";
  const std::filesystem::path foreign = dir / "foreign.json";
  std::ofstream(foreign) << conv_plans_to_json(table);
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);
  const std::string warning = train::load_cuda_plans(foreign, Device::cuda());
  CHECK(warning.find("warning: CUDA plans '" + foreign.string() + "' ignored") == 0);
  CHECK(cuda::conv_choices().empty());
#endif
}

TEST_CASE("cuda: an adopted cuDNN algorithm is used where cuDNN supports it, else ignored") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: no algorithms");
    return;
  }
  const CudnnFindScope find(false);  // the heuristics' keys: no " find"
  const ConvPolicyScope policy(cuda::ConvAlgorithm::kCudnn);
  // A shape no other case builds a plan for (plans live for the process). Its plan key, as
  // conv_engine.cpp writes it: dtype, modes, geometry.
  const std::string key = "float32 B3 C5 L33 O7 K3 s1 d1 p1 Lout33";
  cuda::adopt_cudnn_algorithms({{"forward " + key, 0},           // IMPLICIT_GEMM: any shape
                                {"backward-data " + key, 63}});  // no such algorithm
  const Conv1DParams params{1, 1, 1, 1};
  const Tensor x = random_tensor({3, 5, 33}, 330, DType::kFloat32);
  const Tensor w = random_tensor({7, 5, 3}, 331, DType::kFloat32);
  const Tensor g = random_tensor({3, 7, 33}, 332, DType::kFloat32);
  check_close(ops::conv1d(gpu(x), gpu(w), Tensor(), params), ops::conv1d(x, w, Tensor(), params),
              kTolerance, "conv1d with the adopted algorithm");
  check_close(ops::conv1d_backward_input(gpu(g), gpu(w), x.shape(), params),
              ops::conv1d_backward_input(g, w, x.shape(), params), kTolerance,
              "conv1d_backward_input with the heuristics' algorithm");
  bool forward_seen = false, backward_seen = false;
  for (const ConvAlgorithmRecord& a : cuda::export_cudnn_algorithms()) {
    if (a.key == "forward " + key) {
      forward_seen = true;
      CHECK(a.algorithm == 0);
    }
    if (a.key == "backward-data " + key) {
      backward_seen = true;
      CHECK(a.algorithm != 63);  // the plan's own choice replaced the unusable one
    }
  }
  CHECK(forward_seen);
  CHECK(backward_seen);
#endif
}
