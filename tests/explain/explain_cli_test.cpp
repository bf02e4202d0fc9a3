// `strand explain` end to end on a tiny trained run: each method's files (.npz in
// TF-MoDISco-lite's layout, .tsv, .bw), the logo, the references round trip, every bad input
// the command names (wrong length, unknown output or task, zero references, a bigWig of
// unsorted windows), each leaving no output behind, and --device: refused with the reason
// without a GPU, equal to the CPU's results on one.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "cli/cli_test_support.h"
#include "cuda/cuda_test_support.h"
#include "data/signals/bigwig.h"
#include "explain/logo.h"
#include "io/npz.h"
#include "tensor/cuda_runtime.h"
#include "test_helpers.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::write_text;

std::string bases(int64_t length, uint64_t seed) {
  std::string out;
  for (int64_t i = 0; i < length; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    out += "ACGT"[(seed >> 33) % 4];
  }
  return out;
}

// A tiny simulated run (100 bp, one task) under dir/r, three records of 100 bp (dir/r.fa) and
// a genome of two contigs (dir/g.fa).
void prepare(const TempDir& dir) {
  REQUIRE(run(tiny_run(dir, "r", 2)).status == 0);
  write_text(dir.path() / "r.fa", ">a\n" + bases(100, 1) + "\n>b\n" + bases(100, 2) + "\n>c\n" +
                                      bases(40, 3) + "N" + bases(59, 4) + "\n");
  write_text(dir.path() / "g.fa", ">chr1\n" + bases(700, 5) + "\n>chr2\n" + bases(300, 6) + "\n");
}

std::vector<std::string> explain(const TempDir& dir, const std::string& method,
                                 std::vector<std::string> more) {
  std::vector<std::string> args = {"explain", "--model",   dir.str("r"), "--method",
                                   method,    "--threads", "1"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::vector<float> floats(const io::NpyArray& array) {
  std::vector<float> values(array.bytes.size() / 4);
  std::memcpy(values.data(), array.bytes.data(), array.bytes.size());
  return values;
}

TEST_CASE("explain: deeplift_shap writes TF-MoDISco's .npz pair, a .tsv and a logo") {
  TempDir dir("explain-shap");
  prepare(dir);
  const CliResult result =
      run(explain(dir, "deeplift_shap",
                  {"--fasta", dir.str("r.fa"), "--references", "5", "--out", dir.str("shap.npz"),
                   "--out", dir.str("shap.tsv"), "--plot", dir.str("logo.svg"), "--plot-sequence",
                   "b", "--deviations", dir.str("dev.tsv")}));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("convergence:") != std::string::npos);
  const auto scores = io::read_npz(dir.path() / "shap.npz");
  const auto onehot = io::read_npz(dir.path() / "shap_onehot.npz");
  REQUIRE(scores.size() == 1);
  REQUIRE(onehot.size() == 1);
  CHECK(scores[0].name == "arr_0");
  CHECK(scores[0].descr == "<f4");
  CHECK(scores[0].shape == Shape{3, 4, 100});
  CHECK(onehot[0].shape == Shape{3, 4, 100});
  // The one-hot of record a's first base, and record c's N (an all-zero column).
  const std::vector<float> h = floats(onehot[0]);
  const char first = bases(100, 1)[0];
  const int letter = first == 'A' ? 0 : first == 'C' ? 1 : first == 'G' ? 2 : 3;
  CHECK(h[static_cast<size_t>(letter * 100)] == 1.0F);
  for (int c = 0; c < 4; ++c) CHECK(h[static_cast<size_t>(2 * 400 + c * 100 + 40)] == 0.0F);
  // The TSV: a row per base, the base's contribution its letter's score.
  const std::string tsv = read_text(dir.path() / "shap.tsv");
  CHECK(testing::count_lines(tsv) == 1 + 300);
  CHECK(tsv.rfind("name\tchrom\tstart\tend\tbase\tA\tC\tG\tT\tcontribution\n", 0) == 0);
  CHECK(testing::count_lines(read_text(dir.path() / "dev.tsv")) == 4);
  const std::string svg = read_text(dir.path() / "logo.svg");
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("b (deeplift_shap") != std::string::npos);
}

TEST_CASE("explain: --save-references and --reference-fasta reproduce the same attributions") {
  TempDir dir("explain-references");
  prepare(dir);
  REQUIRE(run(explain(dir, "deeplift_shap",
                      {"--fasta", dir.str("r.fa"), "--references", "3", "--seed", "4", "--out",
                       dir.str("a.npz"), "--save-references", dir.str("refs.fa")}))
              .status == 0);
  CHECK(testing::count_lines(read_text(dir.path() / "refs.fa")) == 2 * 9);
  const CliResult given = run(explain(dir, "deeplift_shap",
                                      {"--fasta", dir.str("r.fa"), "--reference-fasta",
                                       dir.str("refs.fa"), "--out", dir.str("b.npz")}));
  REQUIRE_MESSAGE(given.status == 0, given.err);
  CHECK(floats(io::read_npz(dir.path() / "a.npz")[0]) ==
        floats(io::read_npz(dir.path() / "b.npz")[0]));
  // A file with a number of records that is no multiple of the sequences' is refused.
  write_text(dir.path() / "two.fa", ">x\n" + bases(100, 8) + "\n>y\n" + bases(100, 9) + "\n");
  const CliResult odd = run(explain(dir, "deeplift_shap",
                                    {"--fasta", dir.str("r.fa"), "--reference-fasta",
                                     dir.str("two.fa"), "--out", dir.str("c.npz")}));
  CHECK(odd.status == 1);
  CHECK(odd.err.find("has 2 records") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "c.npz"));
  // A reference of another length is named, with the sequences' length.
  write_text(dir.path() / "short.fa",
             ">p\n" + bases(100, 8) + "\n>q\n" + bases(90, 9) + "\n>s\n" + bases(100, 10) + "\n");
  const CliResult short_one = run(explain(dir, "deeplift_shap",
                                          {"--fasta", dir.str("r.fa"), "--reference-fasta",
                                           dir.str("short.fa"), "--out", dir.str("d.npz")}));
  CHECK(short_one.status == 1);
  CHECK(short_one.err.find("--reference-fasta") != std::string::npos);
  CHECK(short_one.err.find("record 'q' has 90 bases") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "d.npz"));
}

TEST_CASE("explain: ism over a position range, fast and brute force alike, no row for N") {
  TempDir dir("explain-ism");
  prepare(dir);
  std::vector<std::vector<float>> effects;
  for (const char* path : {"fast", "brute"}) {
    const std::string out = dir.str(std::string(path) + ".npz");
    const CliResult result =
        run(explain(dir, "ism",
                    {"--fasta", dir.str("r.fa"), "--positions", "31-60", "--ism-path", path,
                     "--out", out, "--out", dir.str(std::string(path) + ".tsv")}));
    REQUIRE_MESSAGE(result.status == 0, result.err);
    const auto arrays = io::read_npz(out);
    CHECK(arrays[0].shape == Shape{3, 4, 30});
    effects.push_back(floats(arrays[0]));
  }
  for (size_t i = 0; i < effects[0].size(); ++i) {
    CHECK(effects[0][i] == doctest::Approx(effects[1][i]).epsilon(1e-5).scale(1.0));
  }
  // Record c's N at position 41 (index 10 of the range): no effect for any letter.
  for (int c = 0; c < 4; ++c) CHECK(effects[0][static_cast<size_t>(2 * 120 + c * 30 + 10)] == 0.0F);
  const std::string tsv = read_text(dir.path() / "fast.tsv");
  CHECK(tsv.find("\tmax_effect\n") != std::string::npos);
  CHECK(tsv.find("c\tc\t40\t41\tN\t0\t0\t0\t0\t0\n") != std::string::npos);
}

TEST_CASE("explain: --device cuda is refused, with the reason, where no GPU is usable") {
  if (cuda_usable()) STRAND_SKIP("a CUDA device is usable here: the GPU comparison runs instead");
  TempDir dir("explain-device");
  prepare(dir);
  for (const char* path : {"auto", "fast"}) {
    CAPTURE(path);
    const CliResult result = run(explain(dir, "ism",
                                         {"--fasta", dir.str("r.fa"), "--device", "cuda",
                                          "--ism-path", path, "--out", dir.str("d.npz")}));
    CHECK(result.status != 0);
    CHECK(result.err.find("error: --device: 'cuda' requested, but " + cuda_unusable_reason()) == 0);
    CHECK_FALSE(fs::exists(dir.path() / "d.npz"));
  }
  const CliResult unknown = run(explain(
      dir, "gradient", {"--fasta", dir.str("r.fa"), "--device", "gpu", "--out", dir.str("d.npz")}));
  CHECK(unknown.status != 0);
  CHECK(unknown.err.find("error: --device: ") == 0);
}

TEST_CASE("explain: on the GPU, ism, deeplift_shap and gradient equal the CPU's") {
  STRAND_REQUIRE_GPU();
  TempDir dir("explain-gpu");
  prepare(dir);
  const CliResult fast = run(explain(dir, "ism",
                                     {"--fasta", dir.str("r.fa"), "--device", "cuda", "--ism-path",
                                      "fast", "--out", dir.str("fast.npz")}));
  CHECK(fast.status != 0);
  CHECK(fast.err.find("--ism-path fast: the windowed fast path runs on the CPU") !=
        std::string::npos);
  const std::vector<std::pair<std::string, std::vector<std::string>>> methods = {
      {"ism", {}}, {"deeplift_shap", {"--references", "5"}}, {"gradient", {}}};
  for (const auto& [method, extra] : methods) {
    CAPTURE(method);
    std::vector<std::vector<float>> scores;
    for (const std::string device : {"cpu", "cuda"}) {
      std::vector<std::string> args = {"--fasta",  dir.str("r.fa"),
                                       "--device", device,
                                       "--out",    dir.str(method + "_" + device + ".npz")};
      args.insert(args.end(), extra.begin(), extra.end());
      const CliResult result = run(explain(dir, method, args));
      REQUIRE_MESSAGE(result.status == 0, result.err);
      if (device == "cuda") CHECK(result.out.find(" on cuda") != std::string::npos);
      scores.push_back(floats(io::read_npz(dir.path() / (method + "_" + device + ".npz"))[0]));
    }
    REQUIRE(scores[0].size() == scores[1].size());
    double largest = 0.0, worst = 0.0;
    for (size_t i = 0; i < scores[0].size(); ++i) {
      largest = std::max(largest, static_cast<double>(std::abs(scores[0][i])));
      worst = std::max(worst, static_cast<double>(std::abs(scores[0][i] - scores[1][i])));
    }
    CHECK(largest > 0.0);
    CHECK(worst <= 1e-4 * std::max(1.0, largest));
  }
}

TEST_CASE("explain: gradient and input x gradient, and a bigWig of tiles") {
  TempDir dir("explain-gradient");
  prepare(dir);
  REQUIRE(run(explain(dir, "gradient", {"--fasta", dir.str("r.fa"), "--out", dir.str("g.npz")}))
              .status == 0);
  const CliResult ixg =
      run(explain(dir, "input_x_gradient",
                  {"--fasta", dir.str("g.fa"), "--tile", "chr1:1-700", "--step", "50", "--out",
                   dir.str("ixg.bw"), "--out", dir.str("ixg.tsv")}));
  REQUIRE_MESSAGE(ixg.status == 0, ixg.err);
  // Each window gives its central 50 bases: the bigWig holds the TSV's contributions there.
  data::BigWigReader bigwig(dir.str("ixg.bw"));
  std::vector<float> values(700);
  bigwig.read("chr1", 0, 700, values.data());
  std::istringstream rows(read_text(dir.path() / "ixg.tsv"));
  std::string line;
  std::getline(rows, line);
  int64_t checked = 0;
  while (std::getline(rows, line)) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, '\t')) f.push_back(cell);
    const int64_t start = std::stoll(f[2]);
    const int64_t window = std::stoll(f[0].substr(f[0].find(':') + 1));
    // The window's central 50 bases of 100.
    if (start >= window + 25 && start < window + 75) {
      CHECK(values[static_cast<size_t>(start)] == doctest::Approx(std::stof(f[9])).epsilon(1e-4));
      ++checked;
    }
  }
  CHECK(checked > 500);
}

TEST_CASE("explain: bad input is refused naming the flag, with nothing written") {
  TempDir dir("explain-errors");
  prepare(dir);
  const auto refused = [&](std::vector<std::string> args, const std::string& message) {
    const CliResult result = run(args);
    CHECK(result.status != 0);
    INFO(result.err);
    CHECK(result.err.find(message) != std::string::npos);
    CHECK_FALSE(fs::exists(dir.path() / "out.npz"));
  };
  const std::string out = dir.str("out.npz");
  // A sequence of the wrong length (and --center, as predict has).
  write_text(dir.path() / "long.fa", ">long\n" + bases(120, 7) + "\n");
  refused(explain(dir, "ism", {"--fasta", dir.str("long.fa"), "--out", out}),
          "record 'long' has 120 bases but the model takes 100");
  const CliResult centred =
      run(explain(dir, "ism", {"--fasta", dir.str("long.fa"), "--center", "--out", out}));
  CHECK_MESSAGE(centred.status == 0, centred.err);
  fs::remove(out);
  // An unknown output or task, naming the closest.
  refused(
      explain(dir, "gradient", {"--fasta", dir.str("r.fa"), "--output", "outptu", "--out", out}),
      "no output 'outptu'; did you mean 'output'?");
  refused(explain(dir, "gradient", {"--fasta", dir.str("r.fa"), "--task", "tsak_0", "--out", out}),
          "no task 'tsak_0'; did you mean 'task_0'?");
  refused(explain(dir, "gradient", {"--fasta", dir.str("r.fa"), "--task", "3", "--out", out}),
          "no task '3'");
  // Zero references.
  refused(explain(dir, "deeplift_shap",
                  {"--fasta", dir.str("r.fa"), "--references", "0", "--out", out}),
          "--references: must be in [1, 100000], got 0");
  // Flags of another method, an unknown method or extension, a bad range.
  refused(
      explain(dir, "gradient", {"--fasta", dir.str("r.fa"), "--positions", "1-5", "--out", out}),
      "--positions: goes with --method ism");
  refused(explain(dir, "lime", {"--fasta", dir.str("r.fa"), "--out", out}),
          "--method: lime not in {ism,deeplift_shap,gradient,input_x_gradient}");
  refused(explain(dir, "ism", {"--fasta", dir.str("r.fa"), "--out", dir.str("out.csv")}),
          "the format follows the extension");
  refused(explain(dir, "ism", {"--fasta", dir.str("r.fa"), "--positions", "90-120", "--out", out}),
          "--positions: '90-120' is not a range START-END of positions 1 to 100");
  // A bigWig of windows that are not sorted fails, and the .npz beside it is not published.
  write_text(dir.path() / "unsorted.bed", "chr1\t300\t400\nchr1\t100\t200\n");
  refused(explain(dir, "gradient",
                  {"--fasta", dir.str("g.fa"), "--intervals", dir.str("unsorted.bed"), "--out", out,
                   "--out", dir.str("out.bw")}),
          "a bigWig needs sorted windows");
  CHECK_FALSE(fs::exists(dir.path() / "out.bw"));
}

TEST_CASE("explain: a logo's SVG parses and renders (rsvg-convert)") {
  if (std::system("command -v rsvg-convert > /dev/null 2>&1") != 0) {
    STRAND_SKIP("rsvg-convert is not installed (apt-get install librsvg2-bin)");
  }
  TempDir dir("explain-logo");
  Tensor scores = Tensor::zeros({4, 30});
  for (int64_t l = 0; l < 30; ++l) {
    scores.data<float>()[(l % 4) * 30 + l] =
        (l % 3 == 0 ? -0.5F : 1.0F) * static_cast<float>(l % 7);
  }
  explain::LogoOptions options;
  options.title = "a & <b>";
  write_text(dir.path() / "logo.svg", explain::logo_svg(scores, options));
  const std::string command = "rsvg-convert " + dir.str("logo.svg") + " -o " + dir.str("logo.png");
  REQUIRE(std::system(command.c_str()) == 0);
  const std::string png = read_text(dir.path() / "logo.png");
  REQUIRE(png.size() > 1000);
  CHECK(png.compare(1, 3, "PNG") == 0);
}

}  // namespace
}  // namespace strand::cli
