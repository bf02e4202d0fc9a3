// Data construction from a RunConfig: the simulated TAL1-style dataset (in memory, through
// data::ArraySource) or FASTA + interval/record files (through data::make_source), as
// train/validation/test sources plus the loaders fit() and evaluate() consume.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/run_config.h"
#include "data/labels.h"
#include "data/loader/data_loader.h"
#include "data/loader/loader_config.h"
#include "data/signals/signal_tracks.h"
#include "data/simulation/motif_library.h"
#include "data/simulation/motif_simulation.h"
#include "data/sources/sequence_source.h"

namespace strand::cli {

/// One split: its source and a printable name for every sample (for prediction tables).
struct DataSplit {
  std::string name;  // "train", "validation", "test"
  std::shared_ptr<data::SequenceSource> source;
  // Empty, both, when the source is a data::StreamedRecordSource (the scoring commands' --fasta
  // alone): its names are read from the file in order (cli/sample_windows.h), never listed.
  std::vector<std::string> sample_names;
  std::vector<int64_t> raw_lengths;  // bases of each interval/record before windowing
};

struct RunData {
  std::string description;  // e.g. "simulated TAL1_known4, 500 bp, GC 0.4"
  int64_t length = 0;       // bases per sample (the model's input length)
  DataSplit train;
  std::optional<DataSplit> validation;  // absent: files data without data.valid_intervals
  std::optional<DataSplit> test;
};

/// Loads the motif library (the shipped file unless `motif_file` is set) and returns the motif
/// `name`; an unknown name throws ConfigError listing the closest names in the library.
data::Motif find_motif(const std::string& name, const std::string& motif_file = "");

/// Simulates the configured dataset with `seed`.
data::SimulatedDataset simulate_dataset(const SimulatedDataConfig& config, uint64_t seed);

/// Builds every split of the configured data; missing or malformed files throw naming them.
RunData build_run_data(const RunConfig& config);

/// Files data for one split as `loader` describes it (labelled or not, label columns, task
/// names, negatives); errors are ConfigErrors naming the split.
DataSplit build_files_split(const std::string& name, const data::LoaderConfig& loader);

/// A split of an existing source: names every sample (chrom:start-end of an interval, a record's
/// name) and keeps its raw length.
DataSplit describe_split(const std::string& name, std::shared_ptr<data::SequenceSource> source);

/// The loader settings of the training file of a files run: the config's, with the labels
/// `labels` accepts and the run's seed (which seeds the negatives).
data::LoaderConfig files_loader_config(const RunConfig& config, const data::LabelOptions& labels);

/// The task names of the model a run trains, read cheaply (data.task_names, the head of the
/// training file, the peak file's stem with negatives, task_0 for simulated data); empty when
/// the run's files cannot be read.
std::vector<std::string> read_run_task_names(const RunConfig& config);

/// read_run_task_names(), or `count` default names (task_0, ...) when they are unknown or not
/// `count` (the model's outputs).
std::vector<std::string> run_task_names(const RunConfig& config, int64_t count);

/// The labels a run needs: 0 or 1 (or missing) when a binary loss (binary_crossentropy,
/// categorical_crossentropy) trains on them, any finite number for a regression loss (mse,
/// poisson: scored by correlations); at least one valid label per file. Checked when the files
/// are read, so a bad label fails before training with its file and line.
data::LabelOptions training_label_options(const RunConfig& config);

/// The median over `source`'s windows (at most `max_windows` of them, evenly spaced) of the
/// total profile counts, summed over tracks and positions; 0 without profile tracks. BPNet's
/// counts loss weighs median / 10.
double median_total_counts(const data::SequenceSource& source, int64_t max_windows = 10000);

/// Where a loader's batches go: this rank's shard of the data (data-parallel training) and the
/// memory batches land in (pinned host memory for CUDA runs).
struct LoaderPlacement {
  int rank = 0;
  int world_size = 1;
  data::BatchAllocator allocator;
};

/// The training loader: shuffled per epoch from the seed, augmentation from the config.
std::unique_ptr<data::DataLoader> make_train_loader(const RunConfig& config, const RunData& data,
                                                    const LoaderPlacement& placement = {});
/// An evaluation loader: plan order, no augmentation.
std::unique_ptr<data::DataLoader> make_eval_loader(const DataSplit& split, int64_t batch_size,
                                                   int threads = 1,
                                                   const LoaderPlacement& placement = {});
/// The distinct batch sizes of make_eval_loader's loader over `split`, without making it.
std::vector<int64_t> eval_batch_sizes(const DataSplit& split, int64_t batch_size,
                                      const LoaderPlacement& placement = {});

}  // namespace strand::cli
