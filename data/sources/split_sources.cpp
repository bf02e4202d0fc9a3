// make_split_sources: one file read, split, and turned into one source per part.
#include "data/sources/split_sources.h"

#include "data/data_error.h"
#include "data/intervals/splits.h"
#include "data/sources/interval_source.h"
#include "data/sources/record_source.h"
#include "data/sources/subset_source.h"
#include "fmt/format.h"

namespace strand::data {

bool SplitConfig::enabled() const {
  return !valid_chroms.empty() || !test_chroms.empty() || !folds.empty() || valid_fraction > 0 ||
         test_fraction > 0;
}

void SplitConfig::validate(IntervalFormat format) const {
  const bool chroms = !valid_chroms.empty() || !test_chroms.empty();
  const bool fractions = valid_fraction > 0 || test_fraction > 0;
  const int ways = (chroms ? 1 : 0) + (folds.empty() ? 0 : 1) + (fractions ? 1 : 0);
  if (ways > 1) {
    throw DataError(
        "a split is given by chromosomes (valid_chroms/test_chroms), a fold file (folds) or "
        "fractions (valid_fraction/test_fraction): only one of them");
  }
  if (!(valid_fraction >= 0 && valid_fraction < 1) || !(test_fraction >= 0 && test_fraction < 1) ||
      valid_fraction + test_fraction >= 1) {
    throw DataError(fmt::format(
        "valid_fraction {} and test_fraction {} must each be in [0, 1) and sum to less than 1",
        valid_fraction, test_fraction));
  }
  if (format == IntervalFormat::kRecords && (chroms || !folds.empty())) {
    throw DataError(
        "records have no chromosomes: split them by fractions (valid_fraction, test_fraction)");
  }
}

SplitSources make_split_sources(const LoaderConfig& config, const SplitConfig& split) {
  config.validate();
  split.validate(config.format);
  SplitSources out;
  if (config.format == IntervalFormat::kRecords) {
    const std::shared_ptr<SequenceSource> all = make_source(config);
    std::vector<int> classes(static_cast<size_t>(all->size()));
    for (int64_t i = 0; i < all->size(); ++i)
      classes[static_cast<size_t>(i)] = sample_class(*all, i);
    const std::vector<SplitPart> parts =
        split_by_fraction(classes, split.valid_fraction, split.test_fraction, split.seed);
    const auto subset = [&](SplitPart part) -> std::shared_ptr<SequenceSource> {
      std::vector<int64_t> indices = indices_in(parts, part);
      if (indices.empty()) return nullptr;
      return std::make_shared<SubsetSource>(all, std::move(indices));
    };
    out.train = subset(SplitPart::kTrain);
    out.validation = subset(SplitPart::kValidation);
    out.test = subset(SplitPart::kTest);
    return out;
  }
  FastaReader reader = open_fasta(config);
  IntervalSet set = read_interval_set(config, reader);
  // Validated before splitting, so that a chromosome split sees the intervals that will train.
  validate_intervals(set, reader.contigs(), reader.path(), config.bad_intervals, config.labels);
  std::vector<SplitPart> parts;
  if (!split.folds.empty()) {
    parts = split_by_fold(set, read_fold_file(split.folds), split.folds, reader.contigs(),
                          reader.path());
  } else if (!split.valid_chroms.empty() || !split.test_chroms.empty()) {
    parts = split_by_chromosomes(set, split.valid_chroms, split.test_chroms, reader.contigs(),
                                 reader.path());
  } else {
    parts = split_by_fraction(label_classes(set.labels, set.label_mask, set.num_targets()),
                              split.valid_fraction, split.test_fraction, split.seed);
  }
  out.unassigned = static_cast<int64_t>(indices_in(parts, SplitPart::kUnassigned).size());
  const auto source = [&](SplitPart part, int64_t jitter) -> std::shared_ptr<SequenceSource> {
    IntervalSet selected = select_intervals(set, parts, part);
    if (selected.intervals.empty()) return nullptr;
    IntervalSourceOptions options;
    options.window = config.window;
    options.jitter = jitter;
    options.use_summit = config.use_summit;
    options.streaming = config.streaming;
    options.lower_mask = config.lower_mask;
    options.policy = config.bad_intervals;
    // A part may hold only missing labels (all its intervals masked): that is the data, not an
    // unreadable file, so only the whole file had to have a valid label.
    options.labels = config.labels;
    options.labels.require_valid = false;
    options.signals = config.signals;
    return std::make_shared<IntervalSource>(reader.clone(), std::move(selected), options);
  };
  out.train = source(SplitPart::kTrain, config.jitter);
  out.validation = source(SplitPart::kValidation, 0);
  out.test = source(SplitPart::kTest, 0);
  return out;
}

}  // namespace strand::data
