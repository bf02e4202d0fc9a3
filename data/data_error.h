// DataError: the one exception type the data loader throws for bad input or I/O failure.
#pragma once

#include "core/error.h"

namespace strand::data {

/// Thrown for unreadable, malformed or inconsistent input. The message names the file,
/// the line (where there is one), what was expected and what was found.
class DataError : public Error {
 public:
  using Error::Error;
};

}  // namespace strand::data
