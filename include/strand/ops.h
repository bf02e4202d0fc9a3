// Umbrella header: every built-in op family (ops/), each on tensors (strand::ops::) and on
// Vars with its gradient (strand::).
//   #include <strand/ops.h>
#pragma once

#include "ops/batch_norm_pool.h"
#include "ops/conv1d.h"
#include "ops/dropout.h"
#include "ops/elementwise.h"
#include "ops/loss.h"
#include "ops/matmul.h"
#include "ops/normalization.h"
#include "ops/optimizer_updates.h"
#include "ops/pooling.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "ops/softmax.h"
