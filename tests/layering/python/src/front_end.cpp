// A Python binding that includes the command line: the other front end is refused, the
// application layer and the library are not (tests/layering/expect_refusals.cmake).
// clang-format off
#include "cli/program.h"
#include "app/trained_model.h"
#include "train/fit.h"
#include "arrays.h"
// clang-format on
