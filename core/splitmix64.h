// splitmix64 (Steele, Lea & Flood 2014), written once: its output mix, one step of the
// generator, and the stateless hash built from them. Every counter-based draw in strand (the
// tensor Generator, the loader's augmentation, the simulator's seeding, Dropout's masks on
// both backends) goes through here.
#pragma once

#include <cstdint>

#include "core/host_device.h"

namespace strand {

/// The increment splitmix64 adds to its state per step (2^64 / golden ratio, odd).
inline constexpr uint64_t kSplitmix64Gamma = 0x9e3779b97f4a7c15ULL;

/// splitmix64's output function: a bijective 64-bit mix of a state value.
STRAND_HOST_DEVICE constexpr uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// One step of the splitmix64 generator: advances `state` by the gamma and returns its mix.
constexpr uint64_t splitmix64_next(uint64_t& state) {
  return splitmix64_mix(state += kSplitmix64Gamma);
}

/// A stateless 64-bit hash: the first output of a splitmix64 generator whose state is `x`
/// (splitmix64_next on a copy). Used to turn counters and keys into random bits.
STRAND_HOST_DEVICE constexpr uint64_t splitmix64_hash(uint64_t x) {
  return splitmix64_mix(x + kSplitmix64Gamma);
}

}  // namespace strand
