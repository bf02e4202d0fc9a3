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

// Where a logo's parts go, in pixels (y down), and its score range.
struct LogoLayout {
  double top = 0.0, bottom = 0.0;  // the extent of the stacks above and below the baseline
  double margin_left = 70.0, margin_right = 20.0, margin_top = 40.0, margin_bottom = 45.0;
  double plot_width = 0.0, plot_height = 0.0;
  double scale = 0.0;  // pixels per unit of score
  double baseline = 0.0;
};

// s: (4, width) scores.
LogoLayout logo_layout(const float* s, int64_t width, const LogoOptions& options) {
  LogoLayout layout;
  for (int64_t t = 0; t < width; ++t) {
    double up = 0.0, down = 0.0;
    for (int64_t c = 0; c < 4; ++c) {
      const double v = std::isfinite(s[c * width + t]) ? s[c * width + t] : 0.0;
      (v > 0 ? up : down) += v;
    }
    layout.top = std::max(layout.top, up);
    layout.bottom = std::min(layout.bottom, down);
  }
  if (layout.top - layout.bottom <= 0.0) layout.top = 1.0;  // all zero: a unit axis
  layout.plot_width = options.column_width * static_cast<double>(width);
  layout.plot_height = options.height;
  layout.scale = layout.plot_height / (layout.top - layout.bottom);
  layout.baseline = layout.margin_top + layout.top * layout.scale;
  return layout;
}

// The document's start: its size, the letters' definitions and the title.
std::string svg_start(const LogoLayout& layout, const LogoOptions& options) {
  const double total_width = layout.margin_left + layout.plot_width + layout.margin_right;
  const double total_height = layout.margin_top + layout.plot_height + layout.margin_bottom;
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
        layout.margin_left, escape(options.title));
  }
  return svg;
}

// The letters of column t of s (4, width): positives stacked upwards from the baseline in
// increasing order (the largest on top), negatives downwards (the most negative at the
// bottom), as logomaker.
std::string letter_stack(const float* s, int64_t width, int64_t t, const LogoLayout& layout,
                         const LogoOptions& options) {
  const double pad = options.column_width * 0.05;
  std::array<std::pair<double, int>, 4> column;
  for (int c = 0; c < 4; ++c) {
    const double v = s[c * width + t];
    column[static_cast<size_t>(c)] = {std::isfinite(v) ? v : 0.0, c};
  }
  std::sort(column.begin(), column.end(),
            [](const auto& a, const auto& b) { return std::abs(a.first) < std::abs(b.first); });
  std::string svg;
  double up = 0.0, down = 0.0;
  const double x = layout.margin_left + options.column_width * static_cast<double>(t) + pad;
  const double w = options.column_width - 2 * pad;
  for (const auto& [value, c] : column) {
    const double h = std::abs(value) * layout.scale;
    if (h < 0.05) continue;  // invisible
    // Below the baseline the letter is flipped: the unit box's top at the stack's bottom edge.
    double& stacked = value > 0 ? up : down;
    const double y = layout.baseline - (stacked + value) * layout.scale;
    svg += fmt::format(
        "<use href=\"#letter{}\" transform=\"translate({:.2f},{:.2f}) "
        "scale({:.3f},{:.3f})\"/>\n",
        kLetters[static_cast<size_t>(c)], x, y, w, value > 0 ? h : -h);
    stacked += value;
  }
  return svg;
}

// The baseline and the y axis with its ticks and label.
std::string y_axis(const LogoLayout& layout, const LogoOptions& options) {
  const double left = layout.margin_left;
  std::string svg = fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.2f}\" x2=\"{2:.1f}\" y2=\"{1:.2f}\" stroke=\"#444\" "
      "stroke-width=\"1\"/>\n",
      left, layout.baseline, left + layout.plot_width);
  svg += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#444\" "
      "stroke-width=\"1\"/>\n",
      left - 4, layout.margin_top, layout.margin_top + layout.plot_height);
  const double step = tick_step(layout.top - layout.bottom);
  for (double v = std::ceil(layout.bottom / step) * step; v <= layout.top + 1e-12; v += step) {
    const double y = layout.baseline - v * layout.scale;
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.2f}\" x2=\"{2:.1f}\" y2=\"{1:.2f}\" stroke=\"#444\"/>\n"
        "<text x=\"{3:.1f}\" y=\"{4:.2f}\" font-family=\"sans-serif\" font-size=\"11\" "
        "text-anchor=\"end\">{5:.3g}</text>\n",
        left - 8, y, left - 4, left - 10, y + 4, std::abs(v) < 1e-12 ? 0.0 : v);
  }
  svg += fmt::format(
      "<text transform=\"translate(16,{:.1f}) rotate(-90)\" font-family=\"sans-serif\" "
      "font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
      layout.margin_top + layout.plot_height / 2, escape(options.y_label));
  return svg;
}

// The position labels under the columns and the x axis' title.
std::string x_axis(int64_t width, const LogoLayout& layout, const LogoOptions& options) {
  std::string svg;
  const double label_y = layout.margin_top + layout.plot_height + 16;
  const int64_t label_every = width <= 20 ? 1 : width <= 60 ? 5 : width <= 200 ? 10 : 50;
  for (int64_t t = 0; t < width; ++t) {
    const int64_t position = options.first_position + t;
    if (position % label_every != 0 && t != 0) continue;
    const double x = layout.margin_left + options.column_width * (static_cast<double>(t) + 0.5);
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-family=\"sans-serif\" font-size=\"10\" "
        "text-anchor=\"middle\">{}</text>\n",
        x, label_y, position);
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-family=\"sans-serif\" font-size=\"12\" "
      "text-anchor=\"middle\">position</text>\n",
      layout.margin_left + layout.plot_width / 2, layout.margin_top + layout.plot_height + 36);
  return svg;
}

}  // namespace

std::string logo_svg(const Tensor& scores_in, const LogoOptions& options) {
  STRAND_CHECK(scores_in.dim() == 2 && scores_in.size(0) == 4 && scores_in.size(1) >= 1,
               "logo: expected scores (4, W), got {}", scores_in.describe());
  const Tensor scores = scores_in.to(Device::cpu()).to(DType::kFloat32).contiguous();
  const int64_t width = scores.size(1);
  const float* s = scores.data<float>();
  const LogoLayout layout = logo_layout(s, width, options);
  std::string svg = svg_start(layout, options);
  for (int64_t t = 0; t < width; ++t) svg += letter_stack(s, width, t, layout, options);
  svg += y_axis(layout, options);
  svg += x_axis(width, layout, options);
  svg += "</svg>\n";
  return svg;
}

}  // namespace strand::explain
