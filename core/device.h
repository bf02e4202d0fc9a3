// Device: where a tensor's memory lives (the CPU, or CUDA device N).
#pragma once

#include <cstdint>
#include <string>

namespace strand {

enum class DeviceType : uint8_t { kCPU = 0, kCUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;

/// A device: type plus index (the CUDA ordinal; always 0 for the CPU).
struct Device {
  DeviceType type = DeviceType::kCPU;  ///< CPU or CUDA
  int index = 0;                       ///< CUDA ordinal; 0 for the CPU

  /// The host.
  static Device cpu() { return {DeviceType::kCPU, 0}; }
  /// CUDA device `index`.
  static Device cuda(int index = 0) { return {DeviceType::kCUDA, index}; }
  /// Whether this is the host.
  bool is_cpu() const { return type == DeviceType::kCPU; }
  /// Whether this is a CUDA device.
  bool is_cuda() const { return type == DeviceType::kCUDA; }
  /// Same type and index.
  bool operator==(const Device&) const = default;

  /// "cpu" or "cuda:N".
  std::string to_string() const;
  /// Parses "cpu", "cuda" or "cuda:N"; throws naming the text otherwise.
  static Device parse(const std::string& text);
};

}  // namespace strand
