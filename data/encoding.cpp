// Base encoding: text -> codes, reverse complement, one-hot (see encoding.h for the policy).
#include "data/encoding.h"

#include <algorithm>

namespace strand::data {

void encode(const char* text, size_t n, uint8_t* codes, uint8_t* lower_mask) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text);
  for (size_t i = 0; i < n; ++i) codes[i] = kCodeTable[bytes[i]];
  if (lower_mask != nullptr) {
    for (size_t i = 0; i < n; ++i) lower_mask[i] = is_lowercase(text[i]) ? 1 : 0;
  }
}

std::basic_string<uint8_t> encode(std::string_view text) {
  std::basic_string<uint8_t> codes(text.size(), kCodeN);
  encode(text.data(), text.size(), codes.data());
  return codes;
}

std::string decode(const uint8_t* codes, size_t n) {
  static constexpr char kLetters[] = "ACGTN";
  std::string text(n, 'N');
  for (size_t i = 0; i < n; ++i) text[i] = codes[i] < 5 ? kLetters[codes[i]] : 'N';
  return text;
}

void reverse_complement(uint8_t* codes, size_t n, uint8_t* mask) {
  std::reverse(codes, codes + n);
  for (size_t i = 0; i < n; ++i) codes[i] = complement_code(codes[i]);
  if (mask != nullptr) std::reverse(mask, mask + n);
}

void one_hot(const uint8_t* codes, size_t batch, size_t length, float* out) {
  std::fill(out, out + batch * kNumBases * length, 0.0F);
  for (size_t b = 0; b < batch; ++b) {
    float* sample = out + b * kNumBases * length;  // (4, L)
    for (size_t i = 0; i < length; ++i) {
      const uint8_t code = codes[b * length + i];
      if (code < kNumBases) sample[code * length + i] = 1.0F;
    }
  }
}

}  // namespace strand::data
