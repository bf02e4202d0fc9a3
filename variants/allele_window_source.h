// AlleleWindowSource: the ref and alt windows of a list of variants as a data::SequenceSource,
// so that data::DataLoader's workers cut them from the FASTA (one reader per worker). Sample
// 2i is pair i's ref window, 2i + 1 its alt window.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/sources/sequence_source.h"
#include "variants/allele_windows.h"

namespace strand::variants {

/// One pair of windows to cut.
struct AllelePair {
  int contig = 0;            ///< FASTA record index
  AlleleSource source;       ///< the genome bases the windows come from
  std::string ref;           ///< REF (text)
  std::string alt;           ///< ALT (text)
  bool shuffled = false;     ///< cut from a dinucleotide shuffle of the source bases
  uint64_t shuffle_key = 0;  ///< the shuffle's key (data::dinucleotide_shuffle)
};

/// The windows of a list of pairs, replaced between loader runs with set_pairs().
class AlleleWindowSource : public data::SequenceSource {
 public:
  /// Windows of `length` bases from `fasta` (cloned for each worker).
  AlleleWindowSource(const data::FastaReader& fasta, int64_t length);

  /// Replaces the pairs (not while a loader reads this source).
  void set_pairs(std::vector<AllelePair> pairs);
  /// The pairs.
  const std::vector<AllelePair>& pairs() const { return pairs_; }

  int64_t size() const override { return 2 * static_cast<int64_t>(pairs_.size()); }
  int64_t length() const override { return length_; }
  int64_t num_targets() const override { return 0; }
  void prepare_workers(int n) override;
  void fetch(int64_t index, int64_t shift, uint8_t* codes, uint8_t* lower_mask,
             int worker) const override;
  void labels(int64_t /*index*/, float* /*out*/, uint8_t* /*mask*/) const override {}

 private:
  // What a worker cut last: both windows of one pair, so that the pair's second window (the
  // next sample a worker builds) costs no second read.
  struct WorkerState {
    data::FastaReader reader;
    int64_t pair = -1;             // the pair whose windows `windows` holds
    uint64_t generation = 0;       // of the pair list `pair` indexes
    std::vector<uint8_t> buffer;   // source, shuffled source
    std::vector<uint8_t> windows;  // ref window, alt window
  };

  const data::FastaReader* fasta_;
  int64_t length_;
  std::vector<AllelePair> pairs_;
  uint64_t generation_ = 0;                   // bumped by set_pairs: cached pairs go stale
  mutable std::vector<WorkerState> workers_;  // one per worker, each used by its worker only
};

/// The codes of genome bases [start, start + n) of record `contig`, N beyond its ends.
void fetch_padded(const data::FastaReader& fasta, int contig, int64_t start, int64_t n,
                  uint8_t* codes);

}  // namespace strand::variants
