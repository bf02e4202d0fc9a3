// Helpers shared by every Communicator backend.
#include "dist/communicator.h"

#include <fmt/format.h>

#include <cstdlib>

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

std::string rank_prefix(const Communicator& communicator) {
  return fmt::format("[rank {}/{}] ", communicator.rank(), communicator.world_size());
}

}  // namespace strand::dist
