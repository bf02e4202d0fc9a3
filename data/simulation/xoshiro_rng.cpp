// xoshiro256** (Blackman & Vigna) and sampling helpers.
#include "data/simulation/xoshiro_rng.h"

#include "core/splitmix64.h"

#include <limits>
#include <stdexcept>

namespace strand::data {
namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// e^-x for x in [0, 16] from exactly rounded operations only (std::exp may differ between C
// libraries in the last bit): halve x to at most 1/2 (exact), sum the Taylor series there, then
// square back. Relative error below 1e-14.
double exp_negative(double x) {
  int halvings = 0;
  while (x > 0.5) {
    x *= 0.5;
    ++halvings;
  }
  double term = 1.0;
  double sum = 1.0;
  for (int n = 1; n <= 24; ++n) {
    term = term * -x / n;
    sum += term;
  }
  for (int i = 0; i < halvings; ++i) sum *= sum;
  return sum;
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) {
    word = splitmix64_next(seed);
  }
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() {
  // Top 53 bits scaled by 2^-53: exact, so identical everywhere.
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

std::uint64_t Rng::uniform_int(std::uint64_t n) {
  if (n == 0) {
    throw std::invalid_argument("Rng::uniform_int: n must be positive");
  }
  // Reject the top partial block of 2^64 so every residue is equally likely.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              (std::numeric_limits<std::uint64_t>::max() % n + 1) % n;
  std::uint64_t x = next_u64();
  while (x > limit) {
    x = next_u64();
  }
  return x % n;
}

bool Rng::bernoulli(double p) { return uniform() < p; }

std::uint64_t Rng::poisson(double mean) {
  if (!(mean >= 0.0) || mean > 1e15) {
    throw std::invalid_argument("Rng::poisson: the mean must be finite, >= 0 and at most 1e15");
  }
  // Poisson(a + b) = Poisson(a) + Poisson(b): small chunks keep e^-chunk far from underflow.
  std::uint64_t count = 0;
  while (mean > 0.0) {
    const double chunk = mean < 16.0 ? mean : 16.0;
    mean -= chunk;
    const double limit = exp_negative(chunk);
    double product = uniform();
    while (product > limit) {
      ++count;
      product *= uniform();
    }
  }
  return count;
}

std::size_t Rng::categorical(std::span<const double> weights) {
  double total = 0.0;
  for (const double w : weights) {
    if (!(w >= 0.0)) {
      throw std::invalid_argument("Rng::categorical: weights must be non-negative");
    }
    total += w;
  }
  if (!(total > 0.0)) {
    throw std::invalid_argument("Rng::categorical: weights must have a positive sum");
  }
  const double target = uniform() * total;
  double cumulative = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    cumulative += weights[i];
    if (target < cumulative) {
      return i;
    }
  }
  // Rounding can leave target == total; return the last category with non-zero weight.
  for (std::size_t i = weights.size(); i-- > 0;) {
    if (weights[i] > 0.0) {
      return i;
    }
  }
  return weights.size() - 1;  // unreachable: total > 0 implies a positive weight
}

}  // namespace strand::data
