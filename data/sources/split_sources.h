// Train, validation and test sources cut from one labelled file (data/intervals/splits.h): by
// chromosome, by a chrombpnet-style fold file or by stratified fractions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/loader/loader_config.h"
#include "data/sources/sequence_source.h"

namespace strand::data {

/// How one labelled file is divided; at most one way (chromosomes, folds or fractions).
struct SplitConfig {
  std::vector<std::string> valid_chroms;  ///< validation chromosomes (intervals only)
  std::vector<std::string> test_chroms;   ///< test chromosomes (intervals only)
  std::string folds;                      ///< fold JSON file (intervals only)
  double valid_fraction = 0.0;            ///< stratified random validation part, in [0, 1)
  double test_fraction = 0.0;             ///< stratified random test part, in [0, 1)
  uint64_t seed = 0;                      ///< seeds the fraction split

  /// Whether a split is asked for.
  bool enabled() const;
  /// Throws DataError when two ways are combined, a fraction is out of range, or chromosome
  /// splits are asked of records (which have no chromosomes).
  void validate(IntervalFormat format) const;
};

/// The parts of a split. validation and test are null when the split gives them nothing to
/// hold (a fraction of 0, no test chromosomes).
struct SplitSources {
  std::shared_ptr<SequenceSource> train;       ///< with the config's jitter
  std::shared_ptr<SequenceSource> validation;  ///< without jitter
  std::shared_ptr<SequenceSource> test;        ///< without jitter
  int64_t unassigned = 0;  ///< intervals on chromosomes no fold list names (used nowhere)
};

/// Reads `config`'s file once and splits it per `split`. Intervals are split before their
/// windows are loaded and every part gets its own IntervalSource (and FASTA handle), so
/// streaming works; records are read into one RecordSource shared through SubsetSources.
SplitSources make_split_sources(const LoaderConfig& config, const SplitConfig& split);

}  // namespace strand::data
