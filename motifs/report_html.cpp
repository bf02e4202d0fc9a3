// report.html: logos and matches per pattern.
#include "motifs/report_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "explain/logo.h"
#include "motifs/results_files.h"
#include "tensor/tensor.h"

namespace strand::motifs {
namespace {

// (width, 4) values as the (4, width) tensor logo_svg draws.
std::string logo(const std::vector<double>& values, const std::string& title,
                 const std::string& y_label) {
  const auto width = static_cast<int64_t>(values.size() / 4);
  std::vector<float> letters_first(values.size());
  for (int64_t p = 0; p < width; ++p) {
    for (int64_t c = 0; c < 4; ++c)
      letters_first[c * width + p] = static_cast<float>(values[p * 4 + c]);
  }
  explain::LogoOptions options;
  options.title = title;
  options.y_label = y_label;
  options.height = 110;
  options.column_width = 16;
  std::string svg = explain::logo_svg(Tensor::from_vector(letters_first, {4, width}), options);
  const size_t declaration = svg.find("?>");
  return declaration == std::string::npos ? svg : svg.substr(declaration + 2);
}

// Letter heights of a PPM: each probability times the column's information (bits).
std::vector<double> information_heights(const std::vector<double>& ppm) {
  std::vector<double> out(ppm.size());
  for (size_t p = 0; p < ppm.size() / 4; ++p) {
    double entropy = 0;
    for (size_t c = 0; c < 4; ++c) {
      const double q = ppm[p * 4 + c];
      if (q > 0) entropy -= q * std::log2(q);
    }
    for (size_t c = 0; c < 4; ++c) out[p * 4 + c] = ppm[p * 4 + c] * (2.0 - entropy);
  }
  return out;
}

std::vector<double> reverse_complement(const std::vector<double>& m) {
  const size_t w = m.size() / 4;
  std::vector<double> out(m.size());
  for (size_t p = 0; p < w; ++p) {
    for (size_t c = 0; c < 4; ++c) out[p * 4 + c] = m[(w - 1 - p) * 4 + (3 - c)];
  }
  return out;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  }
  return out;
}

std::string matches_cell(const Pattern& pattern, const std::vector<Motif>& database) {
  std::string cell;
  for (const MotifMatch& m : tomtom(trimmed_ppm(pattern), database, 3)) {
    const auto it = std::find_if(database.begin(), database.end(),
                                 [&m](const Motif& d) { return d.name == m.name; });
    const std::vector<double> ppm = m.revcomp ? reverse_complement(it->ppm) : it->ppm;
    cell += fmt::format("<div class=match><b>{}</b> p = {:.2e}, q = {:.2e}{}<br>{}</div>",
                        escape(m.name), m.p_value, m.q_value, m.revcomp ? " (reverse)" : "",
                        logo(information_heights(ppm), "", "bits"));
  }
  return cell;
}

}  // namespace

std::vector<double> trimmed_ppm(const Pattern& pattern) {
  const std::vector<double> ppm = pattern.mean(Track::kOneHot);
  const auto [first, last] = trimmed_span(pattern.mean(Track::kContrib));
  return {ppm.begin() + first * 4, ppm.begin() + last * 4};
}

std::string report_html(const Discovery& d, const std::vector<Motif>& database,
                        const std::string& title) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0}</title><style>"
      "body{{font-family:sans-serif;margin:20px}} table{{border-collapse:collapse}} "
      "td,th{{border:1px solid #ccc;padding:6px;vertical-align:top}} .match{{margin-bottom:6px}} "
      "td svg{{max-width:420px;height:auto}} .match svg{{height:80px;width:auto}}"
      "</style></head><body><h1>{0}</h1>\n<p>{1} positive and {2} negative seqlets; patterns "
      "by seqlet count (logos: each pattern's CWM, trimmed where it falls under 30% of its "
      "peak).</p>\n<table><tr><th>pattern</th><th>seqlets</th><th>CWM (forward)</th>"
      "<th>CWM (reverse)</th>{3}</tr>\n",
      escape(title), d.calls.positive.size(), d.calls.negative.size(),
      database.empty() ? "" : "<th>best matches (TOMTOM-like)</th>");
  for (const NamedPattern& named : named_patterns(d)) {
    const std::vector<double> cwm = named.pattern->mean(Track::kContrib);
    const auto [first, last] = trimmed_span(cwm);
    const std::vector<double> trimmed(cwm.begin() + first * 4, cwm.begin() + last * 4);
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}</tr>\n", named.name,
        named.pattern->seqlets().size(), logo(trimmed, "", "contribution"),
        logo(reverse_complement(trimmed), "", "contribution"),
        database.empty() ? "" : "<td>" + matches_cell(*named.pattern, database) + "</td>");
  }
  return html + "</table></body></html>\n";
}

}  // namespace strand::motifs
