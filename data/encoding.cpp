// Base encoding: text -> codes, reverse complement, one-hot (see encoding.h for the policy).
#include "data/encoding.h"

#include <fmt/format.h>

#include <algorithm>

namespace strand::data {

void encode(const char* text, size_t n, uint8_t* codes, uint8_t* lower_mask) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text);
  for (size_t i = 0; i < n; ++i) codes[i] = kCodeTable[bytes[i]];
  if (lower_mask != nullptr) {
    for (size_t i = 0; i < n; ++i) lower_mask[i] = is_lowercase(text[i]) ? 1 : 0;
  }
}

size_t first_non_sequence_letter(const char* text, size_t n) {
  // One pass the compiler vectorizes over the (long) runs of good letters, then the position.
  unsigned bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bad |= static_cast<unsigned>(!is_sequence_letter(static_cast<unsigned char>(text[i])));
  }
  if (bad == 0) return n;
  for (size_t i = 0;; ++i) {
    if (!is_sequence_letter(static_cast<unsigned char>(text[i]))) return i;
  }
}

std::string describe_sequence_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (c == ' ') return "a space";
  if (c == '\t') return "a tab";
  if (u > 0x20 && u < 0x7F) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", u);
}

std::string non_sequence_letter_reason(char c) {
  const char* hint = (c >= '0' && c <= '9')    ? ": a position number (GenBank/EMBL style)? "
                                                 "keep only the bases"
                     : c == '.'                ? ": an alignment's gap? write N or '-'"
                     : c == '*'                ? ": a protein's stop? strand reads DNA"
                     : (c == ' ' || c == '\t') ? ": remove the blanks"
                                               : "";
  return fmt::format(
      "is not a base letter (A, C, G, T, N, the other IUPAC codes, or '-' for a gap; strand "
      "would read it as N){}",
      hint);
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
