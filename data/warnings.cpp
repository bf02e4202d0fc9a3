// The data layer's warning sink and the one-time silencing of htslib's own stderr logging.
#include "data/warnings.h"

#include <htslib/hts_log.h>

#include <cstdio>
#include <mutex>
#include <string>

namespace strand::data {
namespace {

std::mutex& handler_mutex() {
  static std::mutex mutex;
  return mutex;
}

WarningHandler& installed_handler() {
  static WarningHandler handler;
  return handler;
}

}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  const std::lock_guard<std::mutex> lock(handler_mutex());
  WarningHandler previous = std::move(installed_handler());
  installed_handler() = std::move(handler);
  return previous;
}

void warn(std::string_view message) {
  const std::lock_guard<std::mutex> lock(handler_mutex());
  if (installed_handler()) {
    installed_handler()(message);
    return;
  }
  const std::string line = "strand: warning: " + std::string(message) + "\n";
  std::fputs(line.c_str(), stderr);
}

void silence_htslib_log() {
  static std::once_flag once;
  std::call_once(once, [] { hts_set_log_level(HTS_LOG_OFF); });
}

}  // namespace strand::data
