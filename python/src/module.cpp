// The extension module strand._strand; the package strand (python/strand/) wraps it.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "errors.h"

NB_MODULE(_strand, m) {
  m.doc() = "strand's C++ engine: models, the data loader, tensors and training (see strand).";
  strand::python::bind_errors(m);
  strand::python::bind_tensor(m);
  strand::python::bind_model(m);
  strand::python::bind_loader(m);
  strand::python::bind_train(m);
#ifdef STRAND_WITH_CUDA
  m.attr("cuda_build") = true;
#else
  m.attr("cuda_build") = false;
#endif
}
