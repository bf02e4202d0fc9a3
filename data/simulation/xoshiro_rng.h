// Portable seeded random numbers for simulations: identical streams on every platform.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace strand::data {

/// xoshiro256** generator seeded through splitmix64, with sampling routines defined here rather
/// than by std:: distributions (whose outputs differ between standard libraries). Every routine
/// uses only integer operations or exactly-rounded double operations, so a seed yields the same
/// values on every conforming platform.
class Rng {
 public:
  /// Seeds the 256-bit state from `seed` with splitmix64 (any seed, including 0, is fine).
  explicit Rng(std::uint64_t seed);

  /// Next raw 64-bit output.
  std::uint64_t next_u64();
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform integer in [0, n), unbiased (rejection sampling); n must be > 0.
  std::uint64_t uniform_int(std::uint64_t n);
  /// True with probability p.
  bool bernoulli(double p);
  /// Index i with probability weights[i] / sum(weights); weights non-negative, sum > 0.
  std::size_t categorical(std::span<const double> weights);
  /// A Poisson(mean) count, mean finite and >= 0 (Knuth's product of uniforms, on chunks of the
  /// mean of at most 16; O(mean) draws). e^-chunk is computed with +, *, / only, so the stream
  /// is the same on every platform.
  std::uint64_t poisson(double mean);

 private:
  std::array<std::uint64_t, 4> s_{};
};

}  // namespace strand::data
