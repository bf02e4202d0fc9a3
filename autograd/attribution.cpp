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

void AttributionPass::begin_inputs() {
  STRAND_CHECK(phase_ == AttributionPhase::kReferences,
               "AttributionPass: begin_inputs() called twice");
  phase_ = AttributionPhase::kInputs;
  next_ = 0;
}

void AttributionPass::finish() const {
  STRAND_CHECK(phase_ == AttributionPhase::kInputs && next_ == entries_.size(),
               "DeepLIFT: the inputs' forward pass ran {} nonlinear ops, the references' pass {}; "
               "the model must run the same ops on every input",
               next_, entries_.size());
}

void AttributionPass::save(const char* op_name, std::vector<Tensor> values) {
  STRAND_CHECK(phase_ == AttributionPhase::kReferences,
               "AttributionPass: '{}' saved values in the inputs' phase", op_name);
  entries_.push_back(Entry{op_name, std::move(values)});
}

std::vector<Tensor> AttributionPass::take(const char* op_name) {
  STRAND_CHECK(phase_ == AttributionPhase::kInputs,
               "AttributionPass: '{}' took values in the references' phase", op_name);
  STRAND_CHECK(next_ < entries_.size(),
               "DeepLIFT: the inputs' forward pass ran more nonlinear ops than the references' "
               "pass ({} at op {}, '{}'); the model must run the same ops on every input",
               entries_.size(), next_ + 1, op_name);
  Entry& entry = entries_[next_];
  STRAND_CHECK(entry.op_name == op_name,
               "DeepLIFT: op {} of the inputs' forward pass is '{}', but the references' pass ran "
               "'{}' there; the model must run the same ops on every input",
               next_ + 1, op_name, entry.op_name);
  ++next_;
  return std::move(entry.values);  // released as the inputs' pass consumes them
}

AttributionPass* attribution_pass() { return grad_enabled() ? active_pass : nullptr; }

}  // namespace strand
