// Base encoding: text -> one byte per base codes, reverse complement, one-hot expansion.
//
// Policy (also in data/README.md):
//   A=0 C=1 G=2 T=3 N=4. Bases stay one byte each until the model; one-hot is never stored.
//   Lowercase (soft-masked) bases are upper-cased; encode() can also write a mask that is 1
//   where the input was lowercase. RNA U/u encodes as T. IUPAC ambiguity codes
//   (R Y S W K M B D H V), every other letter (X, a masking letter) and '-' (a gap) encode as N.
//   Reverse complement maps A<->T, C<->G and keeps N.
// Sequence letters (is_sequence_letter): where sequences come in as text (FASTA sequence lines,
//   the Python package's strings), only letters and '-' are taken; a digit, '.', '*', a space or
//   any other symbol is refused, naming the file and line or the argument. htslib (samtools
//   faidx) indexes and returns every printable byte as a base and leaves the meaning to the
//   caller; strand would read them as N, so a GenBank/EMBL-style sequence with position numbers,
//   an alignment's '.' gaps or a protein's '*' stop would train and predict on N silently.
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

/// Whether byte `c` may stand in a sequence: an ASCII letter or '-' (the policy above).
inline constexpr bool is_sequence_letter(unsigned char c) {
  return static_cast<unsigned char>((c | 0x20) - 'a') < 26 || c == '-';
}

/// The index of the first byte of text[0, n) that is not a sequence letter, or n.
size_t first_non_sequence_letter(const char* text, size_t n);

/// A byte as messages show it: "'5'", "a space", "a tab", "byte 0x07".
std::string describe_sequence_byte(char c);

/// Why `c` (not a sequence letter) is refused, for messages after describe_sequence_byte(c) and
/// where it is: "is not a base letter (A, C, G, T, N, the other IUPAC codes, or '-' for a gap;
/// strand would read it as N): a position number (GenBank/EMBL style)? keep only the bases".
std::string non_sequence_letter_reason(char c);

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
