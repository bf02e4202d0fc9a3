// SequenceSource: the interface every dataset implements so one loader can batch it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strand::data {

/// A dataset of fixed-length encoded sequences with T labels each, and optionally per-base
/// signal tracks: profile targets (S tracks over the centred Lp-base output window) and control
/// inputs (Sc tracks over the whole L-base window). fetch(), labels() and signals() may be
/// called concurrently from different workers (each with its own worker id).
class SequenceSource {
 public:
  virtual ~SequenceSource() = default;

  /// Number of samples N.
  virtual int64_t size() const = 0;
  /// Window length L of every sample, in bases.
  virtual int64_t length() const = 0;
  /// Number of targets T per sample.
  virtual int64_t num_targets() const = 0;

  /// Called once before fetches from workers 0..n-1 (e.g. opens one file handle each).
  virtual void prepare_workers(int /*n*/) {}

  /// Writes the L codes of sample `index`, its window moved by `shift` bases (the source
  /// keeps the window inside its contig/record), forward strand. When lower_mask is not null
  /// and the source supports it, writes L bytes: 1 where the base was soft-masked.
  virtual void fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
                     int worker) const = 0;

  /// Writes the T labels of sample `index` and T mask bytes (1 = valid, 0 = ambiguous).
  virtual void labels(int64_t index, float* out, uint8_t* mask) const = 0;

  /// Whether fetch() can produce a lowercase mask.
  virtual bool has_lower_mask() const { return false; }

  /// The T task names, in label order: from the file's header or given by the user
  /// (LoaderConfig::task_names); default_task_names(T) when neither names them. Predictions,
  /// per-task metrics and logs are labelled with them.
  virtual std::vector<std::string> task_names() const { return default_task_names(num_targets()); }

  /// "task_0", "task_1", ...: the names of `count` tasks that nothing names.
  static std::vector<std::string> default_task_names(int64_t count);

  /// S: per-base target tracks of every sample (0: none).
  virtual int64_t profile_tracks() const { return 0; }
  /// Lp: bases of the output window, centred in the L-base window (L - Lp is even).
  virtual int64_t profile_length() const { return 0; }
  /// Sc: per-base control tracks of every sample, a model input (0: none).
  virtual int64_t control_tracks() const { return 0; }
  /// Writes sample `index`'s profile (S, Lp) and control (Sc, L) for its window moved by `shift`
  /// (forward strand); either pointer is null when the source has no such tracks.
  virtual void signals(int64_t /*index*/, int64_t /*shift*/, float* /*profile*/, float* /*control*/,
                       int /*worker*/) const {}
  /// For reverse complement: the track that track i becomes (a +/- strand pair swaps, an
  /// unstranded track maps to itself); one list for profile tracks, one for control tracks.
  virtual std::vector<int64_t> reverse_profile_tracks() const;  // default identity
  virtual std::vector<int64_t> reverse_control_tracks() const;  // default identity

  /// The labels of sample `index` when its window is moved by `shift`: labels computed from the
  /// sequence's signal (a count over the window) follow the shift; the default is labels().
  virtual void labels_at(int64_t index, int64_t /*shift*/, float* out, uint8_t* mask,
                         int /*worker*/) const {
    labels(index, out, mask);
  }
};

/// Class used by balanced sampling: 1 when any valid label of the sample is > 0.5, else 0.
int sample_class(const SequenceSource& source, int64_t index);

}  // namespace strand::data
