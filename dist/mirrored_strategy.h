// MirroredStrategy: synchronous data parallelism. Every rank holds the same parameters, trains
// on its own shard, and before each optimizer step the gradients are averaged over ranks.
// Gradients are grouped into buckets in reverse parameter order (the order backward produces
// them); a bucket's all-reduce starts, asynchronously, as soon as its last gradient is final
// (Var grad-ready hooks), so communication overlaps the rest of the backward pass.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "dist/strategy.h"

namespace strand::dist {

struct MirroredOptions {
  /// Target bucket size: bigger buckets mean fewer, more efficient all-reduces; smaller ones
  /// start earlier and hide more of the communication behind backward.
  int64_t bucket_bytes = int64_t{25} << 20;
  /// Start from rank 0's parameters (off only when every rank is known to hold them).
  bool broadcast_initial_parameters = true;
};

/// Where communication time went (accumulated over steps).
struct MirroredStats {
  int64_t steps = 0;
  /// Time finish_gradients() blocked: communication not hidden behind backward. With NCCL the
  /// step's own all-reduces are waited for on the device (strand's stream waits for them), and
  /// the host confirms them one step later, bounded by the communicator's timeout: this is then
  /// the time those confirmations blocked.
  double exposed_wait_seconds = 0.0;
  /// Buckets whose all-reduce was started by a hook during backward (the rest start in
  /// finish_gradients: buckets holding a parameter this rank's graph did not reach).
  int64_t buckets_started_in_backward = 0;
  int64_t buckets_started = 0;
  int64_t bytes_reduced = 0;
  /// Bytes whose all-reduce had already finished when finish_gradients() was entered: the
  /// communication that overlapped backward, measured without the skew between ranks that
  /// exposed_wait_seconds also contains (a rank that arrives first waits for the others).
  int64_t bytes_done_before_wait = 0;
};

class MirroredStrategy : public StrategyBase {
 public:
  MirroredStrategy(std::shared_ptr<Communicator> communicator, MirroredOptions options = {});
  ~MirroredStrategy() override;
  MirroredStrategy(const MirroredStrategy&) = delete;
  MirroredStrategy& operator=(const MirroredStrategy&) = delete;

  /// Broadcasts rank 0's parameters and attaches to the optimizer's parameters.
  void on_train_begin(const std::vector<Var>& parameters, Optimizer& optimizer) override;
  void before_backward() override;
  /// Starts the buckets still waiting and makes the averaged gradients the parameters'. With a
  /// device-ordered backend (NCCL) the host does not wait for this step's all-reduces: the
  /// device does, and the host confirms them in the next step's finish_gradients (so a dead
  /// peer still ends in the timeout before any later host read could hang on it).
  void finish_gradients() override;
  /// Confirms the last step's all-reduces (bounded by the timeout).
  void on_epoch_end() override;
  void on_train_end() override;

  /// Plans the buckets over `parameters` and installs the grad-ready hooks (for loops written
  /// without fit(): call before_backward() before and finish_gradients() after each backward).
  void attach(const std::vector<Var>& parameters);
  /// Removes the hooks (this clears every grad-ready hook of those parameters).
  void detach();

  /// Parameter indices (into the attached list) of each bucket, in launch order.
  std::vector<std::vector<size_t>> bucket_layout() const;
  const MirroredStats& stats() const { return stats_; }
  void reset_stats() { stats_ = {}; }

 private:
  struct Slot {
    size_t parameter = 0;  // index into parameters_
    int64_t offset = 0;    // elements into the bucket buffer
    int64_t numel = 0;
  };
  struct Bucket {
    std::vector<Slot> slots;
    Tensor buffer;  // packed gradients, reduced in place
    int64_t ready = 0;
    bool started = false;
    std::unique_ptr<Work> work;
    // The previous step's all-reduce of a device-ordered backend, confirmed by the host in the
    // next finish_gradients().
    std::unique_ptr<Work> previous;
  };

  void on_gradient_ready(size_t bucket, const Var& leaf);
  void start_ready_buckets(bool in_backward);
  void start(size_t bucket, bool in_backward);
  // Waits (host, bounded) for the previous step's device-ordered all-reduces.
  void confirm_previous();

  MirroredOptions options_;
  std::vector<Var> parameters_;
  std::vector<Bucket> buckets_;
  size_t next_to_start_ = 0;
  bool armed_ = false;
  MirroredStats stats_;
};

}  // namespace strand::dist
