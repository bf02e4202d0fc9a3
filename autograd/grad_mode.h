// Gradient recording mode: on by default; NoGradGuard turns it off for a scope (evaluation,
// optimizer updates), per thread.
#pragma once

namespace strand {

/// Whether ops on this thread record the graph for backward.
bool grad_enabled();
void set_grad_enabled(bool enabled);

/// Disables gradient recording until the end of the scope, then restores the previous mode.
class NoGradGuard {
 public:
  NoGradGuard() : previous_(grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace strand
