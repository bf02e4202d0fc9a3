// NpzWriter: arrays streamed into a ZIP of .npy members read back with their CRCs, the .npy
// headers numpy writes, ZIP64 records, and nothing published for a short array.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/npz.h"
#include "test_helpers.h"

namespace strand::io {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "strand_npz_test";
  fs::create_directories(dir);
  return dir / name;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_three(const fs::path& path, uint64_t zip64_threshold) {
  NpzWriter writer(path);
  writer.set_zip64_threshold(zip64_threshold);
  writer.begin_array("arr_0", NpyType::kFloat32, {2, 4, 3});
  std::vector<float> values(24);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5F * static_cast<float>(i) - 3.0F;
  writer.append(std::span<const float>(values).subspan(0, 10));  // streamed in pieces
  writer.append(std::span<const float>(values).subspan(10));
  writer.begin_array("codes", NpyType::kUInt8, {5});
  const std::vector<uint8_t> codes = {0, 1, 2, 3, 4};
  writer.append(std::span<const uint8_t>(codes));
  writer.begin_array("index", NpyType::kInt64, {2});
  const std::vector<int64_t> index = {-7, 1LL << 40};
  writer.append(std::span<const int64_t>(index));
  writer.commit();
}

void check_three(const fs::path& path) {
  const std::vector<NpyArray> arrays = read_npz(path);
  REQUIRE(arrays.size() == 3);
  CHECK(arrays[0].name == "arr_0");
  CHECK(arrays[0].descr == "<f4");
  CHECK(arrays[0].shape == Shape{2, 4, 3});
  REQUIRE(arrays[0].bytes.size() == 24 * 4);
  float v[24];
  std::memcpy(v, arrays[0].bytes.data(), sizeof(v));
  CHECK(v[0] == -3.0F);
  CHECK(v[23] == 8.5F);
  CHECK(arrays[1].descr == "|u1");
  CHECK(arrays[1].shape == Shape{5});
  CHECK(arrays[1].bytes[4] == 4);
  CHECK(arrays[2].descr == "<i8");
  int64_t i[2];
  std::memcpy(i, arrays[2].bytes.data(), sizeof(i));
  CHECK(i[0] == -7);
  CHECK(i[1] == (1LL << 40));
}

TEST_CASE("npz: streamed arrays read back, headers as numpy writes them") {
  const fs::path path = scratch("three.npz");
  write_three(path, 0xFFFFFFFFull);
  check_three(path);
  const std::string bytes = file_text(path);
  // The first member: "arr_0.npy", stored, its .npy header padded so the values start at 64.
  CHECK(bytes.compare(30, 9, "arr_0.npy") == 0);
  const size_t npy = 30 + 9;
  CHECK(bytes.compare(npy, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  const size_t header_length = static_cast<unsigned char>(bytes[npy + 8]) |
                               (static_cast<unsigned char>(bytes[npy + 9]) << 8);
  CHECK((10 + header_length) % 64 == 0);
  CHECK(bytes.compare(npy + 10, 62,
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 3), }") == 0);
  CHECK(bytes.find("'shape': (5,), }") != std::string::npos);
  CHECK(bytes.find("PK\x06\x06") == std::string::npos);  // no ZIP64 end record
}

TEST_CASE("npz: ZIP64 records where sizes and offsets pass the threshold") {
  const fs::path path = scratch("zip64.npz");
  write_three(path, 64);
  check_three(path);
  const std::string bytes = file_text(path);
  CHECK(bytes.find("PK\x06\x06") != std::string::npos);  // ZIP64 end of central directory
  CHECK(bytes.find("PK\x06\x07") != std::string::npos);  // and its locator
}

TEST_CASE("npz: an array short of values publishes nothing") {
  const fs::path path = scratch("short.npz");
  fs::remove(path);
  {
    NpzWriter writer(path);
    writer.begin_array("arr_0", NpyType::kFloat32, {3});
    const std::vector<float> two = {1.0F, 2.0F};
    writer.append(std::span<const float>(two));
    CHECK_THROWS_WITH_AS(writer.commit(), doctest::Contains("got"), std::logic_error);
  }
  CHECK_FALSE(fs::exists(path));
  NpzWriter writer(path);
  writer.begin_array("arr_0", NpyType::kFloat32, {1});
  const std::vector<float> two = {1.0F, 2.0F};
  CHECK_THROWS_WITH_AS(writer.append(std::span<const float>(two)),
                       doctest::Contains("more values than"), std::logic_error);
}

}  // namespace
}  // namespace strand::io
