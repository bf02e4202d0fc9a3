// The primitive ops Tensor itself is made of: fill, copy (any strides, dtypes and devices),
// in-place accumulation and the asynchronous read back to the host. Tensor's methods
// (fill_, copy_, add_, to, clone) dispatch them, so they live here with Tensor; every other op
// has its home in ops/ (one file per family). Kernels receive defined tensors whose shapes,
// dtypes and devices the caller has already checked.
#pragma once

#include <functional>

#include "tensor/op_registry.h"
#include "tensor/tensor.h"

namespace strand {

// out <- value
STRAND_DECLARE_OP(FillOp, "fill", void(Tensor& out, double value));
// out <- source: same shape, any strides and dtypes (converts). Registered per device; the
// CUDA kernel also copies between host and device (dispatched on the non-CPU side).
STRAND_DECLARE_OP(CopyOp, "copy", void(Tensor& out, const Tensor& source));
// accumulator += addend: same shape, float dtype and device, any strides (gradient and
// metric accumulation).
STRAND_DECLARE_OP(AccumulateOp, "accumulate", void(Tensor& accumulator, const Tensor& addend));
/// Starts copying `source` to the host and returns at once; the returned function waits for
/// the copy to land and returns it (a contiguous CPU tensor of source's dtype). On a GPU the
/// copy goes to pinned memory behind an event, so a training loop can read a step's loss one
/// step later without ever stalling the stream; on the CPU it is a plain copy.
STRAND_DECLARE_OP(StartHostReadOp, "start_host_read",
                  std::function<Tensor()>(const Tensor& source));

}  // namespace strand
