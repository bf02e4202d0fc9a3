// MpiCommunicator: collectives over MPI for CPU tensors. Blocking operations are built from
// the non-blocking ones (MPI_Iallreduce, MPI_Ibcast, MPI_Ibarrier, MPI_Iallgather[v]) and a
// polling wait with a deadline: MPI's blocking calls cannot time out, so a dead peer would
// otherwise hang every other rank.
//
// Asynchronous progress: Open MPI (and most MPI libraries without a hardware offload) moves a
// non-blocking collective forward only while some thread is inside an MPI call. A progress
// thread holds the requests of the asynchronous operations (all_reduce_async,
// broadcast_async) and tests them with MPI_Testsome every progress_interval while any is in
// flight and the training thread computes. A thread blocked in Work::wait() polls the same
// requests itself (under the same lock, so a request is never tested by two threads at
// once) while the progress thread stands by. The thread sleeps on a condition variable when
// nothing is in flight, so an idle communicator costs no CPU. It needs MPI_THREAD_MULTIPLE; without
// it (or with CommunicatorOptions::progress_thread off, or STRAND_MPI_PROGRESS=0) every
// request is tested by the thread that waits for it, as before.
#pragma once

// The deprecated MPI C++ bindings are not used; skipping them keeps their warnings out.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <memory>
#include <string>

#include "dist/communicator.h"

namespace strand::dist {

/// Initialises MPI once per process, asking for MPI_THREAD_MULTIPLE (the progress thread
/// calls MPI while the training thread does), and finalises it at exit (stopping progress
/// threads first). Safe to call repeatedly.
void ensure_mpi_initialized();
/// The thread support level MPI provides (MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE);
/// initialises MPI when needed.
int mpi_thread_level();

class MpiCommunicator : public Communicator {
 public:
  /// A duplicate of `parent` (MPI_COMM_WORLD by default; initialises MPI when needed) with
  /// MPI_ERRORS_RETURN set, so errors come back as codes and become DistError.
  explicit MpiCommunicator(CommunicatorOptions options = {}, MPI_Comm parent = MPI_COMM_NULL);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  int local_rank() const override { return local_rank_; }
  std::string backend() const override { return "mpi"; }

  std::unique_ptr<Work> all_reduce_async(Tensor& tensor, ReduceOp op, std::string what) override;
  std::unique_ptr<Work> broadcast_async(Tensor& tensor, int root, std::string what) override;
  void barrier() override;
  std::vector<double> all_gather(std::span<const double> values) override;
  [[noreturn]] void abort(const std::string& reason, int exit_code = 1) override;

  MPI_Comm comm() const { return comm_; }
  const CommunicatorOptions& options() const { return options_; }

  /// Polls `request` until done; past the deadline, aborts the job (or throws DistError when
  /// abort_on_timeout is off) naming `what`.
  void wait_for(MPI_Request& request, const std::string& what);

  /// True when a progress thread drives the asynchronous operations of this communicator.
  bool has_progress_thread() const { return progress_ != nullptr; }
  /// Why there is none ("" when there is one): disabled, or the MPI thread level.
  const std::string& progress_fallback_reason() const { return progress_fallback_reason_; }

  class ProgressEngine;  // the progress thread and the requests it owns (implementation)

 private:
  [[noreturn]] void timed_out(const std::string& what, double elapsed_seconds);
  friend class MpiWork;
  std::unique_ptr<ProgressEngine> progress_;
  std::string progress_fallback_reason_;
  CommunicatorOptions options_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int world_size_ = 1;
  int local_rank_ = 0;  // index among the ranks of this host (MPI_COMM_TYPE_SHARED)
};

}  // namespace strand::dist
