// The process-wide float32 precision switch (see precision.h).
#include "tensor/precision.h"

#include <atomic>

namespace strand {
namespace {

std::atomic<Float32Precision>& setting() {
  static std::atomic<Float32Precision> precision{Float32Precision::kFp32};
  return precision;
}

}  // namespace

Float32Precision float32_precision() { return setting().load(std::memory_order_relaxed); }

void set_float32_precision(Float32Precision precision) {
  setting().store(precision, std::memory_order_relaxed);
}

}  // namespace strand
