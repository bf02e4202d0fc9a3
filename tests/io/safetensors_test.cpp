// safetensors round trip, layout, and rejection of every kind of corruption.
#include "io/safetensors.h"

#include <cmath>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "support/test_paths.h"

namespace {

using strand::io::SafetensorsEntry;

// The tensors scripts/check_safetensors.py expects (keep the two in sync).
std::vector<SafetensorsEntry> reference_entries() {
  std::vector<float> weights;
  for (int i = 0; i < 6; ++i) {
    weights.push_back(0.5f * static_cast<float>(i) - 1.0f);
  }
  const std::vector<double> bias{1e-300, -2.5, std::numbers::pi};
  const std::vector<std::uint8_t> codes{0, 1, 2, 3, 4};
  const std::vector<std::int32_t> index{-1, 2, -3, 2147483647};
  const std::vector<std::int64_t> step{(std::int64_t{1} << 40) + 7};
  const std::vector<float> empty;
  return {
      strand::io::make_safetensors_entry<float>("conv1.weight", {2, 3}, weights),
      strand::io::make_safetensors_entry<double>("conv1.bias", {3}, bias),
      strand::io::make_safetensors_entry<std::uint8_t>("codes", {5}, codes),
      strand::io::make_safetensors_entry<std::int32_t>("index", {2, 2}, index),
      strand::io::make_safetensors_entry<std::int64_t>("step", {}, step),
      strand::io::make_safetensors_entry<float>("empty", {0, 4}, empty),
  };
}

const std::map<std::string, std::string> kMetadata{{"format", "strand"}, {"epoch", "3"}};

// Builds a file from a hand-written header and `data_bytes` zero bytes of data.
std::vector<std::byte> craft(const std::string& header, std::size_t data_bytes) {
  std::vector<std::byte> out;
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<std::byte>((n >> (8 * i)) & 0xff));
  }
  for (char c : header) {
    out.push_back(static_cast<std::byte>(c));
  }
  out.resize(out.size() + data_bytes, std::byte{0});
  return out;
}

// Decoding must fail with a message containing every string in `needles`.
void expect_rejected(const std::vector<std::byte>& bytes, std::vector<std::string> needles) {
  try {
    (void)strand::io::decode_safetensors(bytes, "model.safetensors");
    FAIL("corrupt input accepted; expected an error mentioning ", needles.front());
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("model.safetensors") != std::string::npos);
    for (const auto& n : needles) {
      CHECK(what.find(n) != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("safetensors round trip through a file keeps every field") {
  strand::test::TempDir tmp;
  const auto dir = strand::test::output_dir_from_env("STRAND_KEEP_SAFETENSORS_DIR", tmp);
  const auto path = dir / "reference.safetensors";
  const auto entries = reference_entries();
  strand::io::write_safetensors(path, entries, kMetadata);
  // Nothing but the target is left in the directory (the temp file was renamed).
  if (dir == tmp.path()) {
    CHECK(std::distance(std::filesystem::directory_iterator(dir),
                        std::filesystem::directory_iterator{}) == 1);
  }
  const auto file = strand::io::read_safetensors(path);
  CHECK(file.metadata == kMetadata);
  REQUIRE(file.entries.size() == entries.size());
  for (const auto& want : entries) {
    const auto& got = file.at(want.name);
    CHECK(got.dtype == want.dtype);
    CHECK(got.shape == want.shape);
    CHECK(got.data == want.data);
  }
  // Entries come back in data-offset order, which is write order.
  for (std::size_t i = 0; i < entries.size(); ++i) {
    CHECK(file.entries[i].name == entries[i].name);
  }
  const auto bias = strand::io::safetensors_values<double>(file.at("conv1.bias"));
  CHECK(bias[2] == std::numbers::pi);
  CHECK_THROWS_AS((void)strand::io::safetensors_values<float>(file.at("conv1.bias")),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)file.at("missing"), std::out_of_range);
}

TEST_CASE("safetensors layout: LE header length, space-padded JSON, aligned data") {
  const auto bytes = strand::io::encode_safetensors(reference_entries(), kMetadata);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) {
    n |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  }
  CHECK(n % 8 == 0);
  CHECK(static_cast<char>(bytes[8]) == '{');
  const std::string header(reinterpret_cast<const char*>(bytes.data() + 8), n);
  CHECK(header.find("\"__metadata__\":{\"epoch\":\"3\",\"format\":\"strand\"}") !=
        std::string::npos);
  CHECK(
      header.find("\"conv1.weight\":{\"data_offsets\":[0,24],\"dtype\":\"F32\",\"shape\":[2,3]}") !=
      std::string::npos);
  const auto last = header.find_last_not_of(' ');
  CHECK(header[last] == '}');
  // 24 (F32 2x3) + 24 (F64 3) + 5 (U8) + 16 (I32 2x2) + 8 (I64 scalar) + 0.
  CHECK(bytes.size() == 8 + n + 77);
  // First float of conv1.weight is -1.0f = 0xbf800000, little-endian.
  CHECK(bytes[8 + n + 3] == std::byte{0xbf});
  CHECK(bytes[8 + n + 2] == std::byte{0x80});
}

TEST_CASE("safetensors writer rejects inconsistent entries") {
  auto entries = reference_entries();
  entries[0].data.pop_back();
  CHECK_THROWS_AS((void)strand::io::encode_safetensors(entries), std::invalid_argument);
  entries = reference_entries();
  entries[1].name = entries[0].name;
  CHECK_THROWS_AS((void)strand::io::encode_safetensors(entries), std::invalid_argument);
  entries = reference_entries();
  entries[2].dtype = "F16";
  CHECK_THROWS_AS((void)strand::io::encode_safetensors(entries), std::invalid_argument);
  entries = reference_entries();
  entries[0].name = "__metadata__";
  CHECK_THROWS_AS((void)strand::io::encode_safetensors(entries), std::invalid_argument);
}

TEST_CASE("safetensors reader rejects truncated files") {
  const auto good = strand::io::encode_safetensors(reference_entries(), kMetadata);
  expect_rejected({good.begin(), good.begin() + 5}, {"too short"});
  expect_rejected({good.begin(), good.begin() + 40}, {"header length"});
  // Cut inside the data section: tensors at the end now run past it.
  expect_rejected({good.begin(), good.end() - 3}, {"tensor", "outside"});
  strand::test::TempDir tmp;
  const auto path = tmp.path() / "cut.safetensors";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(good.data()), 30);
  }
  try {
    (void)strand::io::read_safetensors(path);
    FAIL("truncated file accepted");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("cut.safetensors") != std::string::npos);
  }
  CHECK_THROWS_AS((void)strand::io::read_safetensors(tmp.path() / "absent.safetensors"),
                  std::runtime_error);
}

TEST_CASE("safetensors reader rejects garbage headers") {
  expect_rejected(craft("{\"a\": [1, 2", 0), {"not valid JSON"});
  expect_rejected(craft("\xff\xfe{}    ", 0), {"not valid JSON"});
  expect_rejected(craft("[1,2,3]", 0), {"must be a JSON object"});
  expect_rejected(craft(R"({"x":{"dtype":"F32","shape":[1]}})", 4), {"'x'", "data_offsets"});
  expect_rejected(craft(R"({"__metadata__":{"k":1}})", 0), {"__metadata__"});
}

TEST_CASE("safetensors reader rejects bad dtypes, shapes and names") {
  expect_rejected(craft(R"({"x":{"dtype":"Q7","shape":[1],"data_offsets":[0,4]}})", 4),
                  {"'x'", "unknown safetensors dtype 'Q7'"});
  expect_rejected(craft(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4),
                  {"'x'", "non-negative"});
  expect_rejected(craft(R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                        R"("x":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                        2),
                  {"'x'", "more than once"});
  // Found by fuzz/fuzz_safetensors (corpus: empty_tensor_name.safetensors): the reader took a
  // tensor named "" that encode_safetensors() refuses, so the file could not be written back.
  expect_rejected(craft(R"({"":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1),
                  {"tensor ''", "must not be empty"});
}

TEST_CASE("safetensors reader rejects bad data offsets") {
  // Out of range.
  expect_rejected(craft(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4),
                  {"'x'", "outside"});
  // begin > end.
  expect_rejected(craft(R"({"x":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", 4),
                  {"'x'", "outside"});
  // Size disagrees with shape x dtype.
  expect_rejected(craft(R"({"x":{"dtype":"F64","shape":[1],"data_offsets":[0,4]}})", 4),
                  {"'x'", "needs 8 bytes"});
  // Overlap.
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                        8),
                  {"'b'", "overlap"});
  // Gap.
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                        12),
                  {"'b'", "gap"});
  // Trailing bytes nobody owns.
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 8),
                  {"cover 4 bytes"});
  // Negative offset.
  expect_rejected(craft(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", 4),
                  {"'a'", "data_offsets"});
}

// Issue 23 (16): a shape whose byte count overflows 64 bits was refused as "needs 0 bytes", the
// wrapped product; a dimension above INT64_MAX wrapped to a negative one.
TEST_CASE("safetensors reader names an overflowing shape's size without wrapping it") {
  // [2^62, 2^62] x 4 bytes: 2^126.
  expect_rejected(craft(R"({"x":{"dtype":"F32","shape":[4611686018427387904,4611686018427387904],)"
                        R"("data_offsets":[0,4]}})",
                        4),
                  {"'x'", "needs more than 18446744073709551615 bytes"});
  expect_rejected(craft(R"({"x":{"dtype":"U8","shape":[9223372036854775808],)"
                        R"("data_offsets":[0,1]}})",
                        1),
                  {"'x'", "exceeds 9223372036854775807"});
  // The writer's message too.
  const std::vector<SafetensorsEntry> entries = {
      {"w", "F32", {int64_t{1} << 62, int64_t{1} << 62}, std::vector<std::byte>(4)}};
  try {
    (void)strand::io::encode_safetensors(entries, {});
    FAIL("an overflowing shape was written");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("needs more than 18446744073709551615 bytes") !=
          std::string::npos);
  }
}

// Issue 23 (1): JSON nested 100,000 deep overflowed the stack in nlohmann's recursive copy; every
// JSON strand reads is refused past io::kMaxJsonNesting levels while it is parsed.
TEST_CASE("safetensors reader refuses a header nested deeper than the JSON limit") {
  const std::string deep =
      R"({"__metadata__": )" + std::string(100000, '[') + std::string(100000, ']') + "}";
  expect_rejected(craft(deep, 0), {"deeper than 64 levels"});
}
