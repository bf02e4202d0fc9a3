// One translation of the variants options for both front ends (app/variant_scoring.h).
#include "app/variant_scoring.h"

#include <fmt/format.h>

#include "app/config_error.h"
#include "core/error.h"
#include "train/inference_batch.h"
#include "variants/contig_names.h"

namespace strand::app {
namespace {

// request.batch_size, else 64 variants a pass; on a GPU, as many as fit (two windows each, four
// with rc_average), up to 1024.
int64_t variants_per_pass(const VariantScoringRequest& request, const TrainedModel& trained,
                          Device device) {
  if (request.batch_size) return *request.batch_size;
  const int64_t windows_per_variant = request.rc_average ? 4 : 2;
  const int64_t windows =
      train::inference_batch_size(*trained.model, trained.dimensions.length, device,
                                  64 * windows_per_variant, 1024 * windows_per_variant);
  return windows / windows_per_variant;
}

}  // namespace

VariantOptionNames VariantOptionNames::keyword_names() {
  return {.choice = {.output = "output", .task = "task", .rc_average = "rc_average"},
          .batch_size = "batch_size",
          .ref_mismatch = "ref_mismatch",
          .contig_end = "contig_end",
          .null_shuffles = "null_shuffles"};
}

variants::VariantScoringOptions variant_scoring_options(const VariantScoringRequest& request,
                                                        const TrainedModel& trained, Device device,
                                                        const VariantOptionNames& names) {
  if (request.batch_size && *request.batch_size < 1) {
    throw ConfigError(
        fmt::format("{}: must be >= 1, got {}", names.batch_size, *request.batch_size));
  }
  if (request.null_shuffles < 0) {
    throw ConfigError(
        fmt::format("{}: must be >= 0, got {}", names.null_shuffles, request.null_shuffles));
  }
  variants::VariantScoringOptions scoring;
  try {
    scoring.ref_mismatch = variants::parse_ref_mismatch_policy(request.ref_mismatch);
  } catch (const Error&) {
    throw ConfigError(fmt::format("{}: '{}' is not one of error, skip, warn", names.ref_mismatch,
                                  request.ref_mismatch));
  }
  try {
    scoring.contig_end = variants::parse_contig_end_policy(request.contig_end);
  } catch (const Error&) {
    throw ConfigError(
        fmt::format("{}: '{}' is not one of pad, skip", names.contig_end, request.contig_end));
  }
  scoring.outputs = scored_outputs(trained, request.outputs, request.tasks, names.choice);
  if (request.rc_average) pair_reverse_strands(trained, scoring.outputs, names.choice);
  scoring.input_length = trained.dimensions.length;
  scoring.control_tracks = trained.dimensions.control_tracks;
  scoring.rc_average = request.rc_average;
  scoring.batch_size = variants_per_pass(request, trained, device);
  scoring.null_shuffles = request.null_shuffles;
  scoring.seed = request.seed;
  if (!request.chrom_alias.empty()) {
    scoring.contig_aliases = variants::read_contig_aliases(request.chrom_alias);
    scoring.contig_alias_file = request.chrom_alias;
  }
  return scoring;
}

}  // namespace strand::app
