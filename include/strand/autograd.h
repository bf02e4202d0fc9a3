// Umbrella header: Var, grad mode, gradcheck and every op family (<strand/ops.h>).
//   #include <strand/autograd.h>
#pragma once

#include "autograd/attribution.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/var.h"
#include "strand/ops.h"
#include "strand/tensor.h"
