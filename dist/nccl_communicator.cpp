// NCCL backend: collectives on a dedicated stream, bounded waits, abort on failure.
#include "dist/nccl_communicator.h"

#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dist/mpi_check.h"
#include "dist/wait_policy.h"

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

// The rank's index among the ranks on its host: the GPU it drives.
int local_rank(MPI_Comm comm) {
  MPI_Comm local = MPI_COMM_NULL;
  STRAND_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local));
  int rank = 0;
  STRAND_MPI_CHECK(MPI_Comm_rank(local, &rank));
  STRAND_MPI_CHECK(MPI_Comm_free(&local));
  return rank;
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
    communicator_->wait_for(done_, what_);
    finished_ = true;
  }

 private:
  NcclCommunicator* communicator_;
  cudaEvent_t done_;
  Tensor tensor_;  // keeps the buffer alive while NCCL writes into it
  std::string what_;
  bool finished_ = false;
};

}  // namespace

NcclCommunicator::NcclCommunicator(std::shared_ptr<MpiCommunicator> bootstrap, int device,
                                   CommunicatorOptions options)
    : bootstrap_(std::move(bootstrap)), options_(options) {
  STRAND_CHECK(bootstrap_ != nullptr, "NcclCommunicator: needs the MPI communicator of the job");
  device_ = device >= 0 ? device : local_rank(bootstrap_->comm());
  int devices = 0;
  STRAND_CUDA_CHECK(cudaGetDeviceCount(&devices));
  STRAND_CHECK(device_ < devices,
               "{}NcclCommunicator: GPU {} requested but this host has {}: start at most one "
               "rank per GPU on each host",
               rank_prefix(*bootstrap_), device_, devices);
  STRAND_CUDA_CHECK(cudaSetDevice(device_));
  STRAND_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  ncclUniqueId id;
  if (bootstrap_->rank() == 0) STRAND_NCCL_CHECK(ncclGetUniqueId(&id));
  Tensor id_bytes = Tensor::empty({static_cast<int64_t>(sizeof(id))}, DType::kUInt8);
  std::memcpy(id_bytes.raw_data(), &id, sizeof(id));
  bootstrap_->broadcast(id_bytes, 0, "NCCL unique id broadcast");
  std::memcpy(&id, id_bytes.raw_data(), sizeof(id));
  // Non-blocking initialisation, so a peer that never joins ends in a timeout, not a hang.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  const ncclResult_t init =
      ncclCommInitRankConfig(&comm_, bootstrap_->world_size(), id, bootstrap_->rank(), &config);
  if (init != ncclInProgress) STRAND_NCCL_CHECK(init);
  WaitPolicy policy(options_.timeout);
  ncclResult_t state = ncclInProgress;
  while (state == ncclInProgress) {
    STRAND_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
    if (state == ncclInProgress && policy.expired()) {
      ncclCommAbort(comm_);
      aborted_ = true;
      abort(fmt::format("{}timed out after {:.1f} s creating the NCCL communicator",
                        rank_prefix(*this), policy.elapsed_seconds()),
            kWatchdogExitCode);
    }
    if (state == ncclInProgress) policy.pause();
  }
  STRAND_NCCL_CHECK(state);
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_ != nullptr && !aborted_) ncclCommDestroy(comm_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void NcclCommunicator::check_async_error(const std::string& what) {
  ncclResult_t state = ncclSuccess;
  STRAND_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
  if (state == ncclSuccess || state == ncclInProgress) return;
  ncclCommAbort(comm_);
  aborted_ = true;
  const std::string message = fmt::format("{}NCCL failed during {}: {}", rank_prefix(*this), what,
                                          ncclGetErrorString(state));
  if (options_.abort_on_timeout) abort(message + "; aborting the job", 1);
  throw DistError(message);
}

void NcclCommunicator::wait_for(cudaEvent_t done, const std::string& what) {
  WaitPolicy policy(options_.timeout);
  while (true) {
    const cudaError_t state = cudaEventQuery(done);
    if (state == cudaSuccess) return;
    if (state != cudaErrorNotReady) STRAND_CUDA_CHECK(state);
    check_async_error(what);
    if (policy.expired()) {
      ncclCommAbort(comm_);
      aborted_ = true;
      const std::string message = fmt::format(
          "{}timed out after {:.1f} s waiting for {} (nccl): another rank has died, failed or "
          "hangs",
          rank_prefix(*this), policy.elapsed_seconds(), what);
      if (options_.abort_on_timeout) abort(message + "; aborting the job", kWatchdogExitCode);
      throw DistError(message);
    }
    policy.pause();
  }
}

std::unique_ptr<Work> NcclCommunicator::launch(Tensor& tensor, const std::string& what, bool reduce,
                                               ncclRedOp_t op, int root) {
  STRAND_CHECK(tensor.defined() && tensor.is_contiguous() && tensor.device().is_cuda(),
               "{}: the NCCL backend needs a contiguous CUDA tensor, got {}", what,
               tensor.describe());
  STRAND_CHECK(aborted_ == false, "{}: the NCCL communicator was aborted", what);
  // The collective must see everything the compute stream wrote into the tensor.
  cudaEvent_t ready = nullptr, done = nullptr;
  STRAND_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  STRAND_CUDA_CHECK(cudaEventRecord(ready, cudaStreamLegacy));
  STRAND_CUDA_CHECK(cudaStreamWaitEvent(stream_, ready, 0));
  STRAND_CUDA_CHECK(cudaEventDestroy(ready));
  void* data = tensor.raw_data();
  if (reduce) {
    STRAND_NCCL_CHECK(ncclAllReduce(data, data, static_cast<size_t>(tensor.numel()),
                                    nccl_float_type(tensor), op, comm_, stream_));
  } else {
    const size_t bytes = static_cast<size_t>(tensor.numel()) * dtype_size(tensor.dtype());
    STRAND_NCCL_CHECK(ncclBroadcast(data, data, bytes, ncclUint8, root, comm_, stream_));
  }
  STRAND_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  STRAND_CUDA_CHECK(cudaEventRecord(done, stream_));
  // Later compute (the optimizer step) must wait for the reduced values.
  STRAND_CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, done, 0));
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

}  // namespace strand::dist

#endif  // STRAND_WITH_CUDA && STRAND_WITH_NCCL
