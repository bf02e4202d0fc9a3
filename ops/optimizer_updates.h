// The fused optimizer updates: one Adam, SGD (momentum, Nesterov) or RMSprop step of a
// parameter in place, and Adam over many parameters at once, each optionally reading its
// learning rate and step from a schedule on the device (what a captured CUDA graph replays). optim/
// calls these; the formulas are written once in kernels/optimizer_math.h for host and device, the
// loops in kernels/cpu/optimizer_updates.h and kernels/cuda/optimizer_updates.cu. Updates are not
// differentiable.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/optimizer_math.h"
#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

/// One fused Adam update: the hyper-parameters (learning_rate: the current one, after any
/// schedule) and the step.
struct AdamParams {
  kernels::AdamHyperParameters hyper;
  int64_t step = 1;  ///< 1-based, for bias correction
};
/// Hyper-parameters of the fused SGD update.
struct SGDParams {
  double lr;            ///< step size (SGDOptions::learning_rate)
  double momentum;      ///< momentum factor (0: plain SGD)
  double dampening;     ///< dampening of the momentum
  double weight_decay;  ///< L2 penalty added to the gradient
  bool nesterov;        ///< as in SGDOptions
  bool first_step;      ///< momentum buffer starts as the gradient (PyTorch semantics)
};
/// Hyper-parameters of the fused RMSprop update.
struct RMSpropParams {
  double lr;            ///< step size (RMSpropOptions::learning_rate)
  double alpha;         ///< decay of the squared-gradient average
  double eps;           ///< added to the denominator
  double weight_decay;  ///< L2 penalty added to the gradient
  double momentum;      ///< momentum factor
  bool centered;        ///< as in RMSpropOptions
};

// ---- The ops and their kernel signatures (in place on contiguous tensors of one shape) ---
// `schedule`: undefined, or the step's schedule, a contiguous float64 [learning rate, step]
// on the parameter's device. Given one, an update reads the learning rate (and Adam the
// 1-based step) from it where it runs, not from its params: a CUDA graph that captured the
// update then replays it with the values in force at each replay (Optimizer::step advances
// the step with AdvanceScheduleOp before the updates; set_learning_rate writes the rate).
/// schedule[1] += 1 (the step count of a schedule), where the schedule lives.
STRAND_DECLARE_OP(AdvanceScheduleOp, "advance_schedule", void(Tensor& schedule));
STRAND_DECLARE_OP(AdamUpdateOp, "adam_update",
                  void(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                       const AdamParams& params, const Tensor& schedule));
/// Adam over many parameters at once, with the learning rate and step count read from
/// `schedule` (defined; AdamParams::hyper.learning_rate and ::step are ignored).
/// params[i], grads[i], exp_avgs[i], exp_avg_sqs[i]: contiguous, one dtype and one device.
STRAND_DECLARE_OP(AdamScheduledUpdateOp, "adam_scheduled_update",
                  void(const std::vector<Tensor*>& params, const std::vector<const Tensor*>& grads,
                       const std::vector<Tensor*>& exp_avgs,
                       const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& params_in,
                       const Tensor& schedule));
STRAND_DECLARE_OP(SGDUpdateOp, "sgd_update",
                  void(Tensor& param, const Tensor& grad, Tensor& momentum_buffer,
                       const SGDParams& params, const Tensor& schedule));
STRAND_DECLARE_OP(RMSpropUpdateOp, "rmsprop_update",
                  void(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                       Tensor& momentum_buffer, const RMSpropParams& params,
                       const Tensor& schedule));

// ---- On tensors -------------------------------------------------------------------------
// param: contiguous; grad: param's shape, any layout; state buffers: contiguous, param's
// shape, dtype and device (an optional buffer may be undefined where its option is off);
// schedule: as above (undefined: the rate and step of the params).
namespace ops {
/// Adds one to the step of `schedule` (float64 [lr, step], contiguous, on any device).
void advance_schedule(Tensor& schedule);
void adam_update(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq,
                 const AdamParams& params, const Tensor& schedule = Tensor());
/// AdamScheduledUpdateOp over the lists (of one length, one device, float32 and contiguous
/// on CUDA); `schedule`: float64 [lr, step] on that device, already advanced for this step.
void adam_scheduled_update(const std::vector<Tensor*>& params,
                           const std::vector<const Tensor*>& grads,
                           const std::vector<Tensor*>& exp_avgs,
                           const std::vector<Tensor*>& exp_avg_sqs, const AdamParams& hyper,
                           const Tensor& schedule);
/// momentum_buffer: undefined when params.momentum is 0.
void sgd_update(Tensor& param, const Tensor& grad, Tensor& momentum_buffer, const SGDParams& params,
                const Tensor& schedule = Tensor());
/// grad_avg: undefined unless centered; momentum_buffer: undefined when momentum is 0.
void rmsprop_update(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg,
                    Tensor& momentum_buffer, const RMSpropParams& params,
                    const Tensor& schedule = Tensor());
}  // namespace ops

}  // namespace strand
