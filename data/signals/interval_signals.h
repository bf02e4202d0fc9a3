// IntervalSignals: the bigWig signal of interval windows, for an IntervalSource: per-base
// profile targets over the centred output window, per-base control inputs over the whole
// window, and count labels (the sum of count tracks over the output window).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"
#include "data/signals/signal_tracks.h"

namespace strand::data {

/// Where one sample's window lies: its contig (an index into the contig list) and centre.
struct SignalWindow {
  int contig = 0;      ///< index into the contigs given to IntervalSignals
  int64_t centre = 0;  ///< the base the L-base window is centred on, before the shift
};

/// Window geometry is that of IntervalSource (window_start): the L-base window centred on the
/// sample, moved by the shift and kept inside its contig; the output window is its centred Lp
/// bases. Bases past a contig's end (a contig shorter than L) read as 0.
class IntervalSignals {
 public:
  /// Opens the bigWigs of `options` and checks every contig the samples use against them (same
  /// name, same length as in the FASTA). `intervals` (one per window) and `fasta` name the
  /// files in errors. Throws DataError for an output window longer than `window` or whose
  /// difference to it is odd, for targets kCounts without count or profile tracks, and for a
  /// bad or mismatching bigWig. With kCounts the labels of every window (unshifted) are
  /// computed here, once.
  IntervalSignals(const SignalOptions& options, int64_t window, std::vector<Contig> contigs,
                  std::vector<SignalWindow> windows, const IntervalSet& intervals,
                  const std::string& fasta);

  /// S: profile tracks.
  int64_t profile_tracks() const { return profile_.tracks(); }
  /// Lp: bases of the output window.
  int64_t profile_length() const { return output_length_; }
  /// Sc: control tracks.
  int64_t control_tracks() const { return control_.tracks(); }
  /// (S) reverse complement map of the profile tracks (pairs swap).
  std::vector<int64_t> reverse_profile_tracks() const { return profile_.reverse_map(); }
  /// (Sc) reverse complement map of the control tracks.
  std::vector<int64_t> reverse_control_tracks() const { return control_.reverse_map(); }
  /// The profile, control and count tracks.
  const TrackSet& profile() const { return profile_; }
  const TrackSet& control() const { return control_; }
  const TrackSet& counts() const { return counts_; }

  /// Whether labels are count sums (targets kCounts).
  bool count_labels() const { return count_tasks_ > 0; }
  /// T with count labels: one task per count track group.
  int64_t count_tasks() const { return count_tasks_; }
  /// Task names with count labels: the groups' file names.
  std::vector<std::string> count_task_names() const;

  /// Opens handles for workers 0..n-1.
  void prepare_workers(int n);

  /// profile: (S, Lp), control: (Sc, L) of window `index` moved by `shift`; null skips one.
  void signals(int64_t index, int64_t shift, float* profile, float* control, int worker) const;
  /// The count labels (T) of window `index` unshifted, and their mask (computed once).
  void labels(int64_t index, float* out, uint8_t* mask) const;
  /// The count labels of window `index` moved by `shift`, read through `worker`'s handles.
  void labels_at(int64_t index, int64_t shift, float* out, uint8_t* mask, int worker) const;

 private:
  // Start of window `index`'s output window moved by `shift`; its contig and contig length.
  int64_t output_start(int64_t index, int64_t shift) const;
  void compute_counts(int64_t index, int64_t shift, float* out, uint8_t* mask, int worker) const;

  int64_t window_ = 0;
  int64_t output_length_ = 0;
  std::vector<Contig> contigs_;
  std::vector<SignalWindow> windows_;
  TrackSet profile_;
  TrackSet control_;
  TrackSet counts_;
  int64_t count_tasks_ = 0;
  std::vector<float> count_labels_;  // (N, T) unshifted
  std::vector<uint8_t> count_mask_;  // (N, T)
};

}  // namespace strand::data
