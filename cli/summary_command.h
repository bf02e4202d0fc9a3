// `strand summary`: the model table (layers, output shapes, parameter counts) of a config.
#pragma once

#include <ostream>
#include <string>

#include "cli/run_config.h"

namespace strand::cli {

/// Builds the configured model for its input length and returns Sequential::summary().
std::string model_summary(const RunConfig& config);

}  // namespace strand::cli
