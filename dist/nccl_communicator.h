// NcclCommunicator: collectives over NCCL for CUDA tensors, one process per GPU. MPI starts
// the processes and carries the bootstrap (rank 0's ncclUniqueId) and the host-side metric
// gathers. NCCL calls cannot time out either, so waits poll a CUDA event and
// ncclCommGetAsyncError with a deadline and call ncclCommAbort on a timeout or an error.
#pragma once

#if defined(STRAND_WITH_CUDA) && defined(STRAND_WITH_NCCL)

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>

#include "dist/mpi_communicator.h"

namespace strand::dist {

/// Throws DistError "<call> failed at <file>:<line>: <ncclGetErrorString>" on an NCCL error.
void check_nccl(ncclResult_t result, const char* call, const char* file, int line);
/// The same for the CUDA runtime calls the backend makes.
void check_cuda(cudaError_t result, const char* call, const char* file, int line);

class NcclCommunicator : public Communicator {
 public:
  /// Joins the NCCL communicator of every rank of `bootstrap` on GPU `device` (-1: the rank's
  /// index among the ranks of its host, i.e. one GPU per process).
  explicit NcclCommunicator(std::shared_ptr<MpiCommunicator> bootstrap, int device = -1,
                            CommunicatorOptions options = {});
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return bootstrap_->rank(); }
  int world_size() const override { return bootstrap_->world_size(); }
  std::string backend() const override { return "nccl"; }

  std::unique_ptr<Work> all_reduce_async(Tensor& tensor, ReduceOp op, std::string what) override;
  std::unique_ptr<Work> broadcast_async(Tensor& tensor, int root, std::string what) override;
  void barrier() override;
  /// Host values (metrics) go over MPI.
  std::vector<double> all_gather(std::span<const double> values) override;
  [[noreturn]] void abort(const std::string& reason, int exit_code = 1) override;

  /// Polls `done` and the communicator's asynchronous error until the event completes; past
  /// the deadline or on an error, aborts the NCCL communicator and the job (or throws).
  void wait_for(cudaEvent_t done, const std::string& what);
  /// Throws (after ncclCommAbort) when NCCL reports an asynchronous error.
  void check_async_error(const std::string& what);

 private:
  std::unique_ptr<Work> launch(Tensor& tensor, const std::string& what, bool reduce, ncclRedOp_t op,
                               int root);

  std::shared_ptr<MpiCommunicator> bootstrap_;
  CommunicatorOptions options_;
  int device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;  // collectives run here, ordered after the compute stream
  bool aborted_ = false;
};

}  // namespace strand::dist

#define STRAND_NCCL_CHECK(call) ::strand::dist::check_nccl((call), #call, __FILE__, __LINE__)
#define STRAND_CUDA_CHECK(call) ::strand::dist::check_cuda((call), #call, __FILE__, __LINE__)

#endif  // STRAND_WITH_CUDA && STRAND_WITH_NCCL
