// A core/ header that includes the training loop, spelt every way an include can be: the
// layering check must refuse each line (tests/CMakeLists.txt, "layering: an upward include is
// refused").
#pragma once

// The spellings are the test: clang-format would normalise and sort them.
// clang-format off
#include "train/fit.h"
#  include "layers/dense.h"
# include <optim/adam.h>
#include "strand/train.h"
#include <strand/data.h>
#include <strand/layers/sequential.h>
// Not the library's folders: allowed.
#include <vector>
#include "core/error.h"
#include <fmt/format.h>
// clang-format on
