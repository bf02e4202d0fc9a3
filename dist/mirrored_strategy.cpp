// Bucketed, overlapped gradient all-reduce.
#include "dist/mirrored_strategy.h"

#include <fmt/format.h>

namespace strand::dist {
namespace {

// The slice of `buffer` that holds `numel` elements from `offset`, shaped like `shape`.
Tensor view_of(const Tensor& buffer, int64_t offset, int64_t numel, const Shape& shape) {
  return buffer.slice(0, offset, offset + numel).reshape(shape);
}

}  // namespace

MirroredStrategy::MirroredStrategy(std::shared_ptr<Communicator> communicator,
                                   MirroredOptions options)
    : StrategyBase(std::move(communicator)), options_(options) {
  STRAND_CHECK(options_.bucket_bytes > 0, "MirroredStrategy: bucket_bytes must be positive, got {}",
               options_.bucket_bytes);
}

MirroredStrategy::~MirroredStrategy() {
  // In-flight reductions write into bucket buffers; they finish (Work's destructor waits)
  // before the buffers go, and the hooks must not outlive `this`.
  detach();
}

void MirroredStrategy::on_train_begin(const std::vector<Var>& parameters, Optimizer& optimizer) {
  if (options_.broadcast_initial_parameters) broadcast_parameters(parameters);
  attach(optimizer.parameters());
}

void MirroredStrategy::attach(const std::vector<Var>& parameters) {
  detach();
  parameters_ = parameters;
  // Reverse order: backward finalises the last layer's gradients first. A bucket holds one
  // dtype and one device, so it can be reduced as a single packed buffer.
  std::vector<std::vector<size_t>> groups;
  int64_t bytes_in_group = 0;
  for (size_t k = parameters_.size(); k-- > 0;) {
    const Var& parameter = parameters_[k];
    if (!parameter.requires_grad()) continue;
    const int64_t bytes =
        parameter.value().numel() * static_cast<int64_t>(dtype_size(parameter.dtype()));
    const bool fits = !groups.empty() && bytes_in_group + bytes <= options_.bucket_bytes;
    const bool same_kind = !groups.empty() &&
                           parameters_[groups.back().front()].dtype() == parameter.dtype() &&
                           parameters_[groups.back().front()].device() == parameter.device();
    if (!fits || !same_kind) {
      groups.emplace_back();
      bytes_in_group = 0;
    }
    groups.back().push_back(k);
    bytes_in_group += bytes;
  }
  buckets_.clear();
  buckets_.resize(groups.size());
  for (size_t b = 0; b < groups.size(); ++b) {
    Bucket& bucket = buckets_[b];
    int64_t offset = 0;
    for (size_t k : groups[b]) {
      const int64_t numel = parameters_[k].value().numel();
      bucket.slots.push_back({k, offset, numel});
      offset += numel;
    }
    const Var& first = parameters_[groups[b].front()];
    bucket.buffer = Tensor::zeros({offset}, first.dtype(), first.device());
    for (size_t k : groups[b]) {
      parameters_[k].add_grad_ready_hook([this, b](Var& leaf) { on_gradient_ready(b, leaf); });
    }
  }
}

void MirroredStrategy::detach() {
  for (Bucket& bucket : buckets_) {
    bucket.previous.reset();
    bucket.work.reset();
  }
  for (Var& parameter : parameters_) parameter.clear_grad_ready_hooks();
  buckets_.clear();
  parameters_.clear();
  armed_ = false;
}

std::vector<std::vector<size_t>> MirroredStrategy::bucket_layout() const {
  std::vector<std::vector<size_t>> layout;
  for (const Bucket& bucket : buckets_) {
    layout.emplace_back();
    for (const Slot& slot : bucket.slots) layout.back().push_back(slot.parameter);
  }
  return layout;
}

void MirroredStrategy::before_backward() {
  STRAND_CHECK(!buckets_.empty() || parameters_.empty(),
               "MirroredStrategy: attach() the parameters (fit does it in on_train_begin)");
  for (Bucket& bucket : buckets_) {
    bucket.ready = 0;
    bucket.started = false;
    bucket.work.reset();
  }
  next_to_start_ = 0;
  armed_ = true;
}

void MirroredStrategy::on_gradient_ready(size_t bucket_index, const Var&) {
  if (!armed_) return;  // a backward outside training (e.g. a gradient check) stays local
  Bucket& bucket = buckets_[bucket_index];
  STRAND_CHECK(!bucket.started,
               "MirroredStrategy: a gradient arrived after its bucket was reduced; accumulating "
               "several backward passes per step needs finish_gradients() after each");
  ++bucket.ready;
  start_ready_buckets(true);
  // MPI progresses non-blocking collectives only inside MPI calls. The MPI communicator's
  // progress thread does that in the background; without one (no MPI_THREAD_MULTIPLE),
  // testing the buckets in flight here is what keeps them moving while backward continues.
  // With the thread, test() only reads a flag.
  for (size_t b = 0; b < next_to_start_; ++b) {
    if (buckets_[b].work) buckets_[b].work->test();
  }
}

void MirroredStrategy::start_ready_buckets(bool in_backward) {
  // Collectives must be issued in the same order on every rank: buckets start strictly in
  // index order, even if a later one happens to be complete first.
  while (next_to_start_ < buckets_.size() &&
         buckets_[next_to_start_].ready ==
             static_cast<int64_t>(buckets_[next_to_start_].slots.size())) {
    start(next_to_start_++, in_backward);
  }
}

void MirroredStrategy::start(size_t bucket_index, bool in_backward) {
  Bucket& bucket = buckets_[bucket_index];
  for (const Slot& slot : bucket.slots) {
    const Var& parameter = parameters_[slot.parameter];
    Tensor target = view_of(bucket.buffer, slot.offset, slot.numel, parameter.shape());
    // A parameter this rank's graph did not reach contributes zeros; other ranks' gradients
    // for it still arrive.
    if (parameter.grad().defined()) {
      target.copy_(parameter.grad());
    } else {
      target.zero_();
    }
  }
  bucket.started = true;
  bucket.work = communicator_->all_reduce_async(
      bucket.buffer, ReduceOp::kAverage,
      fmt::format("gradient bucket {} of {} ({} parameters)", bucket_index + 1, buckets_.size(),
                  bucket.slots.size()));
  ++stats_.buckets_started;
  if (in_backward) ++stats_.buckets_started_in_backward;
  stats_.bytes_reduced +=
      bucket.buffer.numel() * static_cast<int64_t>(dtype_size(bucket.buffer.dtype()));
}

void MirroredStrategy::confirm_previous() {
  for (Bucket& bucket : buckets_) {
    if (bucket.previous) {
      bucket.previous->wait();
      bucket.previous.reset();
    }
  }
}

void MirroredStrategy::on_epoch_end() { confirm_previous(); }

void MirroredStrategy::on_train_end() { confirm_previous(); }

void MirroredStrategy::finish_gradients() {
  STRAND_CHECK(armed_, "MirroredStrategy: finish_gradients() without before_backward()");
  const auto start_time = std::chrono::steady_clock::now();
  // Buckets whose gradients never all arrived (unused parameters, or the first layer's bucket
  // that completes as backward ends) start now, in order.
  for (Bucket& bucket : buckets_) {
    if (bucket.work && bucket.work->test()) {
      stats_.bytes_done_before_wait +=
          bucket.buffer.numel() * static_cast<int64_t>(dtype_size(bucket.buffer.dtype()));
    }
  }
  while (next_to_start_ < buckets_.size()) start(next_to_start_++, false);
  // The last step's all-reduces have had a whole step to finish: confirming them now keeps
  // the watchdog on every collective without making the host wait for this step's.
  confirm_previous();
  for (Bucket& bucket : buckets_) {
    if (bucket.work->device_ordered()) {
      // strand's stream already waits for it: the copies below are ordered after it.
      bucket.previous = std::move(bucket.work);
    } else {
      bucket.work->wait();  // host memory: the copies below read the reduced values now
    }
  }
  stats_.exposed_wait_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
  for (Bucket& bucket : buckets_) {
    for (const Slot& slot : bucket.slots) {
      Var& parameter = parameters_[slot.parameter];
      const Tensor averaged = view_of(bucket.buffer, slot.offset, slot.numel, parameter.shape());
      if (parameter.grad().defined() && parameter.grad().is_contiguous()) {
        Tensor grad = parameter.grad();  // shares the gradient's storage
        grad.copy_(averaged);
      } else {
        parameter.set_grad(averaged.clone());
      }
    }
    bucket.work.reset();
  }
  ++stats_.steps;
  armed_ = false;
}

}  // namespace strand::dist
