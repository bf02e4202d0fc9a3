// ConfigError: a configuration problem; its message names the key (or file) at fault.
#pragma once

#include "core/error.h"

namespace strand::app {

/// A configuration problem; the message names the key (or file) at fault.
class ConfigError : public Error {
 public:
  using Error::Error;
};

}  // namespace strand::app
