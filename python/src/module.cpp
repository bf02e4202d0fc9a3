// The extension module strand._strand; the package strand (python/strand/) wraps it.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "core/stop_signal.h"
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
  strand::python::bind_motifs(m);
  // Testing aid: the n-th poll for a stop request from now raises the signal in this process
  // (core/stop_signal.h), so that a test interrupts a long call at a known point.
  m.def("_raise_signal_at_poll", &strand::raise_signal_at_poll, nanobind::arg("polls"),
        nanobind::arg("signal"),
        "Testing aid: the `polls`-th poll of a long call from now raises `signal` first.");
  // Whether this build has the CUDA backend module (loaded on first use: tensor/backend.h).
  m.attr("cuda_build") = strand::backend_built(strand::DeviceType::kCUDA);
}
