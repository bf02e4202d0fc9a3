// The extension module strand._strand; the package strand (python/strand/) wraps it.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "errors.h"
#include "tensor/backend.h"

NB_MODULE(_strand, m) {
  m.doc() =
      "strand's C++ engine: models, the data loader, tensors, training, explanations and variant "
      "scores (see strand).";
  strand::python::bind_errors(m);
  strand::python::bind_tensor(m);
  strand::python::bind_model(m);
  strand::python::bind_loader(m);
  strand::python::bind_train(m);
  strand::python::bind_explain(m);
  strand::python::bind_variants(m);
  // Whether this build has the CUDA backend module (loaded on first use: tensor/backend.h).
  m.attr("cuda_build") = strand::backend_built(strand::DeviceType::kCUDA);
}
