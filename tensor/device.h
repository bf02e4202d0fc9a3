// Device: where a tensor's memory lives (the CPU, or CUDA device N).
#pragma once

#include <cstdint>
#include <string>

namespace strand {

enum class DeviceType : uint8_t { kCPU = 0, kCUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;

/// A device: type plus index (the CUDA ordinal; always 0 for the CPU).
struct Device {
  DeviceType type = DeviceType::kCPU;
  int index = 0;

  static Device cpu() { return {DeviceType::kCPU, 0}; }
  static Device cuda(int index = 0) { return {DeviceType::kCUDA, index}; }
  bool is_cpu() const { return type == DeviceType::kCPU; }
  bool is_cuda() const { return type == DeviceType::kCUDA; }
  bool operator==(const Device&) const = default;

  /// "cpu" or "cuda:N".
  std::string to_string() const;
  /// Parses "cpu", "cuda" or "cuda:N"; throws naming the text otherwise.
  static Device parse(const std::string& text);
};

}  // namespace strand
