// Helpers shared by every Communicator backend.
#include "dist/communicator.h"

#include <fmt/format.h>

#include <cstdlib>

#include "core/error.h"

namespace strand::dist {

std::vector<double> Communicator::sum(std::vector<double> values) {
  if (world_size() == 1 || values.empty()) return values;
  Tensor tensor = Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
  all_reduce(tensor, ReduceOp::kSum, "metric sum");
  return tensor.to_vector<double>();
}

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE",
                           "SLURM_NTASKS_PER_NODE_MPI"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

namespace {

// The variable's value as a positive count; 0 when unset or not a number.
long count_from_environment(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && value > 0 ? value : 0;
}

}  // namespace

void check_not_a_lone_slurm_task(int world_size) {
  const long step_tasks = count_from_environment("SLURM_STEP_NUM_TASKS");
  if (world_size != 1 || step_tasks <= 1) return;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"}) {
    if (count_from_environment(name) == 1) return;  // a launcher asked for one rank
  }
  const char* task = std::getenv("SLURM_PROCID");
  throw Error(fmt::format(
      "this process is task {} of {} of a Slurm job step (SLURM_PROCID, SLURM_STEP_NUM_TASKS), "
      "but MPI counts 1 rank: each task would train alone into the same run directory. Launch "
      "the ranks with a PMI plugin that Open MPI supports (srun --mpi=pmix; `srun --mpi=list` "
      "shows what this cluster offers), or with mpirun inside the allocation; for one process, "
      "srun -n 1",
      task != nullptr ? task : "?", step_tasks));
}

std::string rank_prefix(const Communicator& communicator) {
  return fmt::format("[rank {}/{}] ", communicator.rank(), communicator.world_size());
}

}  // namespace strand::dist
