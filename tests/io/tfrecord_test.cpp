// CRC-32C and TFRecord framing, the bytes around TensorBoard's events (train/tensorboard.h).
// Expected bytes were produced independently with tensorboard's Python package
// (tensorboard.compat.tensorflow_stub masked_crc32c).
#include <cstddef>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include "io/crc32c.h"
#include "io/tfrecord.h"
#include "support/event_files.h"

namespace {

using strand::io::crc32c;
using strand::test::to_hex;

std::vector<std::byte> bytes_of(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

}  // namespace

TEST_CASE("crc32c known vectors (RFC 3720 B.4)") {
  CHECK(crc32c(bytes_of("123456789")) == 0xE3069283u);
  CHECK(crc32c({}) == 0u);
  std::vector<std::byte> zeros(32, std::byte{0});
  CHECK(crc32c(zeros) == 0x8A9136AAu);
  std::vector<std::byte> ones(32, std::byte{0xff});
  CHECK(crc32c(ones) == 0x62A8AB43u);
  std::vector<std::byte> ascending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<std::byte>(i);
  }
  CHECK(crc32c(ascending) == 0x46DD794Eu);
}

TEST_CASE("crc32c fast and portable paths agree for all lengths and offsets") {
  std::mt19937 gen(7);
  std::vector<std::byte> data(300);
  for (auto& b : data) {
    b = static_cast<std::byte>(gen() & 0xff);
  }
  for (std::size_t off = 0; off < 9; ++off) {
    for (std::size_t len = 0; off + len <= data.size(); len += 7) {
      const auto s = std::span(data).subspan(off, len);
      REQUIRE(crc32c(s) == strand::io::crc32c_extend_portable(0, s));
    }
  }
  // Extending in pieces equals one pass.
  const auto whole = crc32c(data);
  const auto part =
      strand::io::crc32c_extend(crc32c(std::span(data).first(101)), std::span(data).subspan(101));
  CHECK(part == whole);
}

TEST_CASE("masked crc32c matches TensorFlow's") {
  CHECK(strand::io::mask_crc32c(0xE3069283u) == 0xc78ab0e5u);
}

TEST_CASE("TFRecord framing bytes") {
  const auto framed = strand::io::frame_tfrecord(bytes_of("hello"));
  CHECK(to_hex(framed) == "0500000000000000eab2043e68656c6c6fbb1f1c19");
}
