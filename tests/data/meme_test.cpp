// MEME's minimal motif format: a round trip through the writer, the parser's tolerance of the
// lines it need not read, and a file:line error for each malformed input.
#include <doctest/doctest.h>

#include <string>

#include "data/data_error.h"
#include "data/meme.h"

namespace strand::data {
namespace {

constexpr const char* kTwoMotifs =
    "MEME version 5\n"
    "\n"
    "ALPHABET= ACGT\n"
    "strands: + -\n"
    "Background letter frequencies\n"
    "A 0.3 C 0.2 G 0.2 T 0.3\n"
    "\n"
    "MOTIF GATA gata_alias\n"
    "letter-probability matrix: alength= 4 w= 3 nsites= 18 E= 1e-5\n"
    "  0.0 0.0 1.0 0.0\n"
    "  0.9 0.05 0.05 0.0\n"
    "  0.1 0.1 0.1 0.7\n"
    "URL http://example.org\n"
    "\n"
    "MOTIF TATA\n"
    "letter-probability matrix: alength= 4 w= 2\n"
    "0.25 0.25 0.25 0.25\n"
    "0 0 0.001 0.999\n";

TEST_CASE("MEME: motifs parse with their consensus, and the writer's text parses back") {
  const std::vector<Motif> motifs = parse_meme(kTwoMotifs, "two.meme");
  REQUIRE(motifs.size() == 2);
  CHECK(motifs[0].name == "GATA");
  CHECK(motifs[0].aliases == std::vector<std::string>{"gata_alias"});
  CHECK(motifs[0].consensus == "GAT");
  CHECK(motifs[0].rows[1][0] == doctest::Approx(0.9));
  CHECK(motifs[1].consensus == "AT");  // a tie takes the first letter
  const std::vector<Motif> again = parse_meme(meme_text(motifs), "written.meme");
  REQUIRE(again.size() == 2);
  CHECK(again[0].rows == motifs[0].rows);
  CHECK(again[1].name == "TATA");
}

void check_refused(const std::string& text, const std::string& message) {
  INFO(text);
  CHECK_THROWS_WITH_AS(parse_meme(text, "bad.meme"), doctest::Contains(message.c_str()), DataError);
}

TEST_CASE("MEME: malformed files are refused naming file:line") {
  check_refused("", "bad.meme:1: not a MEME motif file");
  check_refused(">GATA\nG 0 0 1 0\n",
                "bad.meme:1: not a MEME motif file: expected 'MEME version N'");
  check_refused("MEME version 4\nALPHABET= ACDEFGHIKLMNPQRSTVWY\n", "bad.meme:2: alphabet");
  check_refused("MEME version 4\n\n", "bad.meme:2: no MOTIF");
  check_refused("MEME version 4\nMOTIF A\nletter-probability matrix: alength= 20 w= 1\n",
                "bad.meme:3: motif 'A': alength= 20");
  check_refused("MEME version 4\nMOTIF A\nletter-probability matrix: alength= 4\n",
                "bad.meme:3: motif 'A': the matrix line needs w=");
  check_refused("MEME version 4\nMOTIF A\nletter-probability matrix: w= 2\n0.5 0.5 0 0\n",
                "bad.meme:5: motif 'A' has 1 of the w= 2 rows");
  check_refused("MEME version 4\nMOTIF A\nletter-probability matrix: w= 2\n0.5 0.5 0 0\nMOTIF B\n",
                "bad.meme:5: motif 'A' has 1 of the w= 2 rows");
  check_refused("MEME version 4\nMOTIF A\nletter-probability matrix: w= 1\n0.5 0.5 0\n",
                "bad.meme:4: motif 'A': a matrix row needs the 4 probabilities");
  check_refused("MEME version 4\nMOTIF A\nletter-probability matrix: w= 1\n0.5 0.6 0 0\n",
                "bad.meme:4: motif 'A': the row sums to 1.1");
  check_refused("MEME version 4\nMOTIF A\nletter-probability matrix: w= 1\n1.5 -0.5 0 0\n",
                "bad.meme:4: motif 'A': probability -0.5");
  check_refused("MEME version 4\nMOTIF A\nMOTIF B\nletter-probability matrix: w= 1\n1 0 0 0\n",
                "bad.meme:2: motif 'A' has no letter-probability matrix");
  check_refused("MEME version 4\nMOTIF A\nletter-probability matrix: w= 1\n1 0 0 0\nMOTIF A\n",
                "bad.meme:5: motif 'A' appears twice");
  check_refused("MEME version 4\nletter-probability matrix: w= 1\n",
                "bad.meme:2: a letter-probability");
}

}  // namespace
}  // namespace strand::data
