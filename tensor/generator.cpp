// Generator sampling helpers.
#include "tensor/generator.h"

#include <cmath>

namespace strand {

uint64_t Generator::next_below(uint64_t bound) {
  // Reject the top partial range so every residue is equally likely.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t value = next_u64();
  while (value >= limit) value = next_u64();
  return value % bound;
}

double Generator::next_normal() {
  const double u1 = 1.0 - next_double();  // (0, 1], so the log is finite
  const double u2 = next_double();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

}  // namespace strand
