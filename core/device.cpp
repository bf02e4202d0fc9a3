// Device names and parsing.
#include "core/device.h"

#include <limits>
#include <optional>

#include "core/error.h"
#include "core/parse_number.h"

namespace strand {

std::string Device::to_string() const {
  return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(index);
}

Device Device::parse(const std::string& text) {
  if (text == "cpu") return cpu();
  if (text == "cuda") return cuda(0);
  if (text.rfind("cuda:", 0) == 0) {
    const std::string ordinal = text.substr(5);
    // Digits only and within int (std::stoi would throw a bare "stoi" past INT_MAX).
    const std::optional<int64_t> index = parse_int64(ordinal);
    STRAND_CHECK(index && ordinal.find_first_not_of("0123456789") == std::string::npos &&
                     *index <= std::numeric_limits<int>::max(),
                 "device '{}': expected 'cpu', 'cuda' or 'cuda:N' with N a device index", text);
    return cuda(static_cast<int>(*index));
  }
  throw Error(fmt::format("device '{}': expected 'cpu', 'cuda' or 'cuda:N'", text));
}

}  // namespace strand
