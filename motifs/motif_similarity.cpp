// Mean column Pearson at the best offset and strand.
#include "motifs/motif_similarity.h"

#include <algorithm>
#include <cmath>

namespace strand::motifs {

double column_pearson(const double* x, const double* y) {
  const double mx = (x[0] + x[1] + x[2] + x[3]) / 4, my = (y[0] + y[1] + y[2] + y[3]) / 4;
  double sxy = 0, sxx = 0, syy = 0;
  for (int c = 0; c < 4; ++c) {
    sxy += (x[c] - mx) * (y[c] - my);
    sxx += (x[c] - mx) * (x[c] - mx);
    syy += (y[c] - my) * (y[c] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

std::vector<double> reverse_complement(const std::vector<double>& m) {
  const size_t w = m.size() / 4;
  std::vector<double> out(m.size());
  for (size_t p = 0; p < w; ++p) {
    for (size_t c = 0; c < 4; ++c) out[p * 4 + c] = m[(w - 1 - p) * 4 + (3 - c)];
  }
  return out;
}

ColumnMatch best_column_pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const auto wa = static_cast<int64_t>(a.size() / 4), wb = static_cast<int64_t>(b.size() / 4);
  const auto need = static_cast<int64_t>(std::ceil(0.75 * static_cast<double>(std::min(wa, wb))));
  ColumnMatch best;
  for (bool rc : {false, true}) {
    const std::vector<double> bb = rc ? reverse_complement(b) : b;
    for (int64_t offset = -wb + 1; offset < wa; ++offset) {
      const int64_t first = std::max<int64_t>(0, offset), last = std::min(wa, offset + wb);
      if (last - first < std::max<int64_t>(need, 1)) continue;
      double sum = 0;
      for (int64_t p = first; p < last; ++p) {
        sum += column_pearson(a.data() + p * 4, bb.data() + (p - offset) * 4);
      }
      const double mean = sum / static_cast<double>(last - first);
      if (mean > best.mean_pearson) best = {mean, offset, rc, last - first};
    }
  }
  return best;
}

}  // namespace strand::motifs
