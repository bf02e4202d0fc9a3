// SVG sequence logos (explain/logo.h).
#include "explain/logo.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/error.h"

namespace strand::explain {
namespace {

// The letters' outlines in a unit box, y down (0 = top): paths filled with the even-odd rule, so
// the inner contours of A, C and G are holes.
constexpr std::array<const char*, 4> kGlyphs = {
    // A: a triangle with a crossbar and a hole
    "M0,1 L0.4,0 L0.6,0 L1,1 L0.79,1 L0.68,0.72 L0.32,0.72 L0.21,1 Z "
    "M0.38,0.56 L0.62,0.56 L0.5,0.24 Z",
    // C: a ring open on the right
    "M0.883,0.179 A0.5,0.5 0 1,0 0.883,0.821 L0.737,0.699 A0.31,0.31 0 1,1 0.737,0.301 Z",
    // G: the C ring with a bar and a stub
    "M0.883,0.179 A0.5,0.5 0 1,0 0.99,0.6 L0.793,0.6 A0.31,0.31 0 1,1 0.737,0.301 Z "
    "M0.52,0.47 L1,0.47 L1,0.6 L0.52,0.6 Z",
    // T: a bar and a stem
    "M0,0 L1,0 L1,0.17 L0.59,0.17 L0.59,1 L0.41,1 L0.41,0.17 L0,0.17 Z",
};
constexpr std::array<const char*, 4> kColours = {"#109648", "#255C99", "#F7B32B", "#D62839"};
constexpr std::array<char, 4> kLetters = {'A', 'C', 'G', 'T'};

// A step for axis ticks: 1, 2 or 5 times a power of ten, about `span` / 4.
double tick_step(double span) {
  if (span <= 0.0) return 1.0;
  const double raw = span / 4.0;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10.0 * power;
}

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string logo_svg(const Tensor& scores_in, const LogoOptions& options) {
  STRAND_CHECK(scores_in.dim() == 2 && scores_in.size(0) == 4 && scores_in.size(1) >= 1,
               "logo: expected scores (4, W), got {}", scores_in.describe());
  const Tensor scores = scores_in.to(Device::cpu()).to(DType::kFloat32).contiguous();
  const int64_t width = scores.size(1);
  const float* s = scores.data<float>();
  // The extent of the stacks above and below the baseline.
  double top = 0.0, bottom = 0.0;
  for (int64_t t = 0; t < width; ++t) {
    double up = 0.0, down = 0.0;
    for (int64_t c = 0; c < 4; ++c) {
      const double v = std::isfinite(s[c * width + t]) ? s[c * width + t] : 0.0;
      (v > 0 ? up : down) += v;
    }
    top = std::max(top, up);
    bottom = std::min(bottom, down);
  }
  if (top - bottom <= 0.0) top = 1.0;  // all zero: an empty plot with a unit axis
  const double margin_left = 70.0, margin_right = 20.0, margin_top = 40.0, margin_bottom = 45.0;
  const double plot_width = options.column_width * static_cast<double>(width);
  const double plot_height = options.height;
  const double scale = plot_height / (top - bottom);  // pixels per unit of score
  const double baseline = margin_top + top * scale;
  const double total_width = margin_left + plot_width + margin_right;
  const double total_height = margin_top + plot_height + margin_bottom;

  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.1f} {1:.1f}\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      total_width, total_height);
  svg += "<defs>\n";
  for (int c = 0; c < 4; ++c) {
    svg += fmt::format("<path id=\"letter{}\" d=\"{}\" fill=\"{}\" fill-rule=\"evenodd\"/>\n",
                       kLetters[static_cast<size_t>(c)], kGlyphs[static_cast<size_t>(c)],
                       kColours[static_cast<size_t>(c)]);
  }
  svg += "</defs>\n";
  if (!options.title.empty()) {
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"22\" font-family=\"sans-serif\" font-size=\"14\">{}</text>\n",
        margin_left, escape(options.title));
  }
  // The letters: per position, positives stacked upwards from the baseline in increasing order
  // (the largest on top), negatives downwards (the most negative at the bottom), as logomaker.
  const double pad = options.column_width * 0.05;
  for (int64_t t = 0; t < width; ++t) {
    std::array<std::pair<double, int>, 4> column;
    for (int c = 0; c < 4; ++c) {
      const double v = s[c * width + t];
      column[static_cast<size_t>(c)] = {std::isfinite(v) ? v : 0.0, c};
    }
    std::sort(column.begin(), column.end(),
              [](const auto& a, const auto& b) { return std::abs(a.first) < std::abs(b.first); });
    double up = 0.0, down = 0.0;
    const double x = margin_left + options.column_width * static_cast<double>(t) + pad;
    const double w = options.column_width - 2 * pad;
    for (const auto& [value, c] : column) {
      const double h = std::abs(value) * scale;
      if (h < 0.05) continue;  // invisible
      if (value > 0) {
        const double y = baseline - (up + value) * scale;
        svg += fmt::format(
            "<use href=\"#letter{}\" transform=\"translate({:.2f},{:.2f}) "
            "scale({:.3f},{:.3f})\"/>\n",
            kLetters[static_cast<size_t>(c)], x, y, w, h);
        up += value;
      } else {
        // Flipped below the baseline: the unit box's top at the stack's bottom edge.
        const double y = baseline - (down + value) * scale;
        svg += fmt::format(
            "<use href=\"#letter{}\" transform=\"translate({:.2f},{:.2f}) "
            "scale({:.3f},{:.3f})\"/>\n",
            kLetters[static_cast<size_t>(c)], x, y, w, -h);
        down += value;
      }
    }
  }
  // Axes: the baseline, a y axis with ticks, position labels.
  svg += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.2f}\" x2=\"{2:.1f}\" y2=\"{1:.2f}\" stroke=\"#444\" "
      "stroke-width=\"1\"/>\n",
      margin_left, baseline, margin_left + plot_width);
  svg += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#444\" "
      "stroke-width=\"1\"/>\n",
      margin_left - 4, margin_top, margin_top + plot_height);
  const double step = tick_step(top - bottom);
  for (double v = std::ceil(bottom / step) * step; v <= top + 1e-12; v += step) {
    const double y = baseline - v * scale;
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.2f}\" x2=\"{2:.1f}\" y2=\"{1:.2f}\" stroke=\"#444\"/>\n"
        "<text x=\"{3:.1f}\" y=\"{4:.2f}\" font-family=\"sans-serif\" font-size=\"11\" "
        "text-anchor=\"end\">{5:.3g}</text>\n",
        margin_left - 8, y, margin_left - 4, margin_left - 10, y + 4,
        std::abs(v) < 1e-12 ? 0.0 : v);
  }
  svg += fmt::format(
      "<text transform=\"translate(16,{:.1f}) rotate(-90)\" font-family=\"sans-serif\" "
      "font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
      margin_top + plot_height / 2, escape(options.y_label));
  const int64_t label_every = width <= 20 ? 1 : width <= 60 ? 5 : width <= 200 ? 10 : 50;
  for (int64_t t = 0; t < width; ++t) {
    const int64_t position = options.first_position + t;
    if (position % label_every != 0 && t != 0) continue;
    const double x = margin_left + options.column_width * (static_cast<double>(t) + 0.5);
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-family=\"sans-serif\" font-size=\"10\" "
        "text-anchor=\"middle\">{}</text>\n",
        x, margin_top + plot_height + 16, position);
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-family=\"sans-serif\" font-size=\"12\" "
      "text-anchor=\"middle\">position</text>\n",
      margin_left + plot_width / 2, margin_top + plot_height + 36);
  svg += "</svg>\n";
  return svg;
}

}  // namespace strand::explain
