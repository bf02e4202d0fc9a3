// Umbrella header: tensors, devices, dtypes, the op registry, the primitive ops, the argument
// checks ops share, and the backend module loader with the CUDA runtime interface. The ops
// themselves: <strand/ops.h>.
//   #include <strand/tensor.h>
#pragma once

#include "core/device.h"
#include "core/dtype.h"
#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/stop_signal.h"
#include "tensor/allocator.h"
#include "tensor/argument_checks.h"
#include "tensor/backend.h"
#include "tensor/conv_plan_table.h"
#include "tensor/cuda_runtime.h"
#include "tensor/determinism.h"
#include "tensor/generator.h"
#include "tensor/op_registry.h"
#include "tensor/precision.h"
#include "tensor/primitive_ops.h"
#include "tensor/reduction_layout.h"
#include "tensor/storage.h"
#include "tensor/tensor.h"
