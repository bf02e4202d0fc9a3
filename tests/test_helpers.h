// Helpers shared by the doctest suites: random tensors, closeness checks, fixture paths.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tensor/tensor.h"

/// Ends the current test case as *skipped*: prints the marker that CTest's
/// SKIP_REGULAR_EXPRESSION (tests/CMakeLists.txt) turns into a "Skipped" result, so a check that
/// could not run is never reported as passed.
#define STRAND_SKIP(reason)                                                \
  do {                                                                     \
    std::printf("[strand-skip] %s (%s:%d)\n", reason, __FILE__, __LINE__); \
    MESSAGE("[strand-skip] " << reason);                                   \
    return;                                                                \
  } while (false)

namespace strand::testing {

/// Uniform [-1, 1) float64 (or `dtype`) tensor from a fixed seed.
inline Tensor random_tensor(const Shape& shape, uint64_t seed, DType dtype = DType::kFloat64) {
  Generator generator(seed);
  return Tensor::uniform(shape, -1.0, 1.0, generator, dtype);
}

/// n values uniform in [-1, 1) from a fixed seed, for kernels that take raw arrays.
template <typename T>
std::vector<T> random_values(int64_t n, uint64_t seed) {
  Generator generator(seed);
  std::vector<T> values(static_cast<size_t>(n));
  for (T& v : values) v = static_cast<T>(2.0 * generator.next_double() - 1.0);
  return values;
}

/// Random DNA base codes in [0, 5) (N included), shape (B, L).
inline Tensor random_codes(int64_t batch, int64_t length, uint64_t seed) {
  Generator generator(seed);
  std::vector<uint8_t> codes(static_cast<size_t>(batch * length));
  for (auto& code : codes) code = static_cast<uint8_t>(generator.next_below(5));
  return Tensor::from_vector(codes, {batch, length});
}

/// Largest |a - b| after converting both to float64; shapes must match.
inline double max_abs_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  const auto av = a.to(DType::kFloat64).to_vector<double>();
  const auto bv = b.to(DType::kFloat64).to_vector<double>();
  double worst = 0.0;
  for (size_t i = 0; i < av.size(); ++i) {
    worst = std::max(worst, std::abs(av[i] - bv[i]));
    if (std::isnan(av[i]) != std::isnan(bv[i])) return INFINITY;
  }
  return worst;
}

/// The repository root (CTest sets STRAND_SOURCE_DIR; the build also bakes it in).
inline std::string source_dir() {
  const char* from_env = std::getenv("STRAND_SOURCE_DIR");
  return from_env ? std::string(from_env) : std::string(STRAND_SOURCE_DIR);
}

}  // namespace strand::testing
