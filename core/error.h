// Error: the exception type the engine throws, and a check macro that builds its message.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace strand {

/// The root of every exception strand throws: catching strand::Error catches them all.
/// Thrown itself for invalid arguments to the engine (shape, dtype or device mismatches, ...),
/// with a message naming the op and what was expected versus found. Derived: data::DataError
/// (bad input files), cli::ConfigError (bad configuration), dist::DistError (failed
/// collectives).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws strand::Error with a formatted message when `condition` is false.
#define STRAND_CHECK(condition, ...)                                   \
  do {                                                                 \
    if (!(condition)) throw ::strand::Error(fmt::format(__VA_ARGS__)); \
  } while (false)

}  // namespace strand
