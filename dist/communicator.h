// Communicator: the collectives data-parallel training needs (all-reduce, broadcast, barrier,
// all-gather), behind one interface with MPI (CPU tensors), NCCL (CUDA tensors) and
// single-process backends. Every wait is bounded by a timeout so a dead or hung peer turns
// into a clear error instead of a job that hangs forever.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace strand::dist {

/// A failed collective (an MPI/NCCL error code, a timeout, a peer that gave up).
class DistError : public Error {
 public:
  using Error::Error;
};

enum class ReduceOp { kSum, kAverage };

/// The exit code of a job aborted by the wait watchdog (distinct from `timeout`'s 124).
inline constexpr int kWatchdogExitCode = 86;

struct CommunicatorOptions {
  /// How long any single wait may take before the job is declared stuck. A step's collectives
  /// finish in milliseconds; minutes mean a peer died or hangs.
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  /// On timeout (or an asynchronous backend error) abort every rank of the job (MPI_Abort /
  /// ncclCommAbort) after printing the reason. Without it the wait throws DistError, which
  /// leaves the communicator unusable: only tests that then exit should turn it off.
  bool abort_on_timeout = true;
  /// MPI backend: drive MPI's progress engine from a helper thread while non-blocking
  /// collectives are in flight. Open MPI moves a non-blocking collective forward only inside
  /// MPI calls; without the thread a gradient all-reduce barely advances while backward
  /// computes, and nearly all of it is left for the final wait. Needs MPI_THREAD_MULTIPLE;
  /// when MPI does not provide it, waits fall back to polling from the calling thread.
  bool progress_thread = true;
  /// Pause between the helper thread's polls while the training thread computes (it polls
  /// without pausing while a thread is blocked waiting for a result). Shorter moves messages
  /// sooner but takes more CPU time from the compute threads.
  std::chrono::microseconds progress_interval{50};
};

/// An operation in flight. wait() must be called (or the Work destroyed, which waits) before
/// the tensor it works on is read or freed.
class Work {
 public:
  virtual ~Work() = default;
  /// True when the operation has finished (drives progress; never blocks).
  virtual bool test() = 0;
  /// Blocks until the operation has finished, at most the communicator's timeout.
  virtual void wait() = 0;
  /// True when work queued later on the device stream of the tensor already runs after this
  /// operation (NCCL: strand's stream waits for it on the device), so the host need not wait
  /// before queueing that work; wait() then only confirms the end (and bounds it by the
  /// timeout), and may come later. False (MPI on host memory): wait() before using the tensor.
  virtual bool device_ordered() const { return false; }
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  /// The rank's index among the ranks on its host: the GPU it drives (0 in one process).
  virtual int local_rank() const { return 0; }
  /// "mpi", "nccl" or "single".
  virtual std::string backend() const = 0;

  /// Starts an in-place all-reduce of a contiguous float32/float64 tensor. `what` names the
  /// operation in timeout messages (e.g. "gradient bucket 3").
  virtual std::unique_ptr<Work> all_reduce_async(Tensor& tensor, ReduceOp op, std::string what) = 0;
  /// Starts an in-place broadcast of a contiguous tensor from `root`.
  virtual std::unique_ptr<Work> broadcast_async(Tensor& tensor, int root, std::string what) = 0;
  virtual void barrier() = 0;
  /// Every rank's `values`, concatenated in rank order (lengths may differ between ranks).
  virtual std::vector<double> all_gather(std::span<const double> values) = 0;

  /// Prints `reason` and terminates every rank of the job (MPI_Abort); never returns. Called
  /// when this rank fails while its peers may be blocked in a collective.
  [[noreturn]] virtual void abort(const std::string& reason, int exit_code = 1) = 0;

  void all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::kSum, std::string what = "all_reduce") {
    all_reduce_async(tensor, op, std::move(what))->wait();
  }
  void broadcast(Tensor& tensor, int root = 0, std::string what = "broadcast") {
    broadcast_async(tensor, root, std::move(what))->wait();
  }
  /// Element-wise sum of small host vectors (metric sums and counts).
  std::vector<double> sum(std::vector<double> values);
  bool is_chief() const { return rank() == 0; }
};

/// True inside a job started by mpirun/mpiexec (or another PMI launcher): the launcher's
/// environment variables are set. Needs no MPI library.
bool launched_by_mpi();

/// Throws when this process is one task of a Slurm job step of several tasks (`srun -n N`,
/// SLURM_STEP_NUM_TASKS > 1) while MPI counts `world_size` 1: srun without a PMI plugin that
/// both Slurm and Open MPI speak starts N unrelated single-process runs, which would all train
/// into the same run directory. Passes when a launcher itself says the world has one rank
/// (OMPI_COMM_WORLD_SIZE or PMI_SIZE 1: `mpirun -np 1` inside an allocation).
void check_not_a_lone_slurm_task(int world_size);

/// "[rank r/N] " for messages, so interleaved output of several ranks stays attributable.
std::string rank_prefix(const Communicator& communicator);

}  // namespace strand::dist
