// simulate_single_motif_detection: background sampling, motif embedding, shuffle and split.
#include "data/simulation/motif_simulation.h"

#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "core/stop_signal.h"
#include "data/simulation/xoshiro_rng.h"

namespace strand::data {
namespace {

void validate(const Motif& motif, const MotifSimulationConfig& c) {
  if (motif.length() == 0) {
    throw std::invalid_argument(fmt::format("motif '{}' is empty", motif.name));
  }
  if (motif.length() > c.seq_length) {
    throw std::invalid_argument(fmt::format("motif '{}' ({} bp) is longer than seq_length {}",
                                            motif.name, motif.length(), c.seq_length));
  }
  if (!(c.gc_fraction >= 0.0 && c.gc_fraction <= 1.0)) {
    throw std::invalid_argument(fmt::format("gc_fraction {} outside [0, 1]", c.gc_fraction));
  }
  if (!(c.pseudocount >= 0.0 && c.pseudocount <= 1.0) ||
      !(c.reverse_complement_prob >= 0.0 && c.reverse_complement_prob <= 1.0)) {
    throw std::invalid_argument("pseudocount and reverse_complement_prob must lie in [0, 1]");
  }
  const std::size_t total = c.num_pos + c.num_neg;
  if (c.test_size + c.validation_size > total) {
    throw std::invalid_argument(
        fmt::format("test_size {} + validation_size {} exceed the {} simulated sequences",
                    c.test_size, c.validation_size, total));
  }
  if (total > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument(fmt::format("{} sequences is too many", total));
  }
}

SimulatedSplit take(const std::vector<std::uint8_t>& codes, const std::vector<float>& labels,
                    const std::vector<std::int32_t>& starts,
                    const std::vector<std::int8_t>& strands,
                    const std::vector<std::uint32_t>& order, std::size_t begin, std::size_t count,
                    std::size_t length) {
  SimulatedSplit s;
  s.seq_length = length;
  s.codes.reserve(count * length);
  for (std::size_t k = begin; k < begin + count; ++k) {
    const std::uint32_t i = order[k];
    const auto first = codes.begin() + static_cast<std::ptrdiff_t>(std::size_t{i} * length);
    s.codes.insert(s.codes.end(), first, first + static_cast<std::ptrdiff_t>(length));
    s.labels.push_back(labels[i]);
    s.ids.push_back(i);
    s.motif_starts.push_back(starts[i]);
    s.motif_strands.push_back(strands[i]);
  }
  return s;
}

}  // namespace

std::string SimulatedSplit::sequence_string(std::size_t i) const {
  std::string out(seq_length, 'N');
  const std::uint8_t* seq = sequence(i);
  for (std::size_t j = 0; j < seq_length; ++j) {
    out[j] = kBaseLetters[seq[j] < 5 ? seq[j] : 4];
  }
  return out;
}

SimulatedDataset simulate_single_motif_detection(const Motif& motif,
                                                 const MotifSimulationConfig& config) {
  validate(motif, config);
  const std::size_t length = config.seq_length;
  const std::size_t total = config.num_pos + config.num_neg;
  const double at = (1.0 - config.gc_fraction) / 2.0;
  const double gc = config.gc_fraction / 2.0;
  const std::array<double, 4> background{at, gc, gc, at};

  // Pseudocounted rows. std::fma is exactly rounded everywhere, so a compiler contracting (or
  // not contracting) a*b+c cannot change the probabilities between platforms.
  const double keep = 1.0 - config.pseudocount;
  const double spread = config.pseudocount / 4.0;
  std::vector<std::array<double, 4>> rows(motif.length());
  for (std::size_t p = 0; p < motif.length(); ++p) {
    for (int b = 0; b < 4; ++b) {
      rows[p][b] = std::fma(motif.rows[p][b], keep, spread);
    }
  }

  Rng rng(config.seed);
  std::vector<std::uint8_t> codes(total * length);
  std::vector<float> labels(total, 0.0f);
  std::vector<std::int32_t> starts(total, -1);
  std::vector<std::int8_t> strands(total, 0);
  std::vector<std::uint8_t> instance(motif.length());
  for (std::size_t i = 0; i < total; ++i) {
    if (i % 1024 == 0) throw_if_stop_requested();  // SIGINT/SIGTERM (core/stop_signal.h)
    std::uint8_t* seq = codes.data() + i * length;
    for (std::size_t j = 0; j < length; ++j) {
      seq[j] = static_cast<std::uint8_t>(rng.categorical(background));
    }
    if (i >= config.num_pos) {
      continue;
    }
    for (std::size_t p = 0; p < motif.length(); ++p) {
      instance[p] = static_cast<std::uint8_t>(rng.categorical(rows[p]));
    }
    const bool reverse = rng.bernoulli(config.reverse_complement_prob);
    const auto start = rng.uniform_int(length - motif.length() + 1);
    for (std::size_t p = 0; p < motif.length(); ++p) {
      // Reverse complement: read backwards and swap A<->T, C<->G (code 3 - b).
      seq[start + p] =
          reverse ? static_cast<std::uint8_t>(3 - instance[motif.length() - 1 - p]) : instance[p];
    }
    labels[i] = 1.0f;
    starts[i] = static_cast<std::int32_t>(start);
    strands[i] = reverse ? -1 : 1;
  }

  // Fisher-Yates with our own uniform_int (std::shuffle's draws are implementation-defined).
  std::vector<std::uint32_t> order(total);
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t k = total; k > 1; --k) {
    std::swap(order[k - 1], order[rng.uniform_int(k)]);
  }

  SimulatedDataset ds;
  ds.motif_name = motif.name;
  ds.config = config;
  const std::size_t n_test = config.test_size;
  const std::size_t n_valid = config.validation_size;
  ds.test = take(codes, labels, starts, strands, order, 0, n_test, length);
  ds.validation = take(codes, labels, starts, strands, order, n_test, n_valid, length);
  ds.train = take(codes, labels, starts, strands, order, n_test + n_valid, total - n_test - n_valid,
                  length);
  return ds;
}

}  // namespace strand::data
