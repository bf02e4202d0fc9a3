// The device and float32 precision a run or command asks for, checked usable.
#include "app/usable_device.h"

#include <fmt/format.h>

#include <exception>

#include "app/config_error.h"
#include "tensor/cuda_runtime.h"

namespace strand::app {

Device usable_device(const std::string& text, const std::string& name) {
  Device device;
  try {
    device = Device::parse(text);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("{}: {}", name, error.what()));
  }
  if (device.is_cuda()) {
    // Never fall back to the CPU silently: a CUDA run without the CUDA module, its libraries or
    // a usable GPU stops here, with the one reason (this loads the module on first use).
    const std::string reason = cuda_unusable_reason();
    if (!reason.empty()) {
      throw ConfigError(fmt::format("{}: '{}' requested, but {}", name, text, reason));
    }
  }
  return device;
}

Float32Precision usable_precision(const std::string& text, const Device& device,
                                  const std::string& name) {
  Float32Precision precision = Float32Precision::kFp32;
  try {
    precision = parse_float32_precision(text);
  } catch (const std::exception& error) {
    throw ConfigError(fmt::format("{}: {}", name, error.what()));
  }
  const std::string reason = float32_precision_unavailable_reason(precision, device);
  if (!reason.empty()) {
    throw ConfigError(fmt::format("{}: {} on {}: {}; the CPU runs in fp32 (the default)", name,
                                  text, device.to_string(), reason));
  }
  return precision;
}

}  // namespace strand::app
