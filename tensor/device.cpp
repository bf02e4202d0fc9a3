// Device names and parsing.
#include "tensor/device.h"

#include "tensor/error.h"

namespace strand {

std::string Device::to_string() const {
  return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(index);
}

Device Device::parse(const std::string& text) {
  if (text == "cpu") return cpu();
  if (text == "cuda") return cuda(0);
  if (text.rfind("cuda:", 0) == 0) {
    const std::string ordinal = text.substr(5);
    STRAND_CHECK(!ordinal.empty() && ordinal.find_first_not_of("0123456789") == std::string::npos,
                 "device '{}': expected 'cpu', 'cuda' or 'cuda:N'", text);
    return cuda(std::stoi(ordinal));
  }
  throw Error(fmt::format("device '{}': expected 'cpu', 'cuda' or 'cuda:N'", text));
}

}  // namespace strand
