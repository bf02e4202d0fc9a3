// Reference functions of DeepLIFT/SHAP.
#include "explain/references.h"

#include <cstring>

#include "core/error.h"
#include "data/counter_rng.h"
#include "data/dinucleotide_shuffle.h"

namespace strand::explain {

ReferenceFunction dinucleotide_shuffles(uint64_t seed) {
  return
      [seed](int64_t index, const uint8_t* sequence, int64_t length, int64_t count, uint8_t* out) {
        for (int64_t k = 0; k < count; ++k) {
          data::CounterRng rng(
              data::mix_key(seed, static_cast<uint64_t>(index), static_cast<uint64_t>(k)));
          data::dinucleotide_shuffle(sequence, static_cast<size_t>(length), out + k * length, rng);
        }
      };
}

ReferenceFunction given_references(Tensor codes) {
  STRAND_CHECK(codes.dim() == 3 && codes.dtype() == DType::kUInt8,
               "references: expected codes (N, R, L) uint8, got {}", codes.describe());
  codes = codes.to(Device::cpu()).contiguous();
  return [codes](int64_t index, const uint8_t* /*sequence*/, int64_t length, int64_t count,
                 uint8_t* out) {
    STRAND_CHECK(index >= 0 && index < codes.size(0),
                 "references: sequence {} has none (references are given for {} sequences)", index,
                 codes.size(0));
    STRAND_CHECK(count == codes.size(1) && length == codes.size(2),
                 "references: {} of {} bases asked for sequence {}, but {} of {} are given", count,
                 length, index, codes.size(1), codes.size(2));
    std::memcpy(out, codes.data<uint8_t>() + index * count * length,
                static_cast<size_t>(count * length));
  };
}

}  // namespace strand::explain
