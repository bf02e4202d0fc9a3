// Batch: one batch of encoded sequences, labels and per-base signal tracks, in a single
// allocation from a pluggable allocator (so a CUDA backend can hand out pinned host memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace strand::data {

/// Allocation hook for batch buffers. allocate(bytes) must return memory aligned to at least
/// 64 bytes (or throw); release(ptr, bytes) frees it. Empty functions mean the default
/// (aligned operator new/delete).
struct BatchAllocator {
  /// Returns `bytes` bytes aligned to >= 64 (or throws); empty: aligned operator new.
  std::function<void*(size_t)> allocate;
  /// Frees what allocate() returned, given the same size; empty: aligned operator delete.
  std::function<void(void*, size_t)> release;
};

/// A plain batch. All arrays are contiguous, row-major, and owned by `storage`.
struct Batch {
  int64_t size = 0;                 ///< B (the last batch of an epoch may be smaller)
  int64_t length = 0;               ///< L
  int64_t num_targets = 0;          ///< T
  uint64_t epoch = 0;               ///< the epoch whose plan this batch belongs to
  int64_t step = 0;                 ///< batch number within the epoch for this rank
  uint8_t* codes = nullptr;         ///< (B, L) base codes 0..4
  float* labels = nullptr;          ///< (B, T); 0.0 where label_mask is 0
  uint8_t* label_mask = nullptr;    ///< (B, T) 1 = valid label, 0 = ambiguous
  uint8_t* lower_mask = nullptr;    ///< (B, L) 1 = soft-masked base; null unless requested
  int64_t* sample_index = nullptr;  ///< (B) index of each row in the source
  uint8_t* reverse = nullptr;       ///< (B) 1 where the row was reverse complemented
  int64_t profile_tracks = 0;       ///< S: per-base target tracks (0: none)
  int64_t profile_length = 0;       ///< Lp: the centred output window of each sample (Lp <= L)
  float* profile = nullptr;         ///< (B, S, Lp) per-base counts; null when S == 0
  int64_t control_tracks = 0;       ///< Sc: per-base control tracks, a model input (0: none)
  float* control = nullptr;         ///< (B, Sc, L) per-base control signal over the input window
  std::shared_ptr<void> storage;    ///< owns every array above
};

/// The per-base signal arrays of a batch (SequenceSource::profile_tracks() and friends).
struct SignalSizes {
  int64_t profile_tracks = 0;  ///< S (0: no profile array)
  int64_t profile_length = 0;  ///< Lp
  int64_t control_tracks = 0;  ///< Sc (0: no control array)
};

/// Allocates a batch with room for B rows through `allocator`, with profile (B, S, Lp) and
/// control (B, Sc, L) arrays when `signals` asks for them.
Batch allocate_batch(int64_t batch_size, int64_t length, int64_t num_targets, bool lower_mask,
                     const BatchAllocator& allocator = {}, const SignalSizes& signals = {});

}  // namespace strand::data
