// What a front end asks of variants::score_variants(), as the library's VariantScoringOptions:
// the one translation of `strand variants`' flags (cli/variants_command.cpp) and the keyword
// arguments of strand.variants.score (python/src/variants_binding.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/trained_model.h"
#include "app/variant_outputs.h"
#include "core/device.h"
#include "variants/variant_scorer.h"

namespace strand::app {

/// The scoring options a caller gives, in its own words.
struct VariantScoringRequest {
  std::vector<std::string> outputs;  ///< outputs by name; empty: every scorable one
  std::vector<std::string> tasks;    ///< tasks or tracks by name or index; empty: all
  bool rc_average = false;
  /// Variants per pass, at least 1; none: 64, on a GPU as many as fit (two windows each, four
  /// with rc_average), up to 1024.
  std::optional<int64_t> batch_size;
  std::string ref_mismatch = "error";  ///< error, skip or warn
  std::string contig_end = "pad";      ///< pad or skip
  std::string chrom_alias;             ///< VARIANTS_NAME<TAB>FASTA_NAME lines; empty: none
  int64_t null_shuffles = 0;
  uint64_t seed = 1;
};

/// How a caller's messages name the options: the CLI's flags (the default), or a Python
/// function's keyword arguments (keyword_names()).
struct VariantOptionNames {
  OutputChoiceNames choice;
  std::string batch_size = "--batch-size";
  std::string ref_mismatch = "--ref-mismatch";
  std::string contig_end = "--contig-end";
  std::string null_shuffles = "--null-shuffles";

  /// The names of strand.variants.score's arguments (output, batch_size, ...).
  static VariantOptionNames keyword_names();
};

/// `request` as the library's options for `trained` on `device` (the outputs chosen, their
/// strands paired with rc_average, the input length and control tracks of the model, the batch
/// size resolved, the contig aliases read). Throws ConfigError naming the option (by `names`)
/// for an unknown word, a number out of its range, or an unknown output or task.
variants::VariantScoringOptions variant_scoring_options(const VariantScoringRequest& request,
                                                        const TrainedModel& trained, Device device,
                                                        const VariantOptionNames& names = {});

}  // namespace strand::app
