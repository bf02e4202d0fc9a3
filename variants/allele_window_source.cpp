// Cutting allele windows in the loader's workers (variants/allele_window_source.h).
#include "variants/allele_window_source.h"

#include <algorithm>
#include <cstring>

#include "data/counter_rng.h"
#include "data/dinucleotide_shuffle.h"
#include "data/encoding.h"

namespace strand::variants {

void fetch_padded(const data::FastaReader& fasta, int contig, int64_t start, int64_t n,
                  uint8_t* codes) {
  const data::Contig& record = fasta.contigs()[static_cast<size_t>(contig)];
  const int64_t begin = std::clamp<int64_t>(start, 0, record.length);
  const int64_t end = std::clamp<int64_t>(start + n, 0, record.length);
  std::memset(codes, data::kCodeN, static_cast<size_t>(n));
  if (end > begin) fasta.fetch_codes(record.name, begin, end, codes + (begin - start));
}

AlleleWindowSource::AlleleWindowSource(const data::FastaReader& fasta, int64_t length)
    : fasta_(&fasta), length_(length) {}

void AlleleWindowSource::set_pairs(std::vector<AllelePair> pairs) {
  pairs_ = std::move(pairs);
  ++generation_;
}

void AlleleWindowSource::prepare_workers(int n) {
  while (static_cast<int>(workers_.size()) < n) {
    workers_.push_back({fasta_->clone(), -1, 0, {}, {}});
  }
}

void AlleleWindowSource::fetch(int64_t index, int64_t /*shift*/, uint8_t* codes,
                               uint8_t* /*lower_mask*/, int worker) const {
  WorkerState& state = workers_[static_cast<size_t>(worker)];
  const int64_t pair_index = index / 2;
  if (state.pair != pair_index || state.generation != generation_) {
    const AllelePair& pair = pairs_[static_cast<size_t>(pair_index)];
    const auto n = static_cast<size_t>(pair.source.length);
    state.buffer.resize(2 * n);
    state.windows.resize(2 * static_cast<size_t>(length_));
    uint8_t* source = state.buffer.data();
    fetch_padded(state.reader, pair.contig, pair.source.start, pair.source.length, source);
    if (pair.shuffled) {
      data::CounterRng rng(pair.shuffle_key);
      data::dinucleotide_shuffle(source, n, source + n, rng);
      source += n;
    }
    build_allele_windows(source, length_, pair.ref, pair.alt, state.windows.data(),
                         state.windows.data() + length_);
    state.pair = pair_index;
    state.generation = generation_;
  }
  std::memcpy(codes, state.windows.data() + (index % 2) * length_, static_cast<size_t>(length_));
}

}  // namespace strand::variants
