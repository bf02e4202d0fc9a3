// Generator: an explicit, seeded, counter-based random number generator. Its whole state
// is (seed, counter), so checkpoints can save and restore it exactly, and its output is the
// same on every platform (no std:: distributions, whose results are implementation-defined).
#pragma once

#include <cstdint>

#include "core/splitmix64.h"

namespace strand {

/// Counter-based random numbers: the state is (seed, counter), so it saves and restores exactly.
class Generator {
 public:
  /// A generator at counter 0 for `seed`.
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}

  /// 64 random bits: mix64 of (seed, counter).
  uint64_t next_u64() { return splitmix64_hash(splitmix64_hash(seed_) ^ counter_++); }
  /// Uniform in [0, 1) with 53 random bits.
  double next_double() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, bound) (bound > 0), by rejection so it is unbiased.
  uint64_t next_below(uint64_t bound);
  /// Standard normal, Box-Muller (uses two uniforms per call; no cached second value, so the
  /// state stays (seed, counter)).
  double next_normal();

  /// The seed.
  uint64_t seed() const { return seed_; }
  /// How many 64-bit draws were made.
  uint64_t counter() const { return counter_; }
  /// Restores a (seed, counter) state.
  void set_state(uint64_t seed, uint64_t counter) {
    seed_ = seed;
    counter_ = counter;
  }

 private:
  uint64_t seed_;
  uint64_t counter_ = 0;
};

}  // namespace strand
