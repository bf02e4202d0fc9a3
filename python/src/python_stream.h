// An std::ostream that writes to Python's sys.stdout, so that what the CLI prints (training
// progress, reports) appears in a notebook cell as in a terminal.
#pragma once

#include <nanobind/nanobind.h>

#include <ostream>
#include <streambuf>
#include <string>

namespace strand::python {

/// Buffers text and hands each line (or carriage-return update) to sys.stdout.write, taking
/// the GIL for it: safe to use while the GIL is released.
class PythonStdoutBuffer : public std::streambuf {
 public:
  PythonStdoutBuffer() = default;
  ~PythonStdoutBuffer() override;

 protected:
  int overflow(int c) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;
  int sync() override;

 private:
  void flush_to_python();
  std::string pending_;
};

/// An ostream over a PythonStdoutBuffer.
class PythonStdout : public std::ostream {
 public:
  PythonStdout() : std::ostream(&buffer_) {}

 private:
  PythonStdoutBuffer buffer_;
};

/// Whether sys.stdout is a terminal (the CLI's progress bar redraws there; notebooks get lines).
bool python_stdout_is_terminal();

}  // namespace strand::python
