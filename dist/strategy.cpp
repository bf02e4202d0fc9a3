// StrategyBase and the launch-environment factory.
#include "dist/strategy.h"

#include <fmt/format.h>

#include <cstdlib>

#include "dist/device_communicator.h"
#include "dist/mirrored_strategy.h"
#ifdef STRAND_WITH_MPI
#include "dist/mpi_communicator.h"
#endif
#include "dist/parameter_averaging.h"
#include "dist/single_process_communicator.h"

namespace strand::dist {

StrategyBase::StrategyBase(std::shared_ptr<Communicator> communicator)
    : communicator_(std::move(communicator)) {
  STRAND_CHECK(communicator_ != nullptr, "a distributed strategy needs a communicator");
}

std::vector<double> StrategyBase::sum(std::vector<double> values) {
  return communicator_->sum(std::move(values));
}

std::vector<double> StrategyBase::all_gather(std::span<const double> values) {
  return communicator_->all_gather(values);
}

void StrategyBase::on_local_failure(const std::string& what) {
  if (communicator_->world_size() > 1) abort_job(*communicator_, what);
}

void StrategyBase::broadcast_parameters(const std::vector<Var>& parameters) {
  std::vector<std::unique_ptr<Work>> pending;
  std::vector<std::pair<Var, Tensor>> staged;  // non-contiguous values go through a copy
  for (size_t i = 0; i < parameters.size(); ++i) {
    Var parameter = parameters[i];
    Tensor& value = parameter.mutable_value();
    Tensor target = value.is_contiguous() ? value : value.contiguous();
    pending.push_back(communicator_->broadcast_async(
        target, 0,
        fmt::format("initial parameter broadcast ({} of {})", i + 1, parameters.size())));
    if (!value.is_contiguous()) staged.emplace_back(parameter, target);
  }
  for (auto& work : pending) work->wait();
  for (auto& [parameter, copy] : staged) parameter.mutable_value().copy_(copy);
}

void abort_job(Communicator& communicator, const std::string& what) {
  communicator.abort(
      fmt::format("{}failed: {}; aborting every rank of the job", rank_prefix(communicator), what));
}

DistributedRun make_strategy_from_environment(StrategyConfig config) {
  if (const char* timeout = std::getenv("STRAND_DIST_TIMEOUT_S")) {
    config.communicator.timeout =
        std::chrono::milliseconds(static_cast<int64_t>(std::atof(timeout) * 1000.0));
  }
  if (const char* progress = std::getenv("STRAND_MPI_PROGRESS")) {
    config.communicator.progress_thread = std::string(progress) != "0";
  }
  if (const char* interval = std::getenv("STRAND_MPI_PROGRESS_US")) {
    config.communicator.progress_interval = std::chrono::microseconds(std::atoll(interval));
  }
  DistributedRun run;
  run.device = config.device;
  if (launched_by_mpi()) {
#ifdef STRAND_WITH_MPI
    auto mpi = std::make_shared<MpiCommunicator>(config.communicator);
    if (config.device.is_cuda()) {
      // One GPU per rank, the same one for the rank's tensors and its NCCL communicator (the
      // CUDA module's, loaded here if no tensor has loaded it yet).
      run.device = device_for_rank(config.device, mpi->local_rank());
      run.communicator = make_device_communicator(mpi, run.device, config.communicator);
    } else {
      run.communicator = mpi;
    }
#else
    throw Error(
        "this process was started by an MPI launcher, but this strand was built without MPI "
        "(-DSTRAND_MPI=OFF): run it without mpirun, or rebuild with -DSTRAND_MPI=ON");
#endif
  } else {
    run.communicator = std::make_shared<SingleProcessCommunicator>();
  }
  run.rank = run.communicator->rank();
  run.world_size = run.communicator->world_size();
  check_not_a_lone_slurm_task(run.world_size);
  if (run.world_size == 1) return run;
  if (config.mode == "mirrored") {
    MirroredOptions options;
    options.bucket_bytes = config.bucket_bytes;
    run.strategy = std::make_unique<MirroredStrategy>(run.communicator, options);
  } else if (config.mode == "averaging") {
    ParameterAveragingOptions options;
    options.average_every = config.average_every;
    options.average_optimizer_state = config.average_optimizer_state;
    run.strategy = std::make_unique<ParameterAveraging>(run.communicator, options);
  } else {
    throw Error(
        fmt::format("unknown data-parallel mode '{}': use 'mirrored' or 'averaging'", config.mode));
  }
  return run;
}

}  // namespace strand::dist
