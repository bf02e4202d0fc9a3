// The process-wide deterministic-mode switch (see determinism.h).
#include "tensor/determinism.h"

#include <atomic>
#include <cstdlib>
#include <string>

namespace strand {
namespace {

std::atomic<bool>& flag() {
  static std::atomic<bool> on = [] {
    const char* env = std::getenv("STRAND_DETERMINISTIC");
    return env != nullptr && std::string(env) != "0" && std::string(env) != "";
  }();
  return on;
}

}  // namespace

bool deterministic() { return flag().load(std::memory_order_relaxed); }

void set_deterministic(bool on) { flag().store(on, std::memory_order_relaxed); }

}  // namespace strand
