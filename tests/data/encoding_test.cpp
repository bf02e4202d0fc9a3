// Tests for the base encoding policy, reverse complement and one-hot expansion.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "data/encoding.h"

using namespace strand::data;

TEST_CASE("encode maps ACGT to 0..3 and everything else to N") {
  const auto codes = encode("ACGTNacgtnUuRYSWKMBDHV-.*0");
  const std::vector<uint8_t> expected = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 3, 3, 4,
                                         4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
  CHECK(std::vector<uint8_t>(codes.begin(), codes.end()) == expected);
}

TEST_CASE("lowercase is upper-cased and reported in the lower mask") {
  const std::string text = "ACgtNn";
  std::vector<uint8_t> codes(text.size());
  std::vector<uint8_t> mask(text.size());
  encode(text.data(), text.size(), codes.data(), mask.data());
  CHECK(codes == std::vector<uint8_t>{0, 1, 2, 3, 4, 4});
  CHECK(mask == std::vector<uint8_t>{0, 0, 1, 1, 0, 1});
}

TEST_CASE("reverse complement swaps A/T and C/G keeps N reverses the mask") {
  auto codes = encode("AACGTN");
  std::vector<uint8_t> mask = {1, 0, 0, 0, 0, 0};
  reverse_complement(codes.data(), codes.size(), mask.data());
  CHECK(decode(codes.data(), codes.size()) == "NACGTT");
  CHECK(mask == std::vector<uint8_t>{0, 0, 0, 0, 0, 1});
  reverse_complement(codes.data(), codes.size());
  CHECK(decode(codes.data(), codes.size()) == "AACGTN");
}

TEST_CASE("one_hot gives (B 4 L) with zero columns for N") {
  const auto codes = encode(
      "ACGN"
      "TTAA");  // (2, 4)
  std::vector<float> out(2 * 4 * 4, -1.0F);
  one_hot(codes.data(), 2, 4, out.data());
  // sample 0, channel c, position i at c * 4 + i
  CHECK(out[0 * 4 + 0] == 1.0F);                              // A at 0
  CHECK(out[1 * 4 + 1] == 1.0F);                              // C at 1
  CHECK(out[2 * 4 + 2] == 1.0F);                              // G at 2
  for (int c = 0; c < 4; ++c) CHECK(out[c * 4 + 3] == 0.0F);  // N at 3
  float total = 0;
  for (const float v : out) total += v;
  CHECK(total == 7.0F);
  CHECK(out[16 + 3 * 4 + 0] == 1.0F);  // sample 1: T at 0
}

TEST_CASE("sequence letters: ASCII letters and '-', nothing else (issue 38)") {
  for (const char c : std::string("ACGTNacgtnUuRYSWKMBDHVXxEZ-")) {
    CAPTURE(c);
    CHECK(is_sequence_letter(static_cast<unsigned char>(c)));
  }
  for (const char c : std::string("0123456789.* \t\r\n>;@[`{~")) {
    CAPTURE(c);
    CHECK_FALSE(is_sequence_letter(static_cast<unsigned char>(c)));
  }
  CHECK_FALSE(is_sequence_letter(0xC3));  // the first byte of a UTF-8 letter
  const std::string long_run = std::string(1000, 'A') + "1" + std::string(10, 'C');
  CHECK(first_non_sequence_letter(long_run.data(), long_run.size()) == 1000);
  CHECK(first_non_sequence_letter(long_run.data(), 1000) == 1000);
  CHECK(describe_sequence_byte('5') == "'5'");
  CHECK(describe_sequence_byte(' ') == "a space");
  CHECK(non_sequence_letter_reason('7').find("is not a base letter") == 0);
  CHECK(non_sequence_letter_reason('7').find("position number") != std::string::npos);
  CHECK(non_sequence_letter_reason('.').find("gap") != std::string::npos);
  CHECK(non_sequence_letter_reason('*').find("protein") != std::string::npos);
}
