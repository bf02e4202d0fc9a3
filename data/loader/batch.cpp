// allocate_batch: carves every array of a Batch out of one allocator block.
#include "data/loader/batch.h"

#include <new>

namespace strand::data {
namespace {

constexpr size_t kAlign = 64;

size_t round_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

}  // namespace

Batch allocate_batch(int64_t batch_size, int64_t length, int64_t num_targets, bool lower_mask,
                     const BatchAllocator& allocator, const SignalSizes& signals) {
  const auto b = static_cast<size_t>(batch_size);
  const auto l = static_cast<size_t>(length);
  const auto t = static_cast<size_t>(num_targets);
  const auto profile_values = static_cast<size_t>(signals.profile_tracks * signals.profile_length);
  const auto control_values = static_cast<size_t>(signals.control_tracks) * l;
  // Widest element first; each array starts on a 64-byte boundary.
  const size_t index_bytes = round_up(b * sizeof(int64_t));
  const size_t label_bytes = round_up(b * t * sizeof(float));
  const size_t profile_bytes = round_up(b * profile_values * sizeof(float));
  const size_t control_bytes = round_up(b * control_values * sizeof(float));
  const size_t code_bytes = round_up(b * l);
  const size_t mask_bytes = round_up(b * t);
  const size_t reverse_bytes = round_up(b);
  const size_t lower_bytes = lower_mask ? round_up(b * l) : 0;
  const size_t total = index_bytes + label_bytes + profile_bytes + control_bytes + code_bytes +
                       mask_bytes + reverse_bytes + lower_bytes;

  void* block = nullptr;
  Batch batch;
  if (allocator.allocate) {
    block = allocator.allocate(total);
    if (block == nullptr) throw std::bad_alloc();
    auto release = allocator.release;
    batch.storage = std::shared_ptr<void>(block, [release, total](void* p) {
      if (release) release(p, total);
    });
  } else {
    block = ::operator new(total, std::align_val_t(kAlign));
    batch.storage = std::shared_ptr<void>(
        block, [](void* p) { ::operator delete(p, std::align_val_t(kAlign)); });
  }
  auto* base = static_cast<unsigned char*>(block);
  batch.size = batch_size;
  batch.length = length;
  batch.num_targets = num_targets;
  batch.sample_index = reinterpret_cast<int64_t*>(base);
  base += index_bytes;
  batch.labels = reinterpret_cast<float*>(base);
  base += label_bytes;
  batch.profile_tracks = signals.profile_tracks;
  batch.profile_length = signals.profile_length;
  batch.profile = signals.profile_tracks > 0 ? reinterpret_cast<float*>(base) : nullptr;
  base += profile_bytes;
  batch.control_tracks = signals.control_tracks;
  batch.control = signals.control_tracks > 0 ? reinterpret_cast<float*>(base) : nullptr;
  base += control_bytes;
  batch.codes = base;
  base += code_bytes;
  batch.label_mask = base;
  base += mask_bytes;
  batch.reverse = base;
  base += reverse_bytes;
  batch.lower_mask = lower_mask ? base : nullptr;
  return batch;
}

}  // namespace strand::data
