// Umbrella header: tensors, devices, dtypes, the op registry and the non-autograd ops.
//   #include <strand/tensor.h>
#pragma once

#include "core/device.h"
#include "core/dtype.h"
#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "core/shape.h"
#include "tensor/generator.h"
#include "tensor/op_declarations.h"
#include "tensor/op_registry.h"
#include "tensor/ops.h"
#include "tensor/tensor.h"
