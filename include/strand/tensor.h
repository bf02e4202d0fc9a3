// Umbrella header: tensors, devices, dtypes, the op registry and the non-autograd ops.
//   #include <strand/tensor.h>
#pragma once

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/dtype_dispatch.h"
#include "tensor/error.h"
#include "tensor/generator.h"
#include "tensor/op_declarations.h"
#include "tensor/op_registry.h"
#include "tensor/ops.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"
