// Dividing one labelled dataset into train, validation and test: by chromosome (named lists,
// or a chrombpnet-style fold file) or by stratified random fractions. Pure functions over
// intervals and label arrays, so a split is decided before any sequence is read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"

namespace strand::data {

/// The part of a split a sample goes to.
enum class SplitPart : uint8_t {
  kTrain,
  kValidation,
  kTest,
  kUnassigned,  ///< on a chromosome that no list of a fold file names: used nowhere
};

/// "train", "validation", "test", "unassigned".
const char* split_part_name(SplitPart part);

/// The chromosome lists of a chrombpnet-style fold file.
struct ChromosomeFold {
  std::vector<std::string> train;  ///< chromosomes whose intervals train
  std::vector<std::string> valid;  ///< chromosomes whose intervals validate
  std::vector<std::string> test;   ///< chromosomes whose intervals test
};

/// Reads a fold file: a JSON object with exactly the keys "train", "valid" and "test", each a
/// list of chromosome names (chrombpnet's splits/fold_0.json). Throws DataError naming the file
/// and the problem: not JSON, not an object, an unknown or missing key, a value that is not a
/// list of non-empty strings, an empty "valid" or "test" list, or a chromosome listed twice
/// (in one list or in two).
ChromosomeFold read_fold_file(const std::string& path);

/// Intervals on the `valid` chromosomes go to validation, those on `test` to test, the rest to
/// train; names match exactly. Throws DataError when a named chromosome is not a contig of the
/// FASTA (`contigs`, `fasta_path`), carries no interval of `set`, or is named in both lists,
/// or when no interval is left for training.
std::vector<SplitPart> split_by_chromosomes(const IntervalSet& set,
                                            const std::vector<std::string>& valid,
                                            const std::vector<std::string>& test,
                                            const std::vector<Contig>& contigs,
                                            const std::string& fasta_path);

/// Intervals on the fold's train, valid and test chromosomes go to those parts; intervals on
/// chromosomes the fold does not list are kUnassigned (chrombpnet drops them too). Throws
/// DataError naming `fold_path` when a listed chromosome is not a contig of the FASTA, or when
/// a part receives no interval.
std::vector<SplitPart> split_by_fold(const IntervalSet& set, const ChromosomeFold& fold,
                                     const std::string& fold_path,
                                     const std::vector<Contig>& contigs,
                                     const std::string& fasta_path);

/// A stratified random split: within each class (see label_classes), the samples are shuffled
/// by a generator seeded from `seed` alone, round(n * test_fraction) of them go to test, the
/// next round(n * valid_fraction) to validation and the rest to train. The same classes and
/// seed give the same split on every machine. Throws DataError when the fractions are outside
/// [0, 1) or sum to 1 or more, when a positive fraction selects no sample, or when no sample
/// is left for training.
std::vector<SplitPart> split_by_fraction(const std::vector<int>& classes, double valid_fraction,
                                         double test_fraction, uint64_t seed);

/// The stratification class of each row of (N, T) labels: 1 when any valid label is > 0.5
/// (a positive for one task; for a single binary task, its label), else 0, as balanced
/// sampling uses (sample_class).
std::vector<int> label_classes(const std::vector<float>& labels, const std::vector<uint8_t>& mask,
                               int64_t num_targets);

/// The indices of the samples in `part`, ascending.
std::vector<int64_t> indices_in(const std::vector<SplitPart>& parts, SplitPart part);

/// The intervals of `set` in `part`, with their labels, masks and names; stats count them.
IntervalSet select_intervals(const IntervalSet& set, const std::vector<SplitPart>& parts,
                             SplitPart part);

}  // namespace strand::data
