// Naming patterns: the MEME reader and the TOMTOM-like matcher.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "motifs/tomtom.h"
#include "support/test_paths.h"

using namespace strand;
using namespace strand::motifs;

namespace {

std::vector<double> soft_columns(const std::string& motif) {
  std::vector<double> out;
  for (char base : motif) {
    for (char letter : std::string("ACGT")) out.push_back(base == letter ? 0.85 : 0.05);
  }
  return out;
}

std::vector<Motif> database() {
  return {{"GATA", soft_columns("AGATAAGG")},       {"EBOX", soft_columns("CCACGTGG")},
          {"CTCF", soft_columns("CCGCGNGGNGGCAG")}, {"AP1", soft_columns("TGACTCA")},
          {"SP1", soft_columns("GGGGCGGGG")},       {"POLYA", soft_columns("AAAAAAAA")}};
}

}  // namespace

TEST_CASE("motifs: the TOMTOM-like matcher names a motif on either strand") {
  const std::vector<Motif> db = database();
  const std::vector<MotifMatch> forward = tomtom(soft_columns("GATAAG"), db, 3);
  REQUIRE(forward.size() == 3);
  CHECK(forward[0].name == "GATA");
  CHECK_FALSE(forward[0].revcomp);
  CHECK(forward[0].p_value < forward[1].p_value);
  CHECK(forward[0].q_value >= forward[0].p_value);
  // CTTATC is GATAAG's reverse complement.
  const std::vector<MotifMatch> reverse = tomtom(soft_columns("CTTATC"), db, 1);
  CHECK(reverse[0].name == "GATA");
  CHECK(reverse[0].revcomp);
}

TEST_CASE("motifs: a MEME file is read, and a short matrix row is refused with its line") {
  test::TempDir dir;
  const auto good = dir.path() / "good.meme";
  std::ofstream(good) << "MEME version 4\n\nALPHABET= ACGT\n\nBackground letter frequencies\n"
                         "A 0.3 C 0.2 G 0.2 T 0.3\n\nMOTIF M1 alias\n"
                         "letter-probability matrix: alength= 4 w= 2 nsites= 20 E= 0\n"
                         "0.1 0.2 0.3 0.4\n1 0 0 0\n\nMOTIF M2\n"
                         "letter-probability matrix: alength= 4 w= 1\n0 0 0 1\n";
  const std::vector<Motif> motifs = read_meme(good);
  REQUIRE(motifs.size() == 2);
  CHECK(motifs[0].name == "M1");
  CHECK(motifs[0].width() == 2);
  CHECK(motifs[1].ppm == std::vector<double>{0, 0, 0, 1});
  const auto bad = dir.path() / "bad.meme";
  std::ofstream(bad) << "MOTIF M1\nletter-probability matrix: alength= 4 w= 2\n0.1 0.2 0.3\n";
  CHECK_THROWS_WITH_AS(read_meme(bad), doctest::Contains("line 3"), std::runtime_error);
}
