// An application-layer header that includes a front end: refused
// (tests/layering/expect_refusals.cmake).
#pragma once

// clang-format off
#include "cli/command_flags.h"
#include <python/src/bindings.h>
#include "variants/variant_scorer.h"
// clang-format on
