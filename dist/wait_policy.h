// WaitPolicy: the polling rhythm and deadline shared by the backends' bounded waits. Spinning
// briefly keeps latency low for collectives that are about to finish; sleeping afterwards
// leaves the cores to the compute threads (they are shared with backward when waits overlap).
#pragma once

#include <chrono>
#include <thread>

namespace strand::dist {

class WaitPolicy {
 public:
  explicit WaitPolicy(std::chrono::milliseconds timeout)
      : start_(std::chrono::steady_clock::now()), deadline_(start_ + timeout) {}
  bool expired() const { return std::chrono::steady_clock::now() > deadline_; }
  double elapsed_seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void pause() {
    if (++polls_ < kSpinPolls) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

 private:
  static constexpr int kSpinPolls = 200;
  std::chrono::steady_clock::time_point start_, deadline_;
  int polls_ = 0;
};

}  // namespace strand::dist
