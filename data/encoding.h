// Base encoding: text -> one byte per base codes, reverse complement, one-hot expansion.
//
// Policy (also in data/README.md):
//   A=0 C=1 G=2 T=3 N=4. Bases stay one byte each until the model; one-hot is never stored.
//   Lowercase (soft-masked) bases are upper-cased; encode() can also write a mask that is 1
//   where the input was lowercase. RNA U/u encodes as T. IUPAC ambiguity codes
//   (R Y S W K M B D H V) and every other byte ('-', '.', digits...) encode as N.
//   Reverse complement maps A<->T, C<->G and keeps N.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace strand::data {

inline constexpr uint8_t kCodeA = 0;
inline constexpr uint8_t kCodeC = 1;
inline constexpr uint8_t kCodeG = 2;
inline constexpr uint8_t kCodeT = 3;
inline constexpr uint8_t kCodeN = 4;
inline constexpr int kNumBases = 4;

namespace detail {
constexpr std::array<uint8_t, 256> make_code_table() {
  std::array<uint8_t, 256> table{};
  for (auto& code : table) code = kCodeN;
  table['A'] = table['a'] = kCodeA;
  table['C'] = table['c'] = kCodeC;
  table['G'] = table['g'] = kCodeG;
  table['T'] = table['t'] = kCodeT;
  table['U'] = table['u'] = kCodeT;
  return table;
}
}  // namespace detail

/// Byte -> code lookup (see the policy in the file comment).
inline constexpr std::array<uint8_t, 256> kCodeTable = detail::make_code_table();

/// True for 'a'..'z' (a soft-masked base in a reference FASTA).
inline constexpr bool is_lowercase(char c) { return c >= 'a' && c <= 'z'; }

/// Complement of one code: A<->T, C<->G, N stays N.
inline constexpr uint8_t complement_code(uint8_t code) {
  return code < kNumBases ? static_cast<uint8_t>(kCodeT - code) : kCodeN;
}

/// Encodes n characters into codes (n bytes). When lower_mask is not null, writes 1 there
/// for lowercase input characters and 0 otherwise (n bytes).
void encode(const char* text, size_t n, uint8_t* codes, uint8_t* lower_mask = nullptr);

/// Convenience: encodes a string, returns the codes.
std::basic_string<uint8_t> encode(std::string_view text);

/// Decodes codes (0..4) back to "ACGTN" text.
std::string decode(const uint8_t* codes, size_t n);

/// Reverse complements codes in place (n bytes). If mask is not null it is reversed too.
void reverse_complement(uint8_t* codes, size_t n, uint8_t* mask = nullptr);

/// Expands codes (B, L) uint8 into one-hot out (B, 4, L) float; N gives a zero column.
/// For tests and as an oracle for model-side kernels; the loader never stores one-hot.
void one_hot(const uint8_t* codes, size_t batch, size_t length, float* out);

}  // namespace strand::data
