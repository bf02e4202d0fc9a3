// Tests for the text helpers: the line-length cap of LineReader and the bounded, printable
// excerpts that error messages quote (issue 10, item 12).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "data/data_error.h"
#include "data/intervals/intervals.h"
#include "data/text_fields.h"
#include "test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

// 5000 bytes of "binary garbage": every byte value, NUL included.
std::string garbage(size_t n) {
  std::string text(n, '\0');
  for (size_t i = 0; i < n; ++i) text[i] = static_cast<char>((i * 37 + 11) % 256);
  for (char& c : text) {
    if (c == '\n') c = 'x';
  }
  return text;
}

std::string error_of(const auto& call) {
  try {
    call();
  } catch (const DataError& error) {
    return error.what();
  }
  return {};
}

}  // namespace

TEST_CASE("LineReader: a line over the cap is an error naming file line and cap") {
  TempDir dir;
  const std::string path =
      dir.write("long.txt", "ok\n" + std::string(kMaxLineBytes + 10, 'A') + "\nafter\n");
  LineReader reader(path);
  std::string line;
  REQUIRE(reader.next(line));
  CHECK(line == "ok");
  const std::string message = error_of([&] { reader.next(line); });
  CHECK(message.find("long.txt:2: line is longer than the 1048576-byte limit") !=
        std::string::npos);
  CHECK(message.size() < 300);
}

TEST_CASE("LineReader: a line of exactly the cap is read, CRLF included, and a smaller cap holds") {
  TempDir dir;
  const std::string exact(kMaxLineBytes, 'C');
  const std::string path = dir.write("exact.txt", exact + "\r\n" + exact);
  LineReader reader(path);
  std::string line;
  REQUIRE(reader.next(line));
  CHECK(line.size() == kMaxLineBytes);
  REQUIRE(reader.next(line));
  CHECK(line.size() == kMaxLineBytes);
  CHECK_FALSE(reader.next(line));

  LineReader small(dir.write("small.txt", "12345\n123456\n"), 5);
  REQUIRE(small.next(line));
  CHECK_THROWS_WITH_AS(small.next(line),
                       doctest::Contains("small.txt:2: line is longer than the 5"), DataError);
}

TEST_CASE("excerpt: at most 80 characters, non-printable bytes escaped") {
  CHECK(excerpt("chr1\t10") == "chr1\\t10");
  CHECK(excerpt(std::string("a\0b\r\n\\\xff", 7)) == "a\\x00b\\r\\n\\\\\\xff");
  const std::string cut = excerpt(std::string(200, 'z'));
  CHECK(cut == std::string(80, 'z') + "... (200 bytes)");
  CHECK(excerpt("abcdef", 3) == "abc... (6 bytes)");
}

TEST_CASE("a 5 KB binary line in a BED file gives a short printable error") {
  // Reproducer from issue 10: the error used to echo all 5000 bytes.
  TempDir dir;
  const std::string path = dir.write("bin.bed", "chr1\t10\t20\t1\n" + garbage(5000) + "\n");
  const std::string message = error_of([&] { read_intervals(path, {}); });
  REQUIRE_FALSE(message.empty());
  CHECK(message.find("bin.bed:2:") != std::string::npos);
  CHECK(message.size() < 400);
  CHECK(std::all_of(message.begin(), message.end(), [](char c) { return c >= 0x20 && c < 0x7F; }));
}
