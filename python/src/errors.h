// strand's exception types as Python exceptions (strand.Error and its subclasses), with the
// same messages.
#pragma once

#include <nanobind/nanobind.h>

namespace strand::python {

/// Creates strand.Error (a RuntimeError), strand.DataError and strand.ConfigError (also
/// ValueErrors), strand.DistError and strand.TrainingDiverged in `m`, and translates the C++
/// exceptions into them.
void bind_errors(nanobind::module_& m);

}  // namespace strand::python
