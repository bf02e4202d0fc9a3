// fit() on the GPU: steps replayed from a CUDA graph give the losses of eager steps, learning
// rate schedules reach GPU steps on time for every optimizer (eager and replayed, against the
// CPU), a per-parameter Adam in a graph follows its device schedule, a convolution first met
// inside a capture is refused, evaluate() reads the GPU back once a pass, and training on
// cuda:1 leaves GPU 0 and the caller's current device alone.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "conv_engine_scopes.h"
#include "cuda_test_support.h"
#include "data/loader/data_loader.h"
#include "data/sources/array_source.h"
#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/dropout.h"
#include "layers/losses.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "ops/conv1d.h"
#include "ops/reduction.h"
#include "optim/adam.h"
#include "optim/lr_schedule.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
#include "tensor/determinism.h"
#include "train/evaluation.h"
#include "train/fit.h"
#include "train/lr_callbacks.h"
#ifdef STRAND_WITH_CUDA
#include <cuda_runtime_api.h>

#include "tensor/cuda/allocator.h"
#include "tensor/cuda/conv_engine.h"
#include "tensor/cuda/device.h"
#include "tensor/cuda/graph.h"
#endif

using namespace strand;
using namespace strand::testing;

namespace {

constexpr int64_t kLength = 60;
constexpr int64_t kBatch = 32;
constexpr int64_t kExamples = 10 * kBatch + 7;  // ten full batches and a smaller last one

// Random sequences with random 0/1 labels (the tests compare trajectories, not learning).
std::shared_ptr<data::ArraySource> random_source() {
  Generator rng(77);
  std::vector<uint8_t> codes(static_cast<size_t>(kExamples * kLength));
  for (uint8_t& code : codes) code = static_cast<uint8_t>(rng.next_below(5));
  std::vector<float> labels(static_cast<size_t>(kExamples));
  for (float& label : labels) label = static_cast<float>(rng.next_below(2));
  return std::make_shared<data::ArraySource>(codes, kLength, labels, 1);
}

// The loader fit() gets on `device`: batches in pinned memory on a GPU, as the CLI does.
std::unique_ptr<data::DataLoader> loader_on([[maybe_unused]] Device device) {
  data::LoaderOptions options;
  options.sampler.batch_size = kBatch;
  options.sampler.shuffle = true;
  options.sampler.seed = 3;
  options.loader_threads = 2;
#ifdef STRAND_WITH_CUDA
  if (device.is_cuda()) {
    options.allocator = {[device](size_t bytes) { return cuda::pinned_allocate(bytes, device); },
                         cuda::pinned_release};
  }
#endif
  return std::make_unique<data::DataLoader>(random_source(), options);
}

Sequential dropout_model(uint64_t seed) {
  Generator generator(seed);
  Sequential model;
  model.add(Conv1D(4, 8, 5, {}, generator));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dropout(0.3, seed + 1));
  model.add(Dense(8, 1, true, generator));
  model.add(Sigmoid());
  return model;
}

struct LossRecorder : train::Callback {
  std::vector<double> losses;
  void on_batch_end(train::FitContext&, const train::BatchLogs& logs) override {
    losses.push_back(logs.loss);
  }
};

enum class OptimizerKind { kAdam, kSGD, kRMSprop };

std::unique_ptr<Optimizer> make_optimizer(OptimizerKind kind, const std::vector<Var>& parameters) {
  switch (kind) {
    case OptimizerKind::kAdam:
      return std::make_unique<Adam>(parameters, AdamOptions{.learning_rate = 2e-2});
    case OptimizerKind::kSGD:
      return std::make_unique<SGD>(parameters, SGDOptions{.learning_rate = 0.2, .momentum = 0.9});
    case OptimizerKind::kRMSprop:
      return std::make_unique<RMSprop>(parameters,
                                       RMSpropOptions{.learning_rate = 1e-2, .momentum = 0.9});
  }
  return nullptr;
}

struct FitRun {
  std::vector<double> losses;
  std::vector<Tensor> parameters;  // on the CPU
  train::History history;
};

// Two epochs of fit() on `device` with a step schedule whose rate falls 100-fold after three
// steps: a GPU step that took its rate late would run step 3 ten times too fast.
FitRun fit_on(Device device, OptimizerKind kind, bool graph, double clip = 0.0) {
  Sequential model = dropout_model(11);
  model.to(device);
  std::unique_ptr<Optimizer> optimizer = make_optimizer(kind, model.trainable_parameters());
  const double initial = optimizer->learning_rate();
  auto scheduler =
      std::make_shared<train::LearningRateScheduler>(std::make_shared<StepDecay>(initial, 3, 0.01));
  auto recorder = std::make_shared<LossRecorder>();
  auto loader = loader_on(device);
  train::FitOptions options;
  options.epochs = 2;
  options.cuda_graph = graph;
  options.clip_grad_norm = clip;
  BinaryCrossEntropy loss;
  FitRun run;
  run.history =
      train::fit(model, loss, *optimizer, *loader, nullptr, options, {scheduler, recorder});
  run.losses = recorder->losses;
  for (const Var& p : model.parameters()) run.parameters.push_back(p.value().to(Device::cpu()));
  return run;
}

// Conv1D -> BatchNorm1D -> ReLU -> MaxPool1D twice, as Basset's blocks: on a GPU the first
// conv's one-hot passes and the second's dense ones go through the conv engine, and each
// BatchNorm1D -> ReLU -> MaxPool1D through the fused op.
Sequential basset_like_model(uint64_t seed) {
  Generator generator(seed);
  Sequential model;
  model.add(Conv1D(4, 16, 7, {}, generator));  // 60 -> 54
  model.add(BatchNorm1D(16));
  model.add(ReLU());
  model.add(MaxPool1D(2));                      // -> 27
  model.add(Conv1D(16, 16, 5, {}, generator));  // -> 23
  model.add(BatchNorm1D(16));
  model.add(ReLU());
  model.add(MaxPool1D(2));  // -> 11
  model.add(Flatten());
  model.add(Dense(16 * 11, 1, true, generator));
  model.add(Sigmoid());
  return model;
}

// The validation loader: batches of 50 (6 of them, then one of 27).
std::unique_ptr<data::DataLoader> validation_loader_on([[maybe_unused]] Device device) {
  data::LoaderOptions options;
  options.sampler.batch_size = 50;
  options.sampler.shuffle = false;
#ifdef STRAND_WITH_CUDA
  if (device.is_cuda()) {
    options.allocator = {[device](size_t bytes) { return cuda::pinned_allocate(bytes, device); },
                         cuda::pinned_release};
  }
#endif
  return std::make_unique<data::DataLoader>(random_source(), options);
}

// Two epochs of the Basset-like model with validation on `device`: the per-step losses.
std::vector<double> fit_basset_like(Device device,
                                    std::vector<std::shared_ptr<train::Callback>> callbacks = {}) {
  Sequential model = basset_like_model(21);
  model.to(device);
  RMSprop optimizer(model.trainable_parameters(),
                    RMSpropOptions{.learning_rate = 1e-3, .momentum = 0.9});
  auto recorder = std::make_shared<LossRecorder>();
  callbacks.push_back(recorder);
  auto loader = loader_on(device);
  auto validation = validation_loader_on(device);
  train::FitOptions options;
  options.epochs = 2;
  BinaryCrossEntropy loss;
  (void)train::fit(model, loss, optimizer, *loader, validation.get(), options, callbacks);
  return recorder->losses;
}

// Deterministic mode for a scope: both runs of a comparison then take the same convolution
// algorithms (cuDNN's deterministic ones), not each its own timed choice.
struct DeterministicScope {
  bool before = deterministic();
  DeterministicScope() { set_deterministic(true); }
  ~DeterministicScope() { set_deterministic(before); }
};

}  // namespace

TEST_CASE("cuda: fit replays a CUDA graph and its steps give the eager steps' losses") {
  STRAND_REQUIRE_GPU();
  const DeterministicScope exact;
  const FitRun eager = fit_on(Device::cuda(), OptimizerKind::kAdam, false, 1.0);
  const FitRun graph = fit_on(Device::cuda(), OptimizerKind::kAdam, true, 1.0);
  // 11 steps per epoch: the first runs eagerly (warm-up), the smaller last batch of each epoch
  // too; the other 19 come from the graph.
  CHECK(eager.history.replayed_steps == 0);
  CHECK(graph.history.replayed_steps == 2 * 11 - 3);
  REQUIRE(graph.losses.size() == eager.losses.size());
  for (size_t i = 0; i < eager.losses.size(); ++i) {
    INFO("step " << i << ": eager " << eager.losses[i] << ", graph " << graph.losses[i]);
    // The same kernels on the same values (Dropout's masks follow the device step).
    CHECK(graph.losses[i] == doctest::Approx(eager.losses[i]).epsilon(1e-6));
  }
  for (size_t i = 0; i < eager.parameters.size(); ++i) {
    CHECK(max_abs_difference(graph.parameters[i], eager.parameters[i]) <= 1e-6);
  }
}

TEST_CASE("cuda: fit's learning-rate schedule reaches GPU steps on time, eager and replayed") {
  STRAND_REQUIRE_GPU();
  for (OptimizerKind kind : {OptimizerKind::kAdam, OptimizerKind::kSGD, OptimizerKind::kRMSprop}) {
    INFO("optimizer " << static_cast<int>(kind));
    const FitRun cpu = fit_on(Device::cpu(), kind, false);
    for (bool graph : {false, true}) {
      INFO((graph ? "graph" : "eager"));
      const FitRun gpu_run = fit_on(Device::cuda(), kind, graph);
      REQUIRE(gpu_run.losses.size() == cpu.losses.size());
      for (size_t i = 0; i < cpu.losses.size(); ++i) {
        INFO("step " << i << ": cpu " << cpu.losses[i] << ", gpu " << gpu_run.losses[i]);
        // float32 rounding differences compound over 22 steps (as in the reference run test).
        CHECK(std::abs(gpu_run.losses[i] - cpu.losses[i]) < 1e-3);
      }
    }
  }
}

#ifdef STRAND_WITH_CUDA
TEST_CASE("cuda: a per-parameter Adam in a CUDA graph follows its device step and rate") {
  STRAND_REQUIRE_GPU();
  // float64 parameters: Adam's per-parameter path (the multi-tensor one is float32 only).
  const Tensor start = random_tensor({300}, 5);
  const Tensor target = random_tensor({300}, 6);
  Var gpu_p(gpu(start), true), cpu_p(start.clone(), true);
  Adam gpu_opt({gpu_p}, AdamOptions{.learning_rate = 1e-2});
  Adam cpu_opt({cpu_p}, AdamOptions{.learning_rate = 1e-2});
  const Tensor gpu_target = gpu(target);
  const auto step = [](Var& p, Optimizer& opt, const Tensor& t) {
    opt.zero_grad(GradReset::kZeroInPlace);
    const Var diff = p - Var(t);
    sum(diff * diff).backward();
    opt.step();
  };
  step(gpu_p, gpu_opt, gpu_target);  // warm-up: gradient, moments, device schedule
  step(cpu_p, cpu_opt, target);
  cuda::CudaGraph graph;
  graph.capture([&] { step(gpu_p, gpu_opt, gpu_target); });
  for (int replay = 0; replay < 6; ++replay) {
    if (replay == 3) {
      gpu_opt.set_learning_rate(2e-3);
      cpu_opt.set_learning_rate(2e-3);
    }
    graph.replay();
    if (replay > 0) gpu_opt.count_replayed_step();
    step(cpu_p, cpu_opt, target);
  }
  CHECK(gpu_opt.step_count() == cpu_opt.step_count());
  // Frozen step or rate would leave the bias correction or the step size behind.
  check_close(gpu_p.value(), cpu_p.value(), 1e-12, "parameters after 7 steps");
}

TEST_CASE("cuda: a convolution first met inside a graph capture is refused, not run slowly") {
  STRAND_REQUIRE_GPU();
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: every dense Conv1D runs strand's kernels, nothing to refuse");
    return;
  }
  cuda::set_conv_algorithm(cuda::ConvAlgorithm::kAuto);  // forgets every measured shape
  const Tensor x = gpu(random_tensor({3, 4, 41}, 8, DType::kFloat32));
  const Tensor w = gpu(random_tensor({5, 4, 7}, 9, DType::kFloat32));
  Tensor out = Tensor::zeros({3, 5, 35}, DType::kFloat32, Device::cuda());
  cuda::CudaGraph graph;
  CHECK_THROWS_WITH_AS(graph.capture([&] { out.copy_(ops::conv1d(x, w, Tensor(), {})); }),
                       doctest::Contains("was not run before the CUDA graph capture"), Error);
  // Once run eagerly (measured: the second call runs the chosen implementation), the same
  // shape captures and replays.
  (void)ops::conv1d(x, w, Tensor(), {});
  const Tensor eager = ops::conv1d(x, w, Tensor(), {});
  cuda::CudaGraph again;
  again.capture([&] { out.copy_(ops::conv1d(x, w, Tensor(), {})); });
  again.replay();
  check_close(out, eager.to(Device::cpu()), 1e-5, "replayed convolution");
}

TEST_CASE("cuda: evaluate reads the GPU back once a pass and scores as the CPU does") {
  STRAND_REQUIRE_GPU();
#ifdef STRAND_WITH_CUDA
  Sequential cpu_model = dropout_model(5), gpu_model = dropout_model(5);
  gpu_model.to(Device::cuda());
  BinaryCrossEntropy loss;
  auto cpu_loader = loader_on(Device::cpu());
  const train::Evaluation on_cpu = train::evaluate(cpu_model, loss, *cpu_loader);
  auto gpu_loader = loader_on(Device::cuda());
  (void)train::evaluate(gpu_model, loss, *gpu_loader);  // the conv engine's first-use choices
  const size_t syncs_before = cuda::host_sync_count();
  const train::Evaluation on_gpu = train::evaluate(gpu_model, loss, *gpu_loader);
  // 11 batches: the loss sum and the predictions are read once each, not once a batch.
  CHECK(cuda::host_sync_count() - syncs_before <= 2);
  CHECK(on_gpu.loss == doctest::Approx(on_cpu.loss).epsilon(1e-5));
  CHECK(on_gpu.auroc == doctest::Approx(on_cpu.auroc).epsilon(1e-5));
  CHECK(on_gpu.values.at("auprc") == doctest::Approx(on_cpu.values.at("auprc")).epsilon(1e-5));
#endif
}

TEST_CASE("cuda: training on cuda:1 keeps the caller's device and opens no context on GPU 0") {
  STRAND_REQUIRE_GPU();
  if (cuda::device_count() < 2) {
    MESSAGE("needs two GPUs: training with the device set to cuda:1");
    return;
  }
  const Device second = Device::cuda(1);
  // In a process of its own (ctest runs each case alone), nothing has touched GPU 0 yet.
  const bool gpu0_before = cuda::primary_context_active(0);
  cuda::require_device(second);
  Sequential model = dropout_model(4);
  model.to(second);
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 1e-2});
  auto loader = loader_on(second);
  auto recorder = std::make_shared<LossRecorder>();
  train::FitOptions options;
  options.epochs = 1;
  BinaryCrossEntropy loss;
  const train::History history =
      train::fit(model, loss, optimizer, *loader, nullptr, options, {recorder});
  CHECK(history.replayed_steps > 0);
  for (double value : recorder->losses) CHECK(std::isfinite(value));
  int current = -1;
  cudaGetDevice(&current);
  CHECK(current == 1);
  // The pinned allocator called from a fresh thread (as a loader worker does) for cuda:1.
  std::thread worker([second] {
    void* block = cuda::pinned_allocate(123457, second);
    cuda::pinned_release(block, 123457);
  });
  worker.join();
  cudaGetDevice(&current);
  CHECK(current == 1);
  if (!gpu0_before) CHECK_FALSE(cuda::primary_context_active(0));
}
#endif

TEST_CASE("cuda: a Basset-like model (fused BatchNorm -> ReLU -> MaxPool1D) trains as on the CPU") {
  STRAND_REQUIRE_GPU();
  const std::vector<double> cpu = fit_basset_like(Device::cpu());
  const std::vector<double> gpu_losses = fit_basset_like(Device::cuda());
  REQUIRE(gpu_losses.size() == cpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    INFO("step " << i << ": cpu " << cpu[i] << ", gpu " << gpu_losses[i]);
    CHECK(std::abs(gpu_losses[i] - cpu[i]) < 1e-3);
  }
}

#ifdef STRAND_WITH_CUDA
TEST_CASE("cuda: fit makes every conv choice in its warm-up step, partial batches included") {
  STRAND_REQUIRE_GPU();
  if (!cuda::cudnn_available()) {
    MESSAGE("no cuDNN in this build: every dense Conv1D runs strand's kernels, nothing to choose");
    return;
  }
  const ConvPolicyScope policy;  // nothing remembered, no batch sizes announced
  // The number of conv choices before each step, and at the end (after the last validation).
  struct ChoiceCounter : train::Callback {
    std::vector<size_t> before_step;
    size_t at_end = 0;
    void on_batch_begin(train::FitContext&, const train::BatchStart&) override {
      before_step.push_back(cuda::conv_choices().size());
    }
    void on_train_end(train::FitContext&) override { at_end = cuda::conv_choices().size(); }
  };
  auto counter = std::make_shared<ChoiceCounter>();
  (void)fit_basset_like(Device::cuda(), {counter});
  REQUIRE(counter->before_step.size() == 22);
  CHECK(counter->before_step[0] == 0);
  CHECK(counter->before_step[1] > 0);  // the warm-up step chose
  // Nothing chosen after it: not the epochs' last batches of 7, not the validation batches of
  // 50 and 27.
  CHECK(counter->at_end == counter->before_step[1]);
  bool last_batch = false, validation_batch = false;
  for (const cuda::ConvChoice& c : cuda::conv_choices()) {
    last_batch = last_batch || c.shape.find(" B7 ") != std::string::npos;
    validation_batch = validation_batch || c.shape.find(" B27 ") != std::string::npos;
  }
  CHECK(last_batch);
  CHECK(validation_batch);
}
#endif
