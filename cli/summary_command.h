// `strand summary`: the model table (layers, output shapes, parameter counts) of a config.
#pragma once

#include <ostream>
#include <string>

#include "app/run_config.h"

namespace strand::cli {

/// Builds the configured model for its data's sizes and returns its summary table (layers or
/// nodes, output shapes, parameter counts), after a line naming the input and where its sizes
/// came from.
std::string model_summary(const app::RunConfig& config);

}  // namespace strand::cli
