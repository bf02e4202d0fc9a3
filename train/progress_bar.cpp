// ProgressBar implementation.
#include "train/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

namespace strand::train {
namespace {

constexpr double kRedrawInterval = 0.1;  // seconds between terminal redraws

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) {
    return "--:--:--";
  }
  const auto total = static_cast<std::int64_t>(std::llround(seconds));
  return fmt::format("{}:{:02}:{:02}", total / 3600, (total / 60) % 60, total % 60);
}

ProgressBar::ProgressBar(std::ostream& out, bool interactive, std::size_t log_every, Clock clock)
    : out_(out),
      interactive_(interactive),
      log_every_(log_every == 0 ? 1 : log_every),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)) {}

ProgressBar ProgressBar::for_stdout(std::size_t log_every) {
  return ProgressBar(std::cout, ::isatty(STDOUT_FILENO) != 0, log_every);
}

void ProgressBar::start_epoch(std::int64_t epoch, std::size_t total_steps) {
  epoch_ = epoch;
  total_steps_ = total_steps;
  step_ = 0;
  samples_ = 0;
  loss_sum_ = 0.0;
  start_time_ = clock_();
  last_draw_ = -1.0;
  last_width_ = 0;
  last_logged_step_ = 0;
}

void ProgressBar::update(std::size_t step, std::size_t batch_samples, double loss) {
  if (step <= step_) {
    throw std::invalid_argument(
        fmt::format("ProgressBar: step {} after step {} (steps must increase)", step, step_));
  }
  step_ = step;
  samples_ += batch_samples;
  loss_sum_ += loss * static_cast<double>(batch_samples);
  render(/*force=*/step_ == total_steps_);
}

std::string ProgressBar::status_line() const {
  const double elapsed = clock_() - start_time_;
  const double rate = elapsed > 0 ? static_cast<double>(samples_) / elapsed : 0.0;
  const double mean_loss = samples_ > 0 ? loss_sum_ / static_cast<double>(samples_) : NAN;
  std::string line = fmt::format("epoch {} | step {}", epoch_, step_);
  if (total_steps_ > 0) {
    line += fmt::format("/{}", total_steps_);
  }
  line += fmt::format(" | {:.1f} samples/s | loss {:.4f}", rate, mean_loss);
  if (total_steps_ > 0) {
    const double eta = step_ > 0
                           ? elapsed / static_cast<double>(step_) *
                                 static_cast<double>(total_steps_ - std::min(step_, total_steps_))
                           : NAN;
    line += fmt::format(" | ETA {}", format_duration(eta));
  }
  return line;
}

void ProgressBar::render(bool force) {
  if (interactive_) {
    const double now = clock_();
    if (!force && last_draw_ >= 0 && now - last_draw_ < kRedrawInterval) {
      return;
    }
    last_draw_ = now;
    std::string line = status_line();
    const std::size_t width = line.size();
    // Blank out leftovers of a longer previous line.
    if (width < last_width_) {
      line.append(last_width_ - width, ' ');
    }
    last_width_ = width;
    out_ << '\r' << line << std::flush;
  } else if (force || step_ % log_every_ == 0) {
    out_ << status_line() << '\n' << std::flush;
    last_logged_step_ = step_;
  }
}

void ProgressBar::finish_epoch() {
  if (interactive_) {
    last_draw_ = -1.0;
    render(/*force=*/true);
    out_ << '\n' << std::flush;
  } else if (last_logged_step_ != step_) {
    render(/*force=*/true);
  }
}

}  // namespace strand::train
