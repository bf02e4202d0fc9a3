// Umbrella header: Var, the differentiable ops, grad mode and gradcheck.
//   #include <strand/autograd.h>
#pragma once

#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/var.h"
#include "strand/tensor.h"
