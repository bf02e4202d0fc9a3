// chrombpnet's allele windows (variants/allele_windows.h).
#include "variants/allele_windows.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "data/encoding.h"

namespace strand::variants {

AlleleSource allele_source(int64_t position, int64_t length, std::string_view ref,
                           std::string_view alt) {
  const auto lr = static_cast<int64_t>(ref.size());
  const auto la = static_cast<int64_t>(alt.size());
  return {position - 1 - length / 2, length + std::max<int64_t>(0, lr - la)};
}

bool alleles_fit(int64_t length, std::string_view ref, std::string_view alt) {
  const int64_t room = length - length / 2;
  return static_cast<int64_t>(ref.size()) <= room && static_cast<int64_t>(alt.size()) <= room;
}

void build_allele_windows(const uint8_t* source, int64_t length, std::string_view ref,
                          std::string_view alt, uint8_t* ref_window, uint8_t* alt_window) {
  STRAND_CHECK(alleles_fit(length, ref, alt),
               "build_allele_windows: alleles of {} and {} bases do not fit a {} base window",
               ref.size(), alt.size(), length);
  const int64_t flank = length / 2;
  const auto lr = static_cast<int64_t>(ref.size());
  const auto la = static_cast<int64_t>(alt.size());
  const auto put = [&](std::string_view allele, int64_t allele_length, uint8_t* out) {
    std::memcpy(out, source, static_cast<size_t>(flank));
    data::encode(allele.data(), allele.size(), out + flank);
    // The right flank: the source after REF, as many bases as fill the window.
    std::memcpy(out + flank + allele_length, source + flank + lr,
                static_cast<size_t>(length - flank - allele_length));
  };
  put(ref, lr, ref_window);
  put(alt, la, alt_window);
}

ChangedRange changed_range(int64_t length, std::string_view ref, std::string_view alt) {
  const int64_t flank = length / 2;
  if (ref.size() != alt.size()) return {flank, length};
  // A SNV or MNV: only the allele's bases can differ (and only where the bases do).
  int64_t first = -1, last = -1;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (data::kCodeTable[static_cast<uint8_t>(ref[i])] !=
        data::kCodeTable[static_cast<uint8_t>(alt[i])]) {
      if (first < 0) first = static_cast<int64_t>(i);
      last = static_cast<int64_t>(i);
    }
  }
  if (first < 0) return {flank, flank};
  return {flank + first, flank + last + 1};
}

}  // namespace strand::variants
