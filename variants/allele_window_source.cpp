// Cutting allele windows in the loader's workers (variants/allele_window_source.h).
#include "variants/allele_window_source.h"

#include <algorithm>
#include <cstring>

#include "data/dinucleotide_shuffle.h"
#include "data/encoding.h"
#include "data/rng.h"

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

void AlleleWindowSource::set_pairs(std::vector<AllelePair> pairs) { pairs_ = std::move(pairs); }

void AlleleWindowSource::prepare_workers(int n) {
  while (static_cast<int>(readers_.size()) < n) readers_.push_back(fasta_->clone());
}

void AlleleWindowSource::fetch(int64_t index, int64_t /*shift*/, uint8_t* codes,
                               uint8_t* /*lower_mask*/, int worker) const {
  const AllelePair& pair = pairs_[static_cast<size_t>(index / 2)];
  const auto n = static_cast<size_t>(pair.source.length);
  // source, then (shuffled source,) ref window, alt window.
  std::vector<uint8_t> buffer(2 * n + 2 * static_cast<size_t>(length_));
  uint8_t* source = buffer.data();
  fetch_padded(readers_[static_cast<size_t>(worker)], pair.contig, pair.source.start,
               pair.source.length, source);
  if (pair.shuffled) {
    data::CounterRng rng(pair.shuffle_key);
    data::dinucleotide_shuffle(source, n, source + n, rng);
    source += n;
  }
  uint8_t* ref_window = buffer.data() + 2 * n;
  uint8_t* alt_window = ref_window + length_;
  build_allele_windows(source, length_, pair.ref, pair.alt, ref_window, alt_window);
  std::memcpy(codes, index % 2 == 0 ? ref_window : alt_window, static_cast<size_t>(length_));
}

}  // namespace strand::variants
