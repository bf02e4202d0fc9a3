// A core/ header that includes the training loop: the layering check must refuse it
// (tests/CMakeLists.txt, "layering: an upward include is refused").
#pragma once

#include "train/fit.h"
