// NcclCommunicator: collectives over NCCL for CUDA tensors, one process per GPU. A host
// communicator (MPI across processes; the single-process one for one rank) carries the
// bootstrap (rank 0's ncclUniqueId) and the host-side metric gathers.
//
// Ordering: a collective waits for an event recorded on strand's own stream of the device (the
// stream every op of the step runs on, non-blocking, so the legacy default stream orders
// nothing against it), and strand's stream waits for the collective before the optimizer step.
//
// The communicator is non-blocking (config.blocking = 0), so a peer that never joins ends in a
// timeout instead of a hang. Any NCCL call may then return ncclInProgress: every call is
// followed by polling ncclCommGetAsyncError against the deadline, and the communicator is
// finalized (ncclCommFinalize, polled the same way) before it is destroyed.
#pragma once

#ifdef STRAND_WITH_NCCL

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>

#include "dist/communicator.h"

namespace strand::dist {

/// Throws DistError "<call> failed at <file>:<line>: <ncclGetErrorString>" on an NCCL error.
void check_nccl(ncclResult_t result, const char* call, const char* file, int line);
/// The same for the CUDA runtime calls the backend makes.
void check_cuda(cudaError_t result, const char* call, const char* file, int line);

class NcclCommunicator : public Communicator {
 public:
  /// Joins the NCCL communicator of every rank of `bootstrap` on GPU `device`: the device the
  /// rank's tensors live on (device_for_rank() picks one per process).
  NcclCommunicator(std::shared_ptr<Communicator> bootstrap, Device device,
                   CommunicatorOptions options = {});
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return bootstrap_->rank(); }
  int world_size() const override { return bootstrap_->world_size(); }
  int local_rank() const override { return bootstrap_->local_rank(); }
  Device device() const { return device_; }
  std::string backend() const override { return "nccl"; }

  std::unique_ptr<Work> all_reduce_async(Tensor& tensor, ReduceOp op, std::string what) override;
  std::unique_ptr<Work> broadcast_async(Tensor& tensor, int root, std::string what) override;
  void barrier() override;
  /// Host values (metrics) go over the bootstrap communicator.
  std::vector<double> all_gather(std::span<const double> values) override;
  [[noreturn]] void abort(const std::string& reason, int exit_code = 1) override;

  /// Polls `done` and the communicator's asynchronous error until the event completes; past
  /// the deadline or on an error, aborts the NCCL communicator and the job (or throws).
  void wait_for(cudaEvent_t done, const std::string& what);
  /// Throws (after ncclCommAbort) when NCCL reports an asynchronous error.
  void check_async_error(const std::string& what);

  /// Test hook: aborts the communicator as a failed peer would (collectives then fail fast).
  void abort_communicator_for_test();

 private:
  /// Polls ncclCommGetAsyncError until the last call on the non-blocking communicator has left
  /// the ncclInProgress state; aborts on an error or past the deadline.
  void complete(ncclResult_t issued, const std::string& what);
  [[noreturn]] void fail(const std::string& message, int exit_code);
  std::unique_ptr<Work> launch(Tensor& tensor, const std::string& what, bool reduce, ncclRedOp_t op,
                               int root);

  std::shared_ptr<Communicator> bootstrap_;
  CommunicatorOptions options_;
  Device device_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;  // collectives run here, ordered after strand's stream
  bool aborted_ = false;
};

}  // namespace strand::dist

#define STRAND_NCCL_CHECK(call) ::strand::dist::check_nccl((call), #call, __FILE__, __LINE__)
#define STRAND_CUDA_CHECK(call) ::strand::dist::check_cuda((call), #call, __FILE__, __LINE__)

#endif  // STRAND_WITH_NCCL
