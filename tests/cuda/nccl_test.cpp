// The NCCL backend with one rank on one GPU (bootstrapped by the single-process communicator, no
// MPI): collectives run and are ordered after strand's own stream, a peer that never joins
// ends in a clean timeout, and an aborted communicator is reported, not used.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>

#include "dist/single_process_communicator.h"
#include "ops/matmul.h"
#include "tests/cuda/cuda_test_support.h"
#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)
#include "dist/cuda/nccl_communicator.h"
#include "dist/device_communicator.h"
#include "kernels/cuda/stream.h"
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
