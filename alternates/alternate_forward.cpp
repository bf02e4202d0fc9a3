// The alternates engine's choice of strategy and its calls (alternates/alternate_forward.h).
#include "alternates/alternate_forward.h"

#include <algorithm>

#include "core/error.h"
#include "layers/sequential.h"

namespace strand::alternates {

AlternateForward::~AlternateForward() = default;

std::unique_ptr<AlternateForward> AlternateForward::make(Model& model, int64_t length,
                                                         std::vector<size_t> outputs,
                                                         Placement placement, std::string* why) {
  auto engine = std::unique_ptr<AlternateForward>(new AlternateForward());
  // A Sequential's alternates that share their columns recompute those columns for the whole
  // batch through the fused prefix: on Basset's variant scoring the windowed strategy took 5.6%
  // more CPU time (bench/RESULTS.md, "One engine for alternates").
  if (placement == Placement::kShared && dynamic_cast<Sequential*>(&model) != nullptr) {
    const auto refuse = [why](const std::string& reason) {
      if (why != nullptr) *why = reason;
      return std::unique_ptr<AlternateForward>();
    };
    if (outputs != std::vector<size_t>{0}) return refuse("a Sequential has one output, 0");
    engine->fused_ = FusedSequential::plan(model, length);
    if (!engine->fused_) {
      return refuse(
          "a Sequential of fewer than two convolutions and poolings before its first "
          "position-mixing layer (or of other layers there) is cheaper whole");
    }
    engine->strategy_ = Strategy::kFusedSequential;
    return engine;
  }
  engine->windowed_ = WindowedChanges::make(model, length, std::move(outputs), why);
  if (!engine->windowed_) return nullptr;
  engine->strategy_ = Strategy::kWindowed;
  return engine;
}

References AlternateForward::reference(const Tensor& codes) const {
  References references;
  references.rows = codes.size(0);
  if (fused_) {
    references.sequential = fused_->reference(codes);
  } else {
    references.windowed = windowed_->reference(codes);
  }
  return references;
}

const Tensor& AlternateForward::reference_output(const References& references, size_t k) const {
  if (fused_) {
    STRAND_CHECK(k == 0, "alternates: a Sequential has one output, not {}", k);
    return references.sequential.output;
  }
  return windowed_->reference_output(references.windowed, k);
}

std::vector<Tensor> AlternateForward::alternates(const References& references,
                                                 const AlternateBatch& batch) const {
  if (fused_) return {fused_->alternates(references.sequential, batch)};
  return windowed_->alternates(references.windowed, batch.slots, batch.starts, batch.letters);
}

int64_t AlternateForward::alternates_per_call(int64_t count) const {
  return fused_ ? std::max<int64_t>(count, 1) : windowed_->alternates_per_call();
}

int64_t AlternateForward::references_per_pass(int64_t rows, int64_t budget_bytes) const {
  const int64_t all = std::max<int64_t>(rows, 1);
  if (fused_) return all;
  return std::clamp<int64_t>(budget_bytes / windowed_->reference_bytes_per_row(), 1, all);
}

int64_t AlternateForward::reference_bytes_per_row() const {
  return windowed_ ? windowed_->reference_bytes_per_row() : 0;
}

int64_t AlternateForward::windowed_steps() const {
  return windowed_ ? windowed_->windowed_steps() : 0;
}

int64_t AlternateForward::readouts() const { return windowed_ ? windowed_->readouts() : 0; }

}  // namespace strand::alternates
