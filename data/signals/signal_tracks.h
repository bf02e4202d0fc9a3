// Signal tracks from bigWig files: how a dataset names them (SignalOptions: profile targets,
// control inputs, count labels; one file per unstranded track, a "plus,minus" pair per stranded
// one) and a set of tracks read together, with one libBigWig handle per loader worker.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/signals/bigwig.h"

namespace strand::data {

/// Where a sample's labels come from.
enum class TargetSource {
  kLabels,  ///< the interval file's label columns
  kCounts,  ///< one task per count track: the sum of its bigWig(s) over the output window
};

/// Every target source by its name, in enum order: labels, counts.
const std::vector<std::string>& target_source_names();
/// Parses "labels" or "counts"; throws DataError naming the word otherwise.
TargetSource parse_target_source(std::string_view word);
/// "labels" or "counts".
const char* target_source_name(TargetSource source);

/// The bigWig tracks of an interval dataset. Each entry of a list is one track group: "a.bw"
/// (an unstranded track) or "plus.bw,minus.bw" (a stranded pair: two tracks, plus first, that
/// reverse complement swaps).
struct SignalOptions {
  std::vector<std::string> profile_bigwigs;  ///< per-base targets over the output window
  std::vector<std::string> control_bigwigs;  ///< per-base model inputs over the whole window
  /// kCounts: one task per entry, summed over the output window (a pair's two files together);
  /// empty: one task per profile_bigwigs entry.
  std::vector<std::string> count_bigwigs;
  int64_t profile_length = 0;                    ///< Lp, the centred output window; 0: the window
  TargetSource targets = TargetSource::kLabels;  ///< where labels come from

  /// Whether any track is asked for (or labels come from tracks).
  bool any() const;
  /// The count entries in use: count_bigwigs, else profile_bigwigs.
  const std::vector<std::string>& count_entries() const;
};

/// One track group: one file (unstranded) or two (plus, minus).
struct TrackGroup {
  std::vector<std::string> files;  ///< 1 or 2 paths
  std::string name;                ///< for reports: the file name, or "plus+minus"
};

/// Parses list entries (see SignalOptions); `what` names the list in errors ("profile bigWigs").
/// An empty path, more than two files or the same file twice in a pair is an error.
std::vector<TrackGroup> parse_track_groups(const std::vector<std::string>& entries,
                                           std::string_view what);

/// (tracks) the track each track of `groups` becomes under reverse complement: the two files of
/// a stranded pair swap, an unstranded track stays.
std::vector<int64_t> reverse_track_map(const std::vector<TrackGroup>& groups);

/// Track groups read together for windows of one genome: the tracks are the groups' files in
/// order (a pair gives two consecutive tracks). One BigWigReader per file per worker, since a
/// libBigWig handle is not thread-safe.
class TrackSet {
 public:
  TrackSet() = default;
  /// Opens every file once (worker 0's handles); throws DataError naming a bad file.
  explicit TrackSet(std::vector<TrackGroup> groups);

  /// Number of tracks (files).
  int64_t tracks() const { return static_cast<int64_t>(files_.size()); }
  /// Number of groups (list entries).
  int64_t groups() const { return static_cast<int64_t>(groups_.size()); }
  /// The groups as parsed.
  const std::vector<TrackGroup>& track_groups() const { return groups_; }
  /// (tracks) the group of each track.
  const std::vector<int64_t>& group_of_track() const { return group_of_track_; }
  /// (tracks) a name per track for reports: the file name.
  std::vector<std::string> track_names() const;
  /// (tracks) the track each track becomes under reverse complement: a pair swaps.
  std::vector<int64_t> reverse_map() const;

  /// Opens handles for workers 0..n-1 (existing ones are kept). Not to be called while other
  /// threads read.
  void prepare_workers(int n);

  /// Checks that every file has contig `name` with `length` bases; `used_by` says what needs it
  /// (e.g. "line 5 of 'peaks.bed'") and `fasta` names the FASTA whose length is expected.
  void check_contig(const std::string& name, int64_t length, const std::string& used_by,
                    const std::string& fasta) const;

  /// out: (tracks, n) values of bases [start, start + n) of `contig`, a contig of
  /// `contig_length` bases; bases past its end are 0 (start >= 0).
  void read(const std::string& contig, int64_t contig_length, int64_t start, int64_t n, float* out,
            int worker) const;

 private:
  std::vector<TrackGroup> groups_;
  std::vector<std::string> files_;
  std::vector<int64_t> group_of_track_;
  std::vector<std::vector<BigWigReader>> readers_ =
      std::vector<std::vector<BigWigReader>>(1);  // [worker][track]; worker 0 always exists
};

}  // namespace strand::data
