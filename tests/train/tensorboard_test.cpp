// The TensorBoard event-file writer and its protobuf encoding (CRC-32C and TFRecord framing:
// tests/io/tfrecord_test.cpp). Expected bytes were produced independently with tensorboard's
// Python package (event_pb2.Event.SerializeToString).
#include "train/tensorboard.h"

#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "io/protobuf_encoder.h"
#include "support/event_files.h"
#include "support/test_paths.h"

using strand::test::read_tfrecords;
using strand::test::to_hex;

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
