// ENCODE motif parsing: the shipped library, gzip handling, and errors naming file and line.
#include "data/simulation/motif_library.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <doctest/doctest.h>

#include "data/gzip_reader.h"
#include "support/test_paths.h"

using strand::data::MotifLibrary;

namespace {

void expect_parse_error(const std::string& text, const std::string& needle) {
  try {
    (void)MotifLibrary::parse(text, "motifs.txt");
    FAIL("accepted malformed motif text; expected ", needle);
  } catch (const std::runtime_error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

// The shipped file, as tools other than strand read it.
std::filesystem::path shipped_motif_file() {
  return strand::test::source_dir() / "data/motifs/encode_motifs.txt.gz";
}

}  // namespace

TEST_CASE("the built-in ENCODE library holds TAL1_known4 as published") {
  const MotifLibrary& lib = MotifLibrary::builtin();
  CHECK(lib.size() == 2067);
  const auto& tal1 = lib.get("TAL1_known4");
  CHECK(tal1.length() == 10);
  CHECK(tal1.consensus == "DCCABCTGNY");
  CHECK(tal1.aliases == std::vector<std::string>{"TAL1_4", "TAL1_transfac_M00993"});
  CHECK(tal1.rows[0] == std::array<double, 4>{0.25, 0.0, 0.25, 0.5});
  CHECK(tal1.rows[9] == std::array<double, 4>{0.0, 0.4, 0.0, 0.6});
  // The first motif's header uses a space, not a tab, before its alias.
  CHECK(lib.motifs().front().name == "SIX5_disc1");
  CHECK(lib.contains("MYC_disc1"));
  CHECK_FALSE(lib.contains("NOPE"));
  try {
    (void)lib.get("NOPE");
    FAIL("missing motif found");
  } catch (const std::out_of_range& e) {
    CHECK(std::string(e.what()).find("NOPE") != std::string::npos);
    CHECK(std::string(e.what()).find("encode_motifs.txt.gz") != std::string::npos);
  }
}

TEST_CASE("the built-in library is the shipped file, motif for motif") {
  const MotifLibrary& builtin = MotifLibrary::builtin();
  const MotifLibrary file = MotifLibrary::load(shipped_motif_file());
  REQUIRE(builtin.size() == file.size());
  for (std::size_t i = 0; i < file.size(); ++i) {
    const auto& a = builtin.motifs()[i];
    const auto& b = file.motifs()[i];
    INFO(b.name);
    CHECK(a.name == b.name);
    CHECK(a.aliases == b.aliases);
    CHECK(a.consensus == b.consensus);
    CHECK(a.rows == b.rows);
  }
  CHECK(&MotifLibrary::builtin() == &builtin);  // parsed once
  CHECK(MotifLibrary::load_or_builtin("").size() == file.size());
  CHECK(MotifLibrary::load_or_builtin(shipped_motif_file()).source() ==
        shipped_motif_file().string());
}

TEST_CASE("gzip data in memory decompresses, and truncated or foreign data is an error") {
  std::ifstream in(shipped_motif_file(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto as_bytes = [](std::string_view text) {
    return std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(text.data()),
                                          text.size());
  };
  CHECK(strand::data::gunzip(as_bytes(bytes), "motifs") ==
        strand::data::read_maybe_gzipped(shipped_motif_file()));
  const auto expect_error = [&](std::string_view data, const char* needle) {
    try {
      (void)strand::data::gunzip(as_bytes(data), "the test's data");
      FAIL("bad gzip data accepted");
    } catch (const std::runtime_error& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("the test's data") != std::string::npos);
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
  };
  expect_error(std::string_view(bytes).substr(0, bytes.size() / 2), "truncated");
  expect_error(">M\nA 1 0 0 0\n", "incorrect header check");
  expect_error("", "truncated");
}

TEST_CASE("plain-text motif files load too, CRLF and blank lines tolerated") {
  strand::test::TempDir tmp;
  const auto path = tmp.path() / "m.txt";
  std::ofstream(path) << ">A1\talias\r\nA 1 0 0 0\r\n\r\nC 0 1 0 0\n>B2\nN 0.25 0.25 0.25 0.25\n";
  const auto lib = MotifLibrary::load(path);
  REQUIRE(lib.size() == 2);
  CHECK(lib.get("A1").consensus == "AC");
  CHECK(lib.get("B2").length() == 1);
  CHECK_THROWS_AS((void)strand::data::read_maybe_gzipped(tmp.path() / "absent.gz"),
                  std::runtime_error);
}

TEST_CASE("malformed motif text is rejected with file and line") {
  expect_parse_error("A 1 0 0 0\n", "motifs.txt:1: matrix row before");
  expect_parse_error(">M\nA 1 0 0\n", "motifs.txt:2: expected 5 fields");
  expect_parse_error(">M\nA 1 0 x 0\n", "motifs.txt:2: expected a probability for G");
  expect_parse_error(">M\nA 1 0 -0.5 0.5\n", "motifs.txt:2: expected a probability for G");
  expect_parse_error(">M\nA 0.5 0 0 0\n", "motifs.txt:2: probabilities sum to 0.5");
  expect_parse_error(">M\nAB 1 0 0 0\n", "motifs.txt:2: expected one IUPAC letter");
  expect_parse_error(">M\n>N\nA 1 0 0 0\n", "motifs.txt:1: motif 'M' has no rows");
  expect_parse_error(">M\nA 1 0 0 0\n>M\nA 1 0 0 0\n", "motifs.txt:3: duplicate motif name");
  expect_parse_error("> M\nA 1 0 0 0\n", "motifs.txt:1: motif header without a name");
}

TEST_CASE("a truncated gzip file is an error naming the file") {
  strand::test::TempDir tmp;
  const auto full = shipped_motif_file();
  std::ifstream in(full, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto cut = tmp.path() / "cut.txt.gz";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  try {
    (void)MotifLibrary::load(cut);
    FAIL("truncated gzip accepted");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("cut.txt.gz") != std::string::npos);
  }
}
