// Sequence logos of contribution scores as SVG, drawn as logomaker draws them: at each position
// the four letters' scores stacked, each letter's height its score, positive scores above the
// baseline and negative ones below it (flipped). The letters are vector outlines (no font), so
// every SVG renderer draws them alike; A green, C blue, G orange, T red.
#pragma once

#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace strand::explain {

/// How a logo is labelled.
struct LogoOptions {
  std::string title;  ///< above the plot (the sequence's name, the method)
  std::string y_label = "contribution";
  int64_t first_position = 1;  ///< the label of the first column (1-based position)
  double column_width = 14.0;  ///< pixels per position
  double height = 220.0;       ///< pixels of the plotting area
};

/// An SVG document of the logo of `scores` ((4, W) float: A, C, G, T per position).
std::string logo_svg(const Tensor& scores, const LogoOptions& options = {});

}  // namespace strand::explain
