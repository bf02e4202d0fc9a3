// Window counting around cuts, the motifs' statistics and their report.
#include "data/reads/cut_motif.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "data/data_error.h"

namespace strand::data {
namespace {

int base_index(char c) {
  switch (c) {
    case 'A':
    case 'a':
      return 0;
    case 'C':
    case 'c':
      return 1;
    case 'G':
    case 'g':
      return 2;
    case 'T':
    case 't':
      return 3;
    default:
      return -1;
  }
}

std::vector<std::array<double, 4>> normalised(const std::vector<std::array<double, 4>>& counts) {
  std::vector<std::array<double, 4>> rows = counts;
  for (auto& row : rows) {
    const double total = row[0] + row[1] + row[2] + row[3];
    for (double& p : row) p = total > 0.0 ? p / total : 0.25;
  }
  return rows;
}

// The offset d maximising the agreement of p_plus[i] and p_minus[i + d] (their departures from
// the background, dotted, over the rows both cover).
int best_strand_offset(const CutMotif& m) {
  const auto& plus = m.rows[1];
  const auto& minus = m.rows[2];
  const int w = m.width;
  int best = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  for (int d = -w / 2; d <= w / 2; ++d) {
    double score = 0.0;
    for (int i = std::max(0, -d); i < w && i + d < w; ++i) {
      for (size_t b = 0; b < 4; ++b) {
        score += (plus[static_cast<size_t>(i)][b] - m.background[b]) *
                 (minus[static_cast<size_t>(i + d)][b] - m.background[b]);
      }
    }
    // Ties go to the smaller shift.
    if (score > best_score + 1e-15 ||
        (std::abs(score - best_score) <= 1e-15 && std::abs(d) < std::abs(best))) {
      best_score = score;
      best = d;
    }
  }
  return best;
}

}  // namespace

std::vector<double> CutMotif::information(size_t strand) const {
  std::vector<double> bits;
  for (const auto& row : rows[strand]) {
    double sum = 0.0;
    for (size_t b = 0; b < 4; ++b) {
      if (row[b] > 0.0 && background[b] > 0.0) sum += row[b] * std::log2(row[b] / background[b]);
    }
    bits.push_back(sum);
  }
  return bits;
}

std::string CutMotif::consensus(size_t strand, double min_bits) const {
  const std::vector<double> bits = information(strand);
  std::string text;
  for (size_t i = 0; i < rows[strand].size(); ++i) {
    const auto& row = rows[strand][i];
    size_t top = 0;
    for (size_t b = 1; b < 4; ++b) {
      if (row[b] > row[top]) top = b;
    }
    const char letter = "ACGT"[top];
    text += bits[i] >= min_bits ? letter : static_cast<char>(letter - 'A' + 'a');
  }
  return text;
}

CutMotifCounter::CutMotifCounter(const FastaReader& genome, int width)
    : genome_(genome), width_(width) {
  if (width < 2 || width > 1000 || width % 2 != 0) {
    throw DataError(fmt::format("cut motif: width {} is not even in [2, 1000]", width));
  }
  for (auto& counts : counts_) counts.assign(static_cast<size_t>(width), {0.0, 0.0, 0.0, 0.0});
}

void CutMotifCounter::add(const CutChunk& chunk) {
  const Contig& contig = genome_.contigs()[static_cast<size_t>(chunk.contig)];
  const int64_t half = width_ / 2;
  const auto n = static_cast<int64_t>(chunk.plus.size());
  // Cuts whose window [cut - half, cut + half) lies inside the contig.
  const int64_t first = std::max(chunk.start, half);
  const int64_t last = std::min(chunk.start + n, contig.length - half);  // exclusive
  if (first >= last) return;
  const std::string bases = genome_.fetch(contig.name, first - half, last + half);
  for (int64_t cut = first; cut < last; ++cut) {
    const auto at = static_cast<size_t>(cut - chunk.start);
    const std::array<double, 2> weights = {static_cast<double>(chunk.plus[at]),
                                           static_cast<double>(chunk.minus[at])};
    if (weights[0] == 0.0 && weights[1] == 0.0) continue;
    const char* window = bases.data() + (cut - first);
    for (size_t i = 0; i < static_cast<size_t>(width_); ++i) {
      const int b = base_index(window[i]);
      if (b < 0) continue;
      counts_[0][i][static_cast<size_t>(b)] += weights[0];
      counts_[1][i][static_cast<size_t>(b)] += weights[1];
    }
    cuts_[0] += weights[0];
    cuts_[1] += weights[1];
  }
}

CutMotif CutMotifCounter::motif() const {
  CutMotif m;
  m.width = width_;
  m.cuts = {cuts_[0] + cuts_[1], cuts_[0], cuts_[1]};
  std::vector<std::array<double, 4>> all = counts_[0];
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t b = 0; b < 4; ++b) all[i][b] += counts_[1][i][b];
  }
  std::array<double, 4> totals{};
  for (const auto& row : all) {
    for (size_t b = 0; b < 4; ++b) totals[b] += row[b];
  }
  const double sum = totals[0] + totals[1] + totals[2] + totals[3];
  for (size_t b = 0; b < 4; ++b) m.background[b] = sum > 0.0 ? totals[b] / sum : 0.25;
  const std::array<const std::vector<std::array<double, 4>>*, 3> sources = {&all, &counts_[0],
                                                                            &counts_[1]};
  for (size_t s = 0; s < 3; ++s) {
    if (m.cuts[s] > 0.0) m.rows[s] = normalised(*sources[s]);
  }
  if (m.cuts[1] > 0.0 && m.cuts[2] > 0.0) m.strand_offset = best_strand_offset(m);
  return m;
}

std::string cut_motif_report(const CutMotif& motif) {
  if (motif.cuts[0] == 0.0) {
    return "cut motif: no cut has a full window inside its contig; nothing to show\n";
  }
  const int half = motif.width / 2;
  std::string text = fmt::format(
      "cut motif ({} bp around {:.0f} cuts, weighted by count; the cut base is the {}th letter, "
      "capitals hold >= 0.1 bits over the background):\n",
      motif.width, motif.cuts[0], half + 1);
  for (size_t s = 0; s < 3; ++s) {
    if (motif.cuts[s] == 0.0) continue;
    const std::vector<double> bits = motif.information(s);
    double peak = 0.0;
    int peak_at = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      if (bits[i] > peak) peak = bits[i], peak_at = static_cast<int>(i) - half;
    }
    text += fmt::format("  {:<5} {}  ({:.0f} cuts; most information {:.2f} bits at {:+d})\n",
                        kCutMotifStrands[s], motif.consensus(s), motif.cuts[s], peak, peak_at);
  }
  if (motif.strand_offset) {
    text += fmt::format(
        "  the - strand motif sits {:+d} bp from the + strand one (ATAC with the right shift: "
        "0; an unshifted BAM: -8; add the offset to --shift-minus to line them up)\n",
        *motif.strand_offset);
  }
  return text;
}

std::vector<Motif> cut_motif_matrices(const CutMotif& motif, const std::string& name) {
  std::vector<Motif> motifs;
  for (size_t s = 0; s < 3; ++s) {
    if (motif.cuts[s] == 0.0) continue;
    Motif m;
    m.name = fmt::format("{}_{}", name, kCutMotifStrands[s]);
    m.consensus = motif.consensus(s);
    m.rows = motif.rows[s];
    motifs.push_back(std::move(m));
  }
  return motifs;
}

}  // namespace strand::data
