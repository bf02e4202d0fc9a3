// The parts of the extension module, each binding one area of strand.
#pragma once

#include <nanobind/nanobind.h>

namespace strand::python {

void bind_model(nanobind::module_& m);
void bind_tensor(nanobind::module_& m);
void bind_loader(nanobind::module_& m);
void bind_train(nanobind::module_& m);
void bind_explain(nanobind::module_& m);
void bind_variants(nanobind::module_& m);
void bind_motifs(nanobind::module_& m);

}  // namespace strand::python
