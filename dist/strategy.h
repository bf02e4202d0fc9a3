// The pieces every data-parallel strategy shares (a communicator, metric reductions, failing
// the whole job when one rank fails), and the factory the CLI calls to pick the backend from
// the launch environment.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dist/communicator.h"
#include "dist/distributed_strategy.h"

namespace strand::dist {

class StrategyBase : public DistributedStrategy {
 public:
  explicit StrategyBase(std::shared_ptr<Communicator> communicator);
  int rank() const override { return communicator_->rank(); }
  int world_size() const override { return communicator_->world_size(); }
  std::vector<double> sum(std::vector<double> values) override;
  std::vector<double> all_gather(std::span<const double> values) override;
  void on_local_failure(const std::string& what) override;
  Communicator& communicator() { return *communicator_; }

  /// Copies rank 0's values into `parameters` on every rank (same order everywhere).
  void broadcast_parameters(const std::vector<Var>& parameters);

 protected:
  std::shared_ptr<Communicator> communicator_;
};

struct StrategyConfig {
  /// "mirrored" (gradients all-reduced every step) or "averaging" (local steps, parameters
  /// averaged every average_every steps).
  std::string mode = "mirrored";
  int64_t bucket_bytes = int64_t{25} << 20;
  int64_t average_every = 8;
  bool average_optimizer_state = false;
  CommunicatorOptions communicator;
  /// Where parameters and gradients live: CUDA runs all-reduce with NCCL (one GPU per rank,
  /// bootstrapped over MPI), CPU runs with MPI. For CUDA under mpirun, the first GPU of the
  /// host's ranks: local rank r uses ordinal device.index + r.
  Device device = Device::cpu();
};

/// What a training program needs to run data-parallel.
struct DistributedRun {
  std::shared_ptr<Communicator> communicator;
  /// Null in a single process: fit() then runs its plain loop.
  std::unique_ptr<DistributedStrategy> strategy;
  int rank = 0;
  int world_size = 1;
  /// Where this rank's model lives: the configured device, or for a CUDA run under mpirun the
  /// rank's own GPU (configured ordinal + local rank), the one its NCCL communicator uses.
  Device device = Device::cpu();
  /// Only the chief writes logs, TensorBoard events and checkpoints.
  bool is_chief() const { return rank == 0; }
};

/// Under mpirun/mpiexec (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK, ... set): an MPI
/// communicator and the configured strategy; otherwise a single-process run. Environment
/// variables override config.communicator: STRAND_DIST_TIMEOUT_S (timeout, seconds),
/// STRAND_MPI_PROGRESS=0 (no progress thread) and STRAND_MPI_PROGRESS_US (its poll interval).
DistributedRun make_strategy_from_environment(StrategyConfig config = {});

/// The rank that failed prints `what` and ends every rank (MPI_Abort); does not return.
void abort_job(Communicator& communicator, const std::string& what);

}  // namespace strand::dist
