// The NCCL backend with one rank on one GPU (bootstrapped by the single-process communicator, no
// MPI): collectives run and are ordered after strand's own stream, a peer that never joins
// ends in a clean timeout, an aborted communicator is reported, not used, and fit() under the
// mirrored strategy over NCCL trains exactly as the plain loop does.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <vector>

#include "data/loader/data_loader.h"
#include "data/sources/array_source.h"
#include "dist/mirrored_strategy.h"
#include "dist/single_process_communicator.h"
#include "layers/activations.h"
#include "layers/conv1d.h"
#include "layers/dense.h"
#include "layers/losses.h"
#include "layers/sequential.h"
#include "ops/matmul.h"
#include "optim/adam.h"
#include "tensor/determinism.h"
#include "tests/cuda/cuda_test_support.h"
#include "train/fit.h"
#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
#include "dist/cuda/nccl_communicator.h"
#include "dist/device_communicator.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/allocator.h"
#include "tensor/cuda/device.h"
#endif

namespace strand::testing {
namespace {

#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
dist::CommunicatorOptions test_options(std::chrono::milliseconds timeout) {
  dist::CommunicatorOptions options;
  options.timeout = timeout;
  options.abort_on_timeout = false;  // throw DistError, so the test can look at it
  return options;
}

// A host communicator that claims a second rank which never shows up: NCCL's initialisation
// then waits for a peer forever, unless strand's deadline ends it.
class MissingPeerBootstrap : public dist::SingleProcessCommunicator {
 public:
  int world_size() const override { return 2; }
};

// Two epochs of fit() on the GPU (Conv1D -> ReLU -> GlobalMaxPool1D -> Dense -> Sigmoid, Adam,
// eager steps: a strategy never replays a graph) over 7 batches of random sequences, the last
// one smaller; with `strategy`, data-parallel through it. The per-step losses (read one step
// late, as fit() does on a GPU) and the final parameters on the CPU.
struct MirroredRun {
  std::vector<double> losses;
  std::vector<Tensor> parameters;
  train::History history;
};
struct StepLosses : train::Callback {
  std::vector<double> losses;
  void on_batch_end(train::FitContext&, const train::BatchLogs& logs) override {
    losses.push_back(logs.loss);
  }
};
MirroredRun fit_on_gpu(dist::DistributedStrategy* strategy) {
  constexpr int64_t kLength = 50, kExamples = 6 * 16 + 5;
  Generator rng(41);
  std::vector<uint8_t> codes(static_cast<size_t>(kExamples * kLength));
  for (uint8_t& code : codes) code = static_cast<uint8_t>(rng.next_below(5));
  std::vector<float> labels(static_cast<size_t>(kExamples));
  for (float& label : labels) label = static_cast<float>(rng.next_below(2));
  data::LoaderOptions loader_options;
  loader_options.sampler.batch_size = 16;
  loader_options.sampler.shuffle = true;
  loader_options.sampler.seed = 5;
  const Device device = Device::cuda(0);
  loader_options.allocator = {
      [device](size_t bytes) { return cuda::pinned_allocate(bytes, device); },
      cuda::pinned_release};
  data::DataLoader loader(std::make_shared<data::ArraySource>(codes, kLength, labels, 1),
                          loader_options);
  Generator init(13);
  Sequential model;
  model.add(Conv1D(4, 8, 5, {}, init));
  model.add(ReLU());
  model.add(GlobalMaxPool1D());
  model.add(Dense(8, 1, true, init));
  model.add(Sigmoid());
  model.to(device);
  Adam optimizer(model.trainable_parameters(), AdamOptions{.learning_rate = 2e-2});
  auto recorder = std::make_shared<StepLosses>();
  train::FitOptions options;
  options.epochs = 2;
  options.cuda_graph = false;  // the plain loop eager too, as it is under a strategy
  options.strategy = strategy;
  BinaryCrossEntropy loss;
  MirroredRun run;
  run.history = train::fit(model, loss, optimizer, loader, nullptr, options, {recorder});
  run.losses = recorder->losses;
  for (const Var& p : model.parameters()) run.parameters.push_back(p.value().to(Device::cpu()));
  return run;
}

// Deterministic mode for a scope (restored on the way out, a throw included): both runs then
// take the same convolution algorithms, not each its own timed choice.
struct DeterministicScope {
  bool before = deterministic();
  DeterministicScope() { set_deterministic(true); }
  ~DeterministicScope() { set_deterministic(before); }
};
#endif

}  // namespace

TEST_CASE("cuda: nccl all-reduce and broadcast run on one rank and keep the values") {
  STRAND_REQUIRE_GPU();
#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
  auto bootstrap = std::make_shared<dist::SingleProcessCommunicator>();
  dist::NcclCommunicator nccl(bootstrap, Device::cuda(0), test_options(std::chrono::seconds(30)));
  CHECK(nccl.world_size() == 1);
  CHECK(nccl.backend() == "nccl");
  Tensor host = Tensor::empty({1000}, DType::kFloat32);
  for (int64_t i = 0; i < host.numel(); ++i) host.data<float>()[i] = 0.5f * static_cast<float>(i);
  for (const auto op : {dist::ReduceOp::kSum, dist::ReduceOp::kAverage}) {
    Tensor values = host.to(Device::cuda());
    nccl.all_reduce(values, op, "test all-reduce");
    CHECK(max_abs_difference(values, host) == 0.0);
  }
  Tensor broadcast = host.to(DType::kFloat64).to(Device::cuda());
  nccl.broadcast(broadcast, 0, "test broadcast");
  CHECK(max_abs_difference(broadcast, host.to(DType::kFloat64)) == 0.0);
  Tensor on_host = host.clone();
  CHECK_THROWS_WITH_AS(nccl.all_reduce(on_host), doctest::Contains("contiguous tensor on cuda:0"),
                       std::exception);
#else
  STRAND_SKIP("built without NCCL");
#endif
}

TEST_CASE("cuda: an nccl collective waits for the work queued before it on strand's stream") {
  STRAND_REQUIRE_GPU();
#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
  auto bootstrap = std::make_shared<dist::SingleProcessCommunicator>();
  dist::NcclCommunicator nccl(bootstrap, Device::cuda(0), test_options(std::chrono::seconds(60)));
  // Tens of milliseconds of matrix products on strand's (non-blocking) stream, then the
  // all-reduce of their result. Ordered against the legacy default stream instead, the
  // collective would not wait for them and would finish (reading a half-written tensor) first.
  const Tensor a = Tensor::full({2048, 2048}, 1.0 / 2048, DType::kFloat32, Device::cuda());
  Tensor product = a;
  for (int i = 0; i < 40; ++i) product = ops::matmul(product, a);
  auto work = nccl.all_reduce_async(product, dist::ReduceOp::kSum, "ordered all-reduce");
  const bool finished_early = work->test();
  CHECK_FALSE(finished_early);
  work->wait();
  CHECK(cudaStreamQuery(cuda::stream(Device::cuda())) == cudaSuccess);  // compute done first
  // Every entry of a^41 is 1/2048 (rows of a sum to one).
  const Tensor expected = Tensor::full({2048, 2048}, 1.0 / 2048, DType::kFloat32);
  CHECK(max_abs_difference(product, expected) < 1e-6);
#else
  STRAND_SKIP("built without NCCL");
#endif
}

TEST_CASE("cuda: nccl initialisation with a peer that never joins times out cleanly") {
  STRAND_REQUIRE_GPU();
#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
  auto bootstrap = std::make_shared<MissingPeerBootstrap>();
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(
      dist::NcclCommunicator(bootstrap, Device::cuda(0), test_options(std::chrono::seconds(2))),
      doctest::Contains("timed out after"), dist::DistError);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 20.0);
#else
  STRAND_SKIP("built without NCCL");
#endif
}

TEST_CASE("cuda: an aborted nccl communicator refuses further collectives") {
  STRAND_REQUIRE_GPU();
#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
  auto bootstrap = std::make_shared<dist::SingleProcessCommunicator>();
  dist::NcclCommunicator nccl(bootstrap, Device::cuda(0), test_options(std::chrono::seconds(10)));
  nccl.abort_communicator_for_test();
  Tensor values = Tensor::ones({16}, DType::kFloat32, Device::cuda());
  CHECK_THROWS_WITH_AS(nccl.all_reduce(values), doctest::Contains("was aborted"), std::exception);
#else
  STRAND_SKIP("built without NCCL");
#endif
}

TEST_CASE("cuda: fit under a one-rank nccl mirrored strategy gives the plain loop's losses") {
  STRAND_REQUIRE_GPU();
#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
  const DeterministicScope exact;
  const MirroredRun plain = fit_on_gpu(nullptr);
  auto nccl = std::make_shared<dist::NcclCommunicator>(
      std::make_shared<dist::SingleProcessCommunicator>(), Device::cuda(0),
      test_options(std::chrono::seconds(60)));
  dist::MirroredOptions mirrored;
  mirrored.bucket_bytes = 256;  // several buckets: w0 (8x4x5) alone, then the rest
  dist::MirroredStrategy strategy(nccl, mirrored);
  const MirroredRun data_parallel = fit_on_gpu(&strategy);
  // 7 steps an epoch (six of 16, one of 5), each through NCCL: the initial broadcast, every
  // bucket's all-reduce (an average over one rank: the gradient itself) and its copy back.
  CHECK(strategy.stats().steps == 14);
  CHECK(strategy.stats().buckets_started > strategy.stats().steps);
  CHECK(strategy.stats().bytes_reduced > 0);
  CHECK(data_parallel.history.replayed_steps == 0);
  REQUIRE(plain.losses.size() == 14);
  REQUIRE(data_parallel.losses.size() == plain.losses.size());
  for (size_t i = 0; i < plain.losses.size(); ++i) {
    INFO("step " << i << ": plain " << plain.losses[i] << ", mirrored " << data_parallel.losses[i]);
    CHECK(data_parallel.losses[i] == plain.losses[i]);
  }
  REQUIRE(data_parallel.parameters.size() == plain.parameters.size());
  for (size_t i = 0; i < plain.parameters.size(); ++i) {
    CHECK(max_abs_difference(data_parallel.parameters[i], plain.parameters[i]) == 0.0);
  }
#else
  STRAND_SKIP("built without NCCL");
#endif
}

TEST_CASE("cuda: each rank gets its own GPU, counted from the configured one") {
  STRAND_REQUIRE_GPU();
#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
  CHECK(dist::device_for_rank(Device::cuda(0), 0) == Device::cuda(0));
  const int devices = cuda::device_count();
  CHECK_THROWS_WITH_AS(dist::device_for_rank(Device::cuda(0), devices),
                       doctest::Contains("rank(s) per host"), Error);
#else
  STRAND_SKIP("built without NCCL");
#endif
}

}  // namespace strand::testing
