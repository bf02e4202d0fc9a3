// Windows of changes (internal to the windowed strategy, alternates/windowed_changes.h): what
// flows between its steps for a batch of M alternates, and the copies between windows.
//
// Layout: a change is (M, C, W) float, contiguous, so that each alternate's change is a (C, W)
// matrix a Conv1D's taps multiply, and conv1d, pooling or activations see an ordinary batch.
// Alternate m's window starts at column starts[m] of the step's output and lies inside the
// columns the step's consumers read (its `need`, a range inside [0, L)); the change is 0 outside
// it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "tensor/tensor.h"

namespace strand::alternates::detail {

/// Floor and ceiling of a / b for b > 0 and any sign of a.
inline int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
inline int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/// Columns [lo, hi).
struct Range {
  int64_t lo = 0, hi = 0;
};

inline Range hull(Range a, Range b) {
  if (a.hi <= a.lo) return b;
  if (b.hi <= b.lo) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

inline Range clip(Range r, int64_t length) {
  return {std::clamp<int64_t>(r.lo, 0, length), std::clamp<int64_t>(r.hi, 0, length)};
}

/// One step's value for a batch of M alternates.
struct Value {
  bool local = false;
  Tensor change;                // local: (M, C, W), alt - ref over each alternate's window
  std::vector<int64_t> starts;  // local: per alternate
  int64_t width = 0;            // local: W
  bool relu_applied = false;    // local: a Conv1D's change with its ReLU's applied (one pass)
  bool input_added = false;     // local: and the residual Add of the Conv1D's input too
  Tensor full;                  // global: (M, ...) the alternates' values
};

/// Windows for `out`: alternate m's change spans [a[m], b[m]) (its natural window); each is
/// clipped to `need`, the common width is the widest clipped one (at least 1), and each window is
/// placed inside `need` covering its clipped span.
void place(const std::vector<int64_t>& a, const std::vector<int64_t>& b, Range need, Value& out);

/// `change` ((M, C, W_from) over windows `from`) over windows (to, width): 0 where it has none.
Tensor rewindow(const Tensor& change, const std::vector<int64_t>& from,
                const std::vector<int64_t>& to, int64_t width);
Tensor rewindow(const Value& v, const std::vector<int64_t>& to, int64_t width);

/// Columns [starts[m], starts[m] + width) of row slots[m] of `ref` ((G, C, L) contiguous), 0
/// outside [0, L), plus `change` where given: (M, C, width), the alternates' values there.
Tensor values_over(const Tensor& ref, std::span<const int64_t> slots,
                   const std::vector<int64_t>& starts, int64_t width, const Value* change);

/// values - ref over the windows: `values` ((M, C, W)) becomes the change, in place.
void subtract_reference(Tensor& values, const Tensor& ref, std::span<const int64_t> slots,
                        const std::vector<int64_t>& starts);

/// The alternates' full values (M, C, L): the reference rows with each change added.
Tensor materialize(const Value& v, const Tensor& ref, std::span<const int64_t> slots);

/// Rows `slots` of a reference (G, ...): (M, ...).
Tensor reference_rows(const Tensor& ref, std::span<const int64_t> slots);

/// Per alternate, the output columns [ceil((a + pad - span) / stride), floor((b - 1 + pad) /
/// stride) + 1) that a change over input columns [a, b) reaches.
void grown_windows(const Value& v, int64_t pad, int64_t span, int64_t stride,
                   std::vector<int64_t>& a, std::vector<int64_t>& b);

}  // namespace strand::alternates::detail
