// Helpers shared by every Communicator backend.
#include "dist/communicator.h"

#include <fmt/format.h>

namespace strand::dist {

std::vector<double> Communicator::sum(std::vector<double> values) {
  if (world_size() == 1 || values.empty()) return values;
  Tensor tensor = Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
  all_reduce(tensor, ReduceOp::kSum, "metric sum");
  return tensor.to_vector<double>();
}

std::string rank_prefix(const Communicator& communicator) {
  return fmt::format("[rank {}/{}] ", communicator.rank(), communicator.world_size());
}

}  // namespace strand::dist
