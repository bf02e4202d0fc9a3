// An alternates engine header that includes its callers and training: refused
// (tests/layering/expect_refusals.cmake); the layers below it are not.
#pragma once

// clang-format off
#include "explain/fast_ism.h"
#include "train/fit.h"
#include "layers/graph.h"
// clang-format on
