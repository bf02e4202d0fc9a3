// The ATAC-seq simulation with a Tn5-like cut bias (data/simulation/atac_simulation.h).
#include "data/simulation/atac_simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/stop_signal.h"
#include "data/simulation/motif_embedding.h"
#include "data/simulation/xoshiro_rng.h"

namespace strand::data {
namespace {

void validate(const std::vector<Motif>& motifs, const AtacSimulationConfig& c) {
  if (motifs.empty()) throw std::invalid_argument("an ATAC simulation needs at least one motif");
  if (c.contigs < 3) {
    throw std::invalid_argument(fmt::format(
        "{} contigs: at least 3 are needed (the last is the test set, the one before it the "
        "validation set)",
        c.contigs));
  }
  if (c.contig_length > (std::size_t{1} << 31)) {
    throw std::invalid_argument(fmt::format("contig_length {} is too long", c.contig_length));
  }
  for (const Motif& m : motifs) {
    if (m.length() == 0 || m.length() > c.min_distance) {
      throw std::invalid_argument(fmt::format(
          "motif '{}' ({} bp) must be shorter than min_distance {} (peaks would overlap)", m.name,
          m.length(), c.min_distance));
    }
  }
  if (c.flank < c.peak_half_width + c.min_distance / 2) {
    throw std::invalid_argument(fmt::format(
        "flank {} must hold peak_half_width {} + min_distance / 2", c.flank, c.peak_half_width));
  }
  if (c.contig_length < 2 * c.flank + c.min_distance * c.peaks_per_contig) {
    throw std::invalid_argument(fmt::format(
        "{} peaks at least {} bases apart and {} bases from the ends do not fit in a contig of {} "
        "bases",
        c.peaks_per_contig, c.min_distance, c.flank, c.contig_length));
  }
  const bool rates_ok = c.cuts_per_peak >= 0.0 && c.cuts_per_peak <= 1e9 &&
                        c.background_rate >= 0.0 && c.background_rate <= 1e3 &&
                        c.footprint_depth >= 0.0 && c.footprint_depth <= 1.0 && c.bias_cap >= 1.0;
  if (!rates_ok) {
    throw std::invalid_argument(
        "cuts_per_peak (up to 1e9) and background_rate (up to 1e3) must be >= 0, "
        "footprint_depth in [0, 1], bias_cap >= 1");
  }
}

}  // namespace

Motif tn5_bias_motif() {
  Motif motif;
  motif.name = "Tn5_bias";
  motif.consensus = "GCTATAGC";
  for (const char base : motif.consensus) {
    std::array<double, 4> row = {0.18, 0.18, 0.18, 0.18};
    row[static_cast<std::size_t>(std::string_view("ACGT").find(base))] = 0.46;
    motif.rows.push_back(row);
  }
  return motif;
}

std::vector<double> cut_bias(const Motif& bias, std::span<const std::uint8_t> codes,
                             double gc_fraction, double cap) {
  const std::array<double, 4> background = {(1.0 - gc_fraction) / 2, gc_fraction / 2,
                                            gc_fraction / 2, (1.0 - gc_fraction) / 2};
  const std::size_t width = bias.length(), before = width / 2;
  std::vector<double> factor(codes.size(), 1.0);
  for (std::size_t i = before; i + width - before <= codes.size(); ++i) {
    double product = 1.0;
    for (std::size_t j = 0; j < width; ++j) {
      const std::uint8_t code = codes[i - before + j];
      if (code > 3) {
        product = 1.0;
        break;
      }
      product *= bias.rows[j][code] / std::max(background[code], 1e-6);
    }
    factor[i] = std::min(product, cap);
  }
  return factor;
}

AtacSimulation simulate_atac(const std::vector<Motif>& motifs, const AtacSimulationConfig& config) {
  validate(motifs, config);
  const AtacSimulationConfig& c = config;
  AtacSimulation sim;
  sim.config = c;
  sim.bias = tn5_bias_motif();
  std::vector<SamplingMotif> sampling;
  for (const Motif& m : motifs) sampling.emplace_back(m, c.pseudocount);
  Rng rng(c.seed);
  // The accessibility of a peak around its centre: a triangle of half-width w summing to 1.
  const auto w = static_cast<std::ptrdiff_t>(c.peak_half_width);
  std::vector<double> shape;
  for (std::ptrdiff_t d = -w; d <= w; ++d)
    shape.push_back(static_cast<double>(w + 1 - std::abs(d)));
  double shape_total = 0.0;
  for (const double s : shape) shape_total += s;
  for (double& s : shape) s /= shape_total;
  std::vector<std::uint8_t> instance;
  for (std::size_t k = 0; k < c.contigs; ++k) {
    throw_if_stop_requested();  // SIGINT/SIGTERM (core/stop_signal.h)
    sim.contig_names.push_back(fmt::format("chr{}", k + 1));
    std::vector<std::uint8_t> codes(c.contig_length);
    sample_background(rng, c.gc_fraction, codes);
    std::vector<double> rate(c.contig_length, c.background_rate);
    Occupancy occupancy(c.contig_length);
    std::vector<AtacPeak> contig_peaks;
    for (std::size_t p = 0; p < c.peaks_per_contig; ++p) {
      AtacPeak peak;
      peak.contig = k;
      peak.motif = rng.uniform_int(sampling.size());
      const SamplingMotif& motif = sampling[peak.motif];
      instance.resize(motif.length());
      sample_instance(rng, motif, instance);
      const std::size_t block =
          place(rng, occupancy, c.min_distance, c.flank, c.contig_length - c.flank, "a peak");
      peak.start = block + (c.min_distance - motif.length()) / 2;
      peak.centre = peak.start + motif.length() / 2;
      write_instance(instance, rng.bernoulli(c.reverse_complement_prob), peak.start, codes);
      peak.cuts = static_cast<double>(rng.poisson(c.cuts_per_peak));
      const auto centre = static_cast<std::ptrdiff_t>(peak.centre);
      for (std::ptrdiff_t d = -w; d <= w; ++d) {
        rate[static_cast<std::size_t>(centre + d)] += peak.cuts * shape[static_cast<size_t>(d + w)];
      }
      // The bound TF protects its own bases from the enzyme: a footprint.
      const std::size_t protected_start = peak.start >= 3 ? peak.start - 3 : 0;
      for (std::size_t i = protected_start; i < peak.start + motif.length() + 3; ++i) {
        rate[i] *= c.footprint_depth;
      }
      contig_peaks.push_back(peak);
    }
    const std::vector<double> bias = cut_bias(sim.bias, codes, c.gc_fraction, c.bias_cap);
    std::vector<float> cuts(c.contig_length, 0.0F);
    for (std::size_t i = 0; i < c.contig_length; ++i) {
      cuts[i] = static_cast<float>(rng.poisson(rate[i] * bias[i]));
    }
    std::sort(contig_peaks.begin(), contig_peaks.end(),
              [](const AtacPeak& a, const AtacPeak& b) { return a.centre < b.centre; });
    sim.peaks.insert(sim.peaks.end(), contig_peaks.begin(), contig_peaks.end());
    sim.sequences.push_back(std::move(codes));
    sim.cuts.push_back(std::move(cuts));
  }
  return sim;
}

}  // namespace strand::data
