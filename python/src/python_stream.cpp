// sys.stdout as an ostream.
#include "python_stream.h"

namespace nb = nanobind;

namespace strand::python {

PythonStdoutBuffer::~PythonStdoutBuffer() {
  try {
    flush_to_python();
  } catch (...) {
    // A destructor must not throw; the text is lost only when Python itself is failing.
  }
}

int PythonStdoutBuffer::overflow(int c) {
  if (c == traits_type::eof()) return traits_type::not_eof(c);
  pending_.push_back(static_cast<char>(c));
  if (c == '\n' || c == '\r') flush_to_python();
  return c;
}

std::streamsize PythonStdoutBuffer::xsputn(const char* text, std::streamsize count) {
  pending_.append(text, static_cast<size_t>(count));
  if (pending_.find_first_of("\n\r") != std::string::npos) flush_to_python();
  return count;
}

int PythonStdoutBuffer::sync() {
  flush_to_python();
  return 0;
}

void PythonStdoutBuffer::flush_to_python() {
  if (pending_.empty() || !Py_IsInitialized()) return;
  nb::gil_scoped_acquire gil;
  std::string text;
  text.swap(pending_);
  try {
    nb::object stdout_object = nb::module_::import_("sys").attr("stdout");
    if (stdout_object.is_none()) return;
    stdout_object.attr("write")(nb::str(text.data(), text.size()));
    stdout_object.attr("flush")();
  } catch (nb::python_error& error) {
    // Printing progress must never stop training (a closed stdout, say).
    error.restore();
    PyErr_Clear();
  }
}

bool python_stdout_is_terminal() {
  try {
    nb::object stdout_object = nb::module_::import_("sys").attr("stdout");
    if (stdout_object.is_none() || !nb::hasattr(stdout_object, "isatty")) return false;
    return nb::cast<bool>(stdout_object.attr("isatty")());
  } catch (nb::python_error& error) {
    error.restore();
    PyErr_Clear();
    return false;
  }
}

}  // namespace strand::python
