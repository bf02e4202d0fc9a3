// The attribution pass's bookkeeping (autograd/attribution.h).
#include "autograd/attribution.h"

#include <fmt/format.h>

#include "autograd/grad_mode.h"
#include "core/error.h"

namespace strand {
namespace {

thread_local AttributionPass* active_pass = nullptr;

}  // namespace

AttributionPass::AttributionPass() {
  STRAND_CHECK(active_pass == nullptr, "AttributionPass: this thread already has an active pass");
  active_pass = this;
}

AttributionPass::~AttributionPass() {
  if (active_pass == this) active_pass = nullptr;
}

void AttributionPass::begin_references(std::vector<int64_t> input_rows) {
  STRAND_CHECK(phase_ == AttributionPhase::kInputs,
               "AttributionPass: begin_references() called twice");
  STRAND_CHECK(!input_rows.empty(), "AttributionPass: a references' pass of no rows");
  for (size_t i = 0; i < input_rows.size(); ++i) {
    STRAND_CHECK(input_rows[i] >= 0 && (i == 0 || input_rows[i] >= input_rows[i - 1]),
                 "AttributionPass: the references' input rows must be non-decreasing");
    if (row_runs_.empty() || row_runs_.back().first != input_rows[i]) {
      row_runs_.emplace_back(input_rows[i], 0);
    }
    ++row_runs_.back().second;
  }
  reference_rows_ = static_cast<int64_t>(input_rows.size());
  phase_ = AttributionPhase::kReferences;
  next_ = 0;
}

void AttributionPass::finish() const {
  STRAND_CHECK(phase_ == AttributionPhase::kReferences && next_ == entries_.size(),
               "DeepLIFT: the references' forward pass ran {} nonlinear ops, the inputs' pass {}; "
               "the model must run the same ops on every input",
               next_, entries_.size());
}

void AttributionPass::save(const char* op_name, std::vector<Tensor> values) {
  STRAND_CHECK(phase_ == AttributionPhase::kInputs,
               "AttributionPass: '{}' saved values in the references' phase", op_name);
  entries_.push_back(Entry{op_name, std::move(values)});
}

Tensor AttributionPass::paired(const Tensor& saved) const {
  // One row per references' row: the input row of each run, repeated (a copy when repeated).
  if (row_runs_.size() == 1 && row_runs_[0].second == 1 && saved.size(0) == 1) return saved;
  std::vector<int64_t> shape(saved.shape().begin(), saved.shape().end());
  shape[0] = reference_rows_;
  Tensor out = Tensor::empty(shape, saved.dtype(), saved.device());
  int64_t at = 0;
  for (const auto& [row, count] : row_runs_) {
    STRAND_CHECK(row < saved.size(0), "DeepLIFT: references pair with input row {} of {}", row,
                 saved.size(0));
    Shape expanded = saved.shape();
    expanded[0] = count;
    out.slice(0, at, at + count).copy_(saved.slice(0, row, row + 1).expand(expanded));
    at += count;
  }
  return out;
}

std::vector<Tensor> AttributionPass::take(const char* op_name) {
  STRAND_CHECK(phase_ == AttributionPhase::kReferences,
               "AttributionPass: '{}' took values in the inputs' phase", op_name);
  STRAND_CHECK(next_ < entries_.size(),
               "DeepLIFT: the references' forward pass ran more nonlinear ops than the inputs' "
               "pass ({} at op {}, '{}'); the model must run the same ops on every input",
               entries_.size(), next_ + 1, op_name);
  Entry& entry = entries_[next_];
  STRAND_CHECK(entry.op_name == op_name,
               "DeepLIFT: op {} of the references' forward pass is '{}', but the inputs' pass ran "
               "'{}' there; the model must run the same ops on every input",
               next_ + 1, op_name, entry.op_name);
  ++next_;
  std::vector<Tensor> values;
  for (const Tensor& saved : entry.values) values.push_back(paired(saved));
  entry.values.clear();  // released as the references' pass consumes them
  return values;
}

AttributionPass* attribution_pass() { return grad_enabled() ? active_pass : nullptr; }

}  // namespace strand
