// Exception translation: each C++ type to the Python class of the same name, most specific
// first (a DataError is also a strand::Error).
#include "errors.h"

#include <string>

#include "cli/config_error.h"
#include "core/stop_signal.h"
#include "data/data_error.h"
#include "dist/communicator.h"
#include "train/fit.h"

namespace nb = nanobind;

namespace strand::python {
namespace {

// The classes, created once by bind_errors() (module lifetime: never freed).
PyObject* error_class = nullptr;
PyObject* data_error_class = nullptr;
PyObject* config_error_class = nullptr;
PyObject* dist_error_class = nullptr;
PyObject* diverged_class = nullptr;

PyObject* new_exception(nb::module_& m, const char* name, PyObject* bases, const char* doc) {
  const std::string qualified = std::string("strand.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::borrow(type);
  return type;
}

}  // namespace

void bind_errors(nb::module_& m) {
  error_class = new_exception(
      m, "Error", PyExc_RuntimeError,
      "The root of strand's exceptions: an engine error (shape, dtype or device mismatch, a "
      "failed computation). Every other strand exception derives from it.");
  nb::object value_bases = nb::make_tuple(nb::borrow(error_class), nb::borrow(PyExc_ValueError));
  data_error_class = new_exception(
      m, "DataError", value_bases.ptr(),
      "Unreadable, malformed or inconsistent input data; the message names the file, the line, "
      "what was expected and what was found. Also a ValueError.");
  config_error_class = new_exception(
      m, "ConfigError", value_bases.ptr(),
      "A bad configuration or argument; the message names the key, argument or file at fault. "
      "Also a ValueError.");
  dist_error_class =
      new_exception(m, "DistError", error_class, "A failed collective of data-parallel training.");
  diverged_class =
      new_exception(m, "TrainingDiverged", error_class, "The training loss stopped being finite.");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const data::DataError& e) {
      PyErr_SetString(data_error_class, e.what());
    } catch (const cli::ConfigError& e) {
      PyErr_SetString(config_error_class, e.what());
    } catch (const dist::DistError& e) {
      PyErr_SetString(dist_error_class, e.what());
    } catch (const train::TrainingDiverged& e) {
      PyErr_SetString(diverged_class, e.what());
    } catch (const Interrupted&) {
      // Ctrl-C during a long call (core/stop_signal.h): what Python's own handler would raise.
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const Error& e) {
      PyErr_SetString(error_class, e.what());
    }
  });
}

}  // namespace strand::python
