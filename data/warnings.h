// Warnings from the data layer (e.g. "a stale index was rebuilt"): one line each, sent to a
// replaceable handler so that a program decides where they go (the CLI: its error stream).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace strand::data {

/// Receives one warning, without a trailing newline.
using WarningHandler = std::function<void(std::string_view message)>;

/// Installs `handler` and returns the previous one. An empty handler restores the default,
/// which writes "strand: warning: MESSAGE" to stderr. Thread-safe.
WarningHandler set_warning_handler(WarningHandler handler);

/// Sends one warning to the installed handler (thread-safe; calls are serialised).
void warn(std::string_view message);

/// Installs a handler for the lifetime of this object, then restores the previous one.
class ScopedWarningHandler {
 public:
  /// Installs `handler` until destruction.
  explicit ScopedWarningHandler(WarningHandler handler)
      : previous_(set_warning_handler(std::move(handler))) {}
  ~ScopedWarningHandler() { set_warning_handler(std::move(previous_)); }
  ScopedWarningHandler(const ScopedWarningHandler&) = delete;
  ScopedWarningHandler& operator=(const ScopedWarningHandler&) = delete;

 private:
  WarningHandler previous_;
};

/// htslib writes its own log lines ("[W::fai_insert_index] ...") straight to stderr and has no
/// hook to redirect them, so strand turns them off (hts_set_log_level(HTS_LOG_OFF)) once,
/// before its first call into htslib, and reports every problem itself as a DataError or a
/// warning(). Idempotent and thread-safe; call it before any other htslib use.
void silence_htslib_log();

}  // namespace strand::data
