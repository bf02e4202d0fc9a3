// CRC-32C, TFRecord framing, protobuf encoding and the TensorBoard event-file writer.
// Expected bytes were produced independently with tensorboard's Python package
// (tensorboard.compat.tensorflow_stub masked_crc32c and event_pb2.Event.SerializeToString).
#include "train/tensorboard.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "io/crc32c.h"
#include "io/protobuf_encoder.h"
#include "io/tfrecord.h"
#include "support/event_files.h"
#include "support/test_paths.h"

namespace {

using strand::io::crc32c;
using strand::test::read_tfrecords;

std::vector<std::byte> bytes_of(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

std::string to_hex(std::span<const std::byte> bytes) {
  std::string out;
  for (std::byte b : bytes) {
    char buf[3];
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned>(b));
    out += buf;
  }
  return out;
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

TEST_CASE("protobuf bytes of a scalar event") {
  const auto event = strand::train::encode_scalar_event(1700000000.25, 42, "loss/train", 0.5f);
  CHECK(to_hex(event) == "0900001040fc54d941102a2a130a110a0a6c6f73732f747261696e150000003f");
  const auto version = strand::train::encode_file_version_event(1700000000.25);
  CHECK(to_hex(version) == "0900001040fc54d9411a0d627261696e2e4576656e743a32");
  strand::io::ProtobufEncoder neg;
  neg.add_double(1, 1.0);
  neg.add_int64(2, -1);
  CHECK(to_hex(neg.bytes()) == "09000000000000f03f10ffffffffffffffffff01");
}

// The data that scripts/check_tensorboard.py expects: loss/train = 1/(step+1) for steps 0..9,
// accuracy/valid = 0.5 + 0.04*step for even steps. With STRAND_KEEP_EVENTS_DIR set the file
// stays in that directory for the script; otherwise it goes to a temporary directory.
TEST_CASE("SummaryWriter writes a readable event file") {
  strand::test::TempDir tmp;
  const auto dir = strand::test::output_dir_from_env("STRAND_KEEP_EVENTS_DIR", tmp);
  std::filesystem::path path;
  {
    strand::train::SummaryWriter writer(dir);
    path = writer.file_path();
    CHECK(path.filename().string().starts_with("events.out.tfevents."));
    for (int step = 0; step < 10; ++step) {
      writer.add_scalar("loss/train", 1.0 / (step + 1), step);
      if (step % 2 == 0) {
        writer.add_scalar("accuracy/valid", 0.5 + 0.04 * step, step);
      }
    }
    writer.flush();
    // A second writer in the same second must not clobber the first file.
    strand::train::SummaryWriter other(dir);
    CHECK(other.file_path() != path);
    std::filesystem::remove(other.file_path());
  }
  const auto records = read_tfrecords(strand::test::read_bytes(path));
  REQUIRE(records.size() == 1 + 10 + 5);
  // Record 0 is the version record; its payload ends with the version string.
  const std::string first(reinterpret_cast<const char*>(records[0].data()), records[0].size());
  CHECK(first.ends_with("brain.Event:2"));
  // Record 1 is loss/train at step 0: same bytes as encode_scalar_event apart from wall time.
  const auto expected = strand::train::encode_scalar_event(0.0, 0, "loss/train", 1.0f);
  REQUIRE(records[1].size() == expected.size());
  CHECK(std::equal(records[1].begin() + 9, records[1].end(), expected.begin() + 9));
}
