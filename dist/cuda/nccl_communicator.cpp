// NCCL backend: collectives on a dedicated stream, bounded waits, abort on failure.
#include "dist/cuda/nccl_communicator.h"

#ifdef STRAND_WITH_NCCL

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dist/device_communicator.h"
#include "dist/wait_policy.h"
#include "kernels/cuda/stream.h"
#include "tensor/cuda/device.h"

namespace strand::dist {

void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw DistError(fmt::format("{} failed at {}:{}: {} (NCCL error {})", call, file, line,
                              ncclGetErrorString(result), static_cast<int>(result)));
}

void check_cuda(cudaError_t result, const char* call, const char* file, int line) {
  if (result == cudaSuccess) return;
  throw DistError(fmt::format("{} failed at {}:{}: {} ({})", call, file, line,
                              cudaGetErrorString(result), cudaGetErrorName(result)));
}

namespace {

ncclDataType_t nccl_float_type(const Tensor& tensor) {
  switch (tensor.dtype()) {
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
    default:
      throw DistError(
          fmt::format("all_reduce: only float32/float64 tensors, got {}", tensor.describe()));
  }
}

// One collective: an event recorded after it on the communicator's stream.
class NcclWork : public Work {
 public:
  NcclWork(NcclCommunicator* communicator, cudaEvent_t done, Tensor tensor, std::string what)
      : communicator_(communicator),
        done_(done),
        tensor_(std::move(tensor)),
        what_(std::move(what)) {}
  ~NcclWork() override {
    try {
      wait();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s\n", error.what());
    }
    cudaEventDestroy(done_);
  }
  bool test() override {
    if (finished_) return true;
    const cudaError_t state = cudaEventQuery(done_);
    if (state == cudaErrorNotReady) {
      communicator_->check_async_error(what_);
      return false;
    }
    STRAND_CUDA_CHECK(state);
    finished_ = true;
    return true;
  }
  void wait() override {
    if (finished_) return;
    if (cudaEventQuery(done_) == cudaErrorNotReady) cuda::count_host_sync();  // it will block
    communicator_->wait_for(done_, what_);
    finished_ = true;
  }
  bool device_ordered() const override { return true; }

 private:
  NcclCommunicator* communicator_;
  cudaEvent_t done_;
  Tensor tensor_;  // keeps the buffer alive while NCCL writes into it
  std::string what_;
  bool finished_ = false;
};

}  // namespace

NcclCommunicator::NcclCommunicator(std::shared_ptr<Communicator> bootstrap, Device device,
                                   CommunicatorOptions options)
    : bootstrap_(std::move(bootstrap)), options_(options), device_(device) {
  STRAND_CHECK(bootstrap_ != nullptr, "NcclCommunicator: needs the host communicator of the job");
  STRAND_CHECK(device_.is_cuda(), "NcclCommunicator: {} is not a CUDA device", device_.to_string());
  cuda::require_device(device_);  // makes it current: NCCL binds the communicator to it
  stream_ = nullptr;
  STRAND_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  ncclUniqueId id;
  if (bootstrap_->rank() == 0) STRAND_NCCL_CHECK(ncclGetUniqueId(&id));
  Tensor id_bytes = Tensor::empty({static_cast<int64_t>(sizeof(id))}, DType::kUInt8);
  std::memcpy(id_bytes.raw_data(), &id, sizeof(id));
  bootstrap_->broadcast(id_bytes, 0, "NCCL unique id broadcast");
  std::memcpy(&id, id_bytes.raw_data(), sizeof(id));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  complete(
      ncclCommInitRankConfig(&comm_, bootstrap_->world_size(), id, bootstrap_->rank(), &config),
      "creating the NCCL communicator");
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_ != nullptr && !aborted_) {
    // Finalize flushes outstanding operations; on a non-blocking communicator it may return
    // ncclInProgress, so poll it to the end (bounded) before destroying.
    try {
      complete(ncclCommFinalize(comm_), "finalizing the NCCL communicator");
      ncclCommDestroy(comm_);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s\n", error.what());
    }
  }
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void NcclCommunicator::fail(const std::string& message, int exit_code) {
  if (comm_ != nullptr && !aborted_) {
    ncclCommAbort(comm_);
    aborted_ = true;
  }
  if (options_.abort_on_timeout) abort(message + "; aborting the job", exit_code);
  throw DistError(message);
}

void NcclCommunicator::complete(ncclResult_t issued, const std::string& what) {
  if (issued != ncclSuccess && issued != ncclInProgress) {
    fail(fmt::format("{}NCCL failed {}: {} (NCCL error {})", rank_prefix(*this), what,
                     ncclGetErrorString(issued), static_cast<int>(issued)),
         1);
  }
  if (comm_ == nullptr) return;
  WaitPolicy policy(options_.timeout);
  ncclResult_t state = ncclInProgress;
  while (true) {
    const ncclResult_t query = ncclCommGetAsyncError(comm_, &state);
    if (query != ncclSuccess) state = query;
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) {
      fail(fmt::format("{}NCCL failed {}: {} (NCCL error {})", rank_prefix(*this), what,
                       ncclGetErrorString(state), static_cast<int>(state)),
           1);
    }
    if (policy.expired()) {
      fail(fmt::format("{}timed out after {:.1f} s {} (nccl): another rank has died, failed or "
                       "hangs",
                       rank_prefix(*this), policy.elapsed_seconds(), what),
           kWatchdogExitCode);
    }
    policy.pause();
  }
}

void NcclCommunicator::check_async_error(const std::string& what) {
  STRAND_CHECK(!aborted_, "{}: the NCCL communicator was aborted", what);
  ncclResult_t state = ncclSuccess;
  const ncclResult_t query = ncclCommGetAsyncError(comm_, &state);
  if (query != ncclSuccess) state = query;
  if (state == ncclSuccess || state == ncclInProgress) return;
  fail(fmt::format("{}NCCL failed during {}: {}", rank_prefix(*this), what,
                   ncclGetErrorString(state)),
       1);
}

void NcclCommunicator::abort_communicator_for_test() {
  if (comm_ != nullptr && !aborted_) {
    ncclCommAbort(comm_);
    aborted_ = true;
  }
}

void NcclCommunicator::wait_for(cudaEvent_t done, const std::string& what) {
  WaitPolicy policy(options_.timeout);
  while (true) {
    const cudaError_t state = cudaEventQuery(done);
    if (state == cudaSuccess) return;
    if (state != cudaErrorNotReady) STRAND_CUDA_CHECK(state);
    check_async_error(what);
    if (policy.expired()) {
      fail(fmt::format("{}timed out after {:.1f} s waiting for {} (nccl): another rank has died, "
                       "failed or hangs",
                       rank_prefix(*this), policy.elapsed_seconds(), what),
           kWatchdogExitCode);
    }
    policy.pause();
  }
}

std::unique_ptr<Work> NcclCommunicator::launch(Tensor& tensor, const std::string& what, bool reduce,
                                               ncclRedOp_t op, int root) {
  STRAND_CHECK(tensor.defined() && tensor.is_contiguous() && tensor.device() == device_,
               "{}: the NCCL backend needs a contiguous tensor on {}, got {}", what,
               device_.to_string(), tensor.describe());
  STRAND_CHECK(aborted_ == false, "{}: the NCCL communicator was aborted", what);
  cuda::require_device(device_);
  const cudaStream_t compute = cuda::stream(device_);
  // The collective must see everything strand's stream wrote into the tensor (the bucket
  // copies of the mirrored strategy run there).
  cudaEvent_t ready = nullptr, done = nullptr;
  STRAND_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  STRAND_CUDA_CHECK(cudaEventRecord(ready, compute));
  STRAND_CUDA_CHECK(cudaStreamWaitEvent(stream_, ready, 0));
  STRAND_CUDA_CHECK(cudaEventDestroy(ready));
  void* data = tensor.raw_data();
  if (reduce) {
    complete(ncclAllReduce(data, data, static_cast<size_t>(tensor.numel()), nccl_float_type(tensor),
                           op, comm_, stream_),
             "enqueuing " + what);
  } else {
    const size_t bytes = static_cast<size_t>(tensor.numel()) * dtype_size(tensor.dtype());
    complete(ncclBroadcast(data, data, bytes, ncclUint8, root, comm_, stream_),
             "enqueuing " + what);
  }
  STRAND_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  STRAND_CUDA_CHECK(cudaEventRecord(done, stream_));
  // Later work on strand's stream (the optimizer step) must wait for the reduced values.
  STRAND_CUDA_CHECK(cudaStreamWaitEvent(compute, done, 0));
  return std::make_unique<NcclWork>(this, done, tensor, what);
}

std::unique_ptr<Work> NcclCommunicator::all_reduce_async(Tensor& tensor, ReduceOp op,
                                                         std::string what) {
  return launch(tensor, what, true, op == ReduceOp::kAverage ? ncclAvg : ncclSum, 0);
}

std::unique_ptr<Work> NcclCommunicator::broadcast_async(Tensor& tensor, int root,
                                                        std::string what) {
  return launch(tensor, what, false, ncclSum, root);
}

void NcclCommunicator::barrier() {
  cuda::count_host_sync();
  STRAND_CUDA_CHECK(cudaStreamSynchronize(stream_));
  bootstrap_->barrier();
}

std::vector<double> NcclCommunicator::all_gather(std::span<const double> values) {
  return bootstrap_->all_gather(values);
}

void NcclCommunicator::abort(const std::string& reason, int exit_code) {
  if (comm_ != nullptr && !aborted_) {
    ncclCommAbort(comm_);
    aborted_ = true;
  }
  bootstrap_->abort(reason, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

namespace {
// Registered when the CUDA module is loaded: make_strategy_from_environment builds a CUDA rank's
// communicator through make_device_communicator (dist/device_communicator.h).
const bool kNcclRegistered = [] {
  register_device_communicator(
      DeviceType::kCUDA,
      [](std::shared_ptr<Communicator> bootstrap, Device device,
         const CommunicatorOptions& options) -> std::shared_ptr<Communicator> {
        return std::make_shared<NcclCommunicator>(std::move(bootstrap), device, options);
      });
  return true;
}();
}  // namespace

}  // namespace strand::dist

#endif  // STRAND_WITH_NCCL
