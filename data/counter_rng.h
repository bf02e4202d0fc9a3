// Counter-based randomness: every draw is a pure function of (seed, epoch, index, ...), so a
// sample's augmentation never depends on thread count or timing.
#pragma once

#include <cstdint>

#include "core/splitmix64.h"

namespace strand::data {

/// Hashes a tuple of counters into one 64-bit key.
inline constexpr uint64_t mix_key(uint64_t seed, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  return splitmix64_hash(splitmix64_hash(splitmix64_hash(splitmix64_hash(seed) ^ a) ^ b) ^ c);
}

/// 128-bit unsigned integer (for CounterRng::below()).
__extension__ using Uint128 = unsigned __int128;

/// A small generator whose whole state comes from one key (e.g. mix_key(seed, epoch, index)).
/// Each sample gets its own instance; nothing is shared between threads.
class CounterRng {
 public:
  /// The generator for `key`; the same key gives the same sequence.
  explicit constexpr CounterRng(uint64_t key) : state_(key) {}

  /// Next 64 random bits.
  constexpr uint64_t next() {
    // The hash of the advanced state (the gamma is added twice per draw): kept so that every
    // augmentation draw, and so every seeded run, stays bit-identical.
    state_ += kSplitmix64Gamma;
    return splitmix64_hash(state_);
  }
  /// Uniform double in [0, 1).
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n), n > 0 (multiply-shift; bias is below 2^-32 for n < 2^32).
  constexpr uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<Uint128>(next()) * n) >> 64);
  }

 private:
  uint64_t state_;
};

}  // namespace strand::data
