// Motif insertion into backgrounds (explain/marginalize.h).
#include "explain/marginalize.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "explain/insertion_values.h"
#include "ops/reduction.h"

namespace strand::explain {
namespace {

Tensor column_means(const Tensor& values) { return ops::mean(values, {0}); }

}  // namespace

std::vector<uint8_t> motif_codes(std::string_view letters) {
  STRAND_CHECK(!letters.empty(), "marginalize: the motif is empty");
  std::vector<uint8_t> codes;
  for (size_t i = 0; i < letters.size(); ++i) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(letters[i])));
    const char* at = std::strchr("ACGT", c);
    STRAND_CHECK(c != '\0' && at != nullptr,
                 "motif '{}': letter '{}' at position {} is not one of A, C, G, T (write a "
                 "consensus of ACGT, or give a PWM in a MEME file)",
                 letters, letters[i], i + 1);
    codes.push_back(static_cast<uint8_t>(at - "ACGT"));
  }
  return codes;
}

MarginalizeResult marginalize(Model& model, const Tensor& backgrounds,
                              const std::vector<Insertion>& insertions,
                              const MarginalizeOptions& options) {
  STRAND_CHECK(backgrounds.dim() == 2 && backgrounds.dtype() == DType::kUInt8,
               "marginalize: expected background codes (N, L) uint8, got {}",
               backgrounds.describe());
  check_target(model, backgrounds.size(1), options.target);
  InsertionValues values = insertion_values(model, backgrounds, {insertions}, options);
  MarginalizeResult result;
  result.before = values.background;
  result.after = values.inserted[0];
  return result;
}

namespace {

// {start of A, start of B} for centres `spacing` apart, the pair centred in `length` bases.
std::pair<int64_t, int64_t> unchecked_pair_starts(int64_t length, int64_t width_a, int64_t width_b,
                                                  int64_t spacing) {
  // Centres: A's at (length - spacing) / 2, B's spacing bases further.
  const double centre_a = (static_cast<double>(length) - static_cast<double>(spacing)) / 2.0;
  const auto start_a = static_cast<int64_t>(std::floor(centre_a - width_a / 2.0));
  const auto start_b =
      static_cast<int64_t>(std::floor(centre_a + static_cast<double>(spacing) - width_b / 2.0));
  return {start_a, start_b};
}

}  // namespace

bool pair_overlaps(int64_t length, int64_t width_a, int64_t width_b, int64_t spacing) {
  const auto [start_a, start_b] = unchecked_pair_starts(length, width_a, width_b, spacing);
  return start_a < start_b + width_b && start_b < start_a + width_a;
}

std::pair<int64_t, int64_t> pair_starts(int64_t length, int64_t width_a, int64_t width_b,
                                        int64_t spacing) {
  const auto [start_a, start_b] = unchecked_pair_starts(length, width_a, width_b, spacing);
  STRAND_CHECK(
      start_a >= 0 && start_a + width_a <= length && start_b >= 0 && start_b + width_b <= length,
      "--spacing {}: motifs of {} and {} bases {} bases apart (centre to centre) do not "
      "fit in sequences of {} bases",
      spacing, width_a, width_b, spacing, length);
  STRAND_CHECK(!pair_overlaps(length, width_a, width_b, spacing),
               "--spacing {}: motifs of {} and {} bases {} bases apart (centre to centre) overlap: "
               "B would overwrite part of A, and their interaction would be an artefact of the "
               "overwrite; space them further apart",
               spacing, width_a, width_b, spacing);
  return {start_a, start_b};
}

std::vector<int64_t> pair_spacings(int64_t length, int64_t width_a, int64_t width_b, int64_t first,
                                   int64_t last) {
  STRAND_CHECK(first <= last, "--spacing {}:{}: the first spacing exceeds the last", first, last);
  std::vector<int64_t> spacings;
  for (int64_t d = first; d <= last; ++d) {
    if (pair_overlaps(length, width_a, width_b, d)) continue;
    pair_starts(length, width_a, width_b, d);  // fits
    spacings.push_back(d);
  }
  STRAND_CHECK(!spacings.empty(),
               "--spacing {}:{}: motifs of {} and {} bases overlap at every spacing of the range "
               "(B would overwrite part of A); space them further apart",
               first, last, width_a, width_b);
  return spacings;
}

std::vector<SpacingEffect> marginalize_spacing(Model& model, const Tensor& backgrounds,
                                               const std::vector<uint8_t>& a,
                                               const std::vector<uint8_t>& b, int64_t first,
                                               int64_t last, const MarginalizeOptions& options) {
  const int64_t length = backgrounds.size(1);
  const auto width_a = static_cast<int64_t>(a.size());
  const auto width_b = static_cast<int64_t>(b.size());
  // Every spacing is checked before any work.
  const std::vector<int64_t> spacings = pair_spacings(length, width_a, width_b, first, last);
  check_target(model, length, options.target);
  // Per spacing: A alone, B alone, both.
  std::vector<std::vector<Insertion>> sets;
  for (const int64_t d : spacings) {
    const auto [start_a, start_b] = pair_starts(length, width_a, width_b, d);
    sets.push_back({{a, start_a}});
    sets.push_back({{b, start_b}});
    sets.push_back({{a, start_a}, {b, start_b}});
  }
  const InsertionValues values = insertion_values(model, backgrounds, sets, options);
  const Tensor background = column_means(values.background);
  std::vector<SpacingEffect> effects;
  for (size_t i = 0; i < spacings.size(); ++i) {
    SpacingEffect effect;
    effect.spacing = spacings[i];
    effect.background = background;
    effect.a = column_means(values.inserted[3 * i]);
    effect.b = column_means(values.inserted[3 * i + 1]);
    effect.both = column_means(values.inserted[3 * i + 2]);
    effects.push_back(std::move(effect));
  }
  return effects;
}

}  // namespace strand::explain
