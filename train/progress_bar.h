// Training progress display: a redrawn line on a terminal, periodic log lines otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace strand::train {

/// Shows epoch, step/total, samples/s, mean loss and ETA.
///
/// Interactive mode (a terminal) redraws one line with a carriage return, at most every 0.1 s, and
/// ends it with a newline at finish_epoch(). Non-interactive mode (log files, pipes) prints a plain
/// newline-terminated line every `log_every` steps and on the last step, so logs stay readable.
class ProgressBar {
 public:
  /// Seconds from an arbitrary origin; injectable so tests are deterministic.
  using Clock = std::function<double()>;

  /// `out` must outlive the bar. A null `clock` uses std::chrono::steady_clock.
  ProgressBar(std::ostream& out, bool interactive, std::size_t log_every = 100,
              Clock clock = nullptr);

  /// A bar on std::cout, interactive when stdout is a terminal (isatty).
  static ProgressBar for_stdout(std::size_t log_every = 100);

  /// Starts an epoch of `total_steps` steps (0 if unknown: no ETA shown).
  void start_epoch(std::int64_t epoch, std::size_t total_steps);
  /// Reports that step `step` (1-based) finished, covering `batch_samples` samples with mean
  /// loss `loss`. The displayed loss is the sample-weighted mean over the epoch so far.
  void update(std::size_t step, std::size_t batch_samples, double loss);
  /// Ends the epoch's line (interactive) or prints the final line if not yet printed.
  void finish_epoch();

  /// The status text for the current state (no carriage return or newline).
  [[nodiscard]] std::string status_line() const;

 private:
  void render(bool force);

  std::ostream& out_;
  bool interactive_;
  std::size_t log_every_;
  Clock clock_;
  std::int64_t epoch_ = 0;
  std::size_t total_steps_ = 0;
  std::size_t step_ = 0;
  std::size_t samples_ = 0;
  double loss_sum_ = 0.0;
  double start_time_ = 0.0;
  double last_draw_ = -1.0;
  std::size_t last_width_ = 0;
  std::size_t last_logged_step_ = 0;
};

/// Formats seconds as H:MM:SS ("--:--:--" when negative or not finite).
[[nodiscard]] std::string format_duration(double seconds);

}  // namespace strand::train
