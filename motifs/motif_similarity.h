// Comparing motifs column by column: the mean Pearson correlation of aligned PPM columns at the
// best offset and strand (the acceptance measure, and the report's quick check).
#pragma once

#include <cstdint>
#include <vector>

namespace strand::motifs {

/// The best alignment of two (width, 4) matrices.
struct ColumnMatch {
  double mean_pearson = -1;  ///< over the overlapping columns
  int64_t offset = 0;        ///< b's first column on a's (negative: before it)
  bool revcomp = false;      ///< b reverse-complemented
  int64_t overlap = 0;
};

/// The Pearson correlation of two PPM columns (4 values each).
double column_pearson(const double* x, const double* y);

/// The reverse complement of a (W x 4) row-major PPM: columns reversed, A<->T and C<->G.
std::vector<double> reverse_complement(const std::vector<double>& m);

/// The mean column Pearson correlation of `a` and `b` at the best offset and strand, over
/// offsets where at least ceil(0.75 * min(width a, width b)) columns overlap. A column without
/// variance (uniform) correlates 0.
ColumnMatch best_column_pearson(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace strand::motifs
