// The one-rank backend: collectives check their arguments and otherwise do nothing.
#include "dist/single_process_communicator.h"

#include <cstdio>
#include <cstdlib>

namespace strand::dist {
namespace {

class DoneWork : public Work {
 public:
  bool test() override { return true; }
  void wait() override {}
};

}  // namespace

std::unique_ptr<Work> SingleProcessCommunicator::all_reduce_async(Tensor& tensor, ReduceOp,
                                                                  std::string) {
  // The same argument rules as the real backends, so a mistake shows up in one process too.
  STRAND_CHECK(tensor.defined() && is_floating(tensor.dtype()),
               "all_reduce: only float32/float64 tensors, got {}",
               tensor.defined() ? tensor.describe() : std::string("an undefined tensor"));
  return std::make_unique<DoneWork>();
}

std::unique_ptr<Work> SingleProcessCommunicator::broadcast_async(Tensor& tensor, int root,
                                                                 std::string) {
  STRAND_CHECK(tensor.defined(), "broadcast: undefined tensor");
  STRAND_CHECK(root == 0, "broadcast: root {} outside a world of 1", root);
  return std::make_unique<DoneWork>();
}

void SingleProcessCommunicator::abort(const std::string& reason, int exit_code) {
  std::fprintf(stderr, "strand: %s\n", reason.c_str());
  std::fflush(stderr);
  std::exit(exit_code);
}

}  // namespace strand::dist
