// SingleProcessCommunicator: the world of one rank. Every collective is the identity, so code
// written for data-parallel training runs unchanged (and without MPI) in one process.
#pragma once

#include "dist/communicator.h"

namespace strand::dist {

class SingleProcessCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  std::string backend() const override { return "single"; }
  std::unique_ptr<Work> all_reduce_async(Tensor& tensor, ReduceOp op, std::string what) override;
  std::unique_ptr<Work> broadcast_async(Tensor& tensor, int root, std::string what) override;
  void barrier() override {}
  std::vector<double> all_gather(std::span<const double> values) override {
    return {values.begin(), values.end()};
  }
  [[noreturn]] void abort(const std::string& reason, int exit_code = 1) override;
};

}  // namespace strand::dist
