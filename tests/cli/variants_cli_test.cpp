// `strand variants`: TSV, VCF and BCF outputs (read back with bcftools query), BCF and TSV
// inputs, and bad input (a malformed line, no header, a missing contig, a REF mismatch, an
// unsorted VCF for an indexed output) refused with the file and line, nothing written.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "cli_test_support.h"
#include "cuda/cuda_test_support.h"
#include "io/npz.h"
#include "support/strand_executable.h"
#include "tensor/cuda_runtime.h"
#include "test_helpers.h"

namespace strand::cli {
namespace {

using testing::read_text;
using testing::run;
using testing::TempDir;
using testing::tiny_run;
using testing::with;
using testing::write_text;

// chr1, chr2 of 3000 pseudo-random bases in dir/g.fa, and a tiny trained run (100 bp windows,
// one task, task_0) in dir/run.
struct VariantScene {
  TempDir dir{"variants"};
  std::map<std::string, std::string> contigs;
  VariantScene() {
    std::string fasta;
    uint64_t state = 26;
    for (const char* chrom : {"chr1", "chr2"}) {
      std::string bases;
      for (int i = 0; i < 3000; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        bases += "ACGT"[(state >> 33) % 4];
      }
      contigs[chrom] = bases;
      fasta += fmt::format(">{}\n", chrom);
      for (size_t i = 0; i < bases.size(); i += 60) fasta += bases.substr(i, 60) + "\n";
    }
    write_text(dir.path() / "g.fa", fasta);
    REQUIRE(run(tiny_run(dir, "run", 1)).status == 0);
  }
  char base(const std::string& chrom, int64_t position) const {
    return contigs.at(chrom)[static_cast<size_t>(position - 1)];
  }
  // A SNV line at `position` whose REF matches the genome.
  std::string snv(const std::string& chrom, int64_t position, const std::string& id = ".") const {
    const char ref = base(chrom, position);
    return fmt::format("{}\t{}\t{}\t{}\t{}\t.\t.\t.\n", chrom, position, id, ref,
                       ref == 'A' ? 'G' : 'A');
  }
  std::string vcf(const std::string& name, const std::string& body) const {
    write_text(dir.path() / name,
               "##fileformat=VCFv4.2\n##contig=<ID=chr1,length=3000>\n"
               "##contig=<ID=chr2,length=3000>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n" +
                   body);
    return dir.str(name);
  }
  std::vector<std::string> args(const std::string& vcf, const std::string& out) const {
    return {"variants", "--model",    dir.str("run"), "--fasta", dir.str("g.fa"), "--vcf", vcf,
            "--out",    dir.str(out), "--threads",    "1"};
  }
  // The names in the directory other than the inputs (g.fa*, run, the VCFs).
  std::vector<std::string> outputs() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with("g.fa") || name == "run" || name.starts_with("in")) continue;
      names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

bool have(const char* program) {
  return std::system(fmt::format("command -v {} > /dev/null 2>&1", program).c_str()) == 0;
}

std::string shell_output(const std::string& command) {
  std::string text;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
  CHECK(::pclose(pipe) == 0);
  return text;
}

// The TSV's rows as "id alt task_0.diff" lines.
std::string tsv_diffs(const std::string& path) {
  std::istringstream in(read_text(path));
  std::string line, text;
  std::getline(in, line);
  CHECK(line == "id\tchrom\tpos\tref\talt\ttask_0.ref\ttask_0.alt\ttask_0.diff");
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream row(line);
    std::string field;
    while (std::getline(row, field, '\t')) fields.push_back(field);
    REQUIRE(fields.size() == 8);
    text += fields[0] + "\t" + fields[4] + "\t" + fields[7] + "\n";
  }
  return text;
}

TEST_CASE("variants: a TSV of one row per ALT, and the summary of what was skipped") {
  VariantScene scene;
  const char r = scene.base("chr1", 500);
  std::string body = scene.snv("chr1", 200, "rs1");
  body += fmt::format("chr1\t500\trs2\t{}\tA,C,<DEL>,*\t.\t.\t.\n", r);
  body += scene.snv("chr2", 2990, "rs3");
  const auto result = run(scene.args(scene.vcf("in.vcf", body), "scores.tsv"));
  REQUIRE(result.status == 0);
  CHECK(result.out.find("variants: 3 record(s), 6 ALT allele(s): 4 scored, 2 skipped (symbolic 1, "
                        "spanning_deletion 1), 1 padded with N at a contig end") !=
        std::string::npos);
  CHECK(result.out.find("variants/s") != std::string::npos);
  const std::string diffs = tsv_diffs(scene.dir.str("scores.tsv"));
  CHECK(testing::count_lines(diffs) == 6);
  CHECK(diffs.find("rs2\t<DEL>\tNA\n") != std::string::npos);
  CHECK(diffs.find("rs2\t*\tNA\n") != std::string::npos);
  CHECK(diffs.starts_with("rs1\t"));
  CHECK(scene.outputs() == std::vector<std::string>{"scores.tsv"});
}

TEST_CASE("variants: the bgzipped VCF output reads back with bcftools query") {
  if (!have("bcftools")) STRAND_SKIP("bcftools (Debian bcftools) is not installed");
  VariantScene scene;
  std::string body = scene.snv("chr1", 200, "rs1");
  body += fmt::format("chr1\t500\trs2\t{}\tA,C,G,<DEL>\t.\t.\t.\n", scene.base("chr1", 500));
  body += scene.snv("chr2", 1500, "rs3");
  const std::string vcf = scene.vcf("in.vcf", body);
  REQUIRE(run(scene.args(vcf, "scores.tsv")).status == 0);
  const auto result = run(with(scene.args(vcf, "scores.vcf.gz"), {"--rc-average"}));
  REQUIRE(result.status == 0);
  CHECK(result.out.find("wrote " + scene.dir.str("scores.vcf.gz") + " and its .tbi") !=
        std::string::npos);
  CHECK(scene.outputs() ==
        std::vector<std::string>{"scores.tsv", "scores.vcf.gz", "scores.vcf.gz.tbi"});
  const std::string header = shell_output("bcftools view -h " + scene.dir.str("scores.vcf.gz"));
  CHECK(header.find("##INFO=<ID=task_0.diff,Number=A,Type=Float,Description=\"strand variants: "
                    "alt - ref prediction") != std::string::npos);
  // Indexed: a region query works.
  const std::string region =
      shell_output("bcftools query -r chr2 -f '%ID\\n' " + scene.dir.str("scores.vcf.gz"));
  CHECK(region == "rs3\n");
  // Without --rc-average the values are the TSV's, one per ALT ('.' where not scored).
  REQUIRE(run(scene.args(vcf, "plain.vcf.gz")).status == 0);
  const std::string query = shell_output("bcftools query -f '%ID\\t%ALT\\t%INFO/task_0.diff\\n' " +
                                         scene.dir.str("plain.vcf.gz"));
  const std::string tsv = tsv_diffs(scene.dir.str("scores.tsv"));
  std::istringstream lines(query);
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(lines, line)) rows.push_back(line);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].starts_with("rs1\t"));
  CHECK(rows[1].starts_with("rs2\tA,C,G,<DEL>\t"));
  CHECK(rows[1].ends_with(",."));  // <DEL>: missing
  // bcftools prints floats with 6 significant digits; compare numerically with the TSV.
  std::istringstream tsv_lines(tsv);
  std::vector<double> expected;
  while (std::getline(tsv_lines, line)) {
    const std::string value = line.substr(line.rfind('\t') + 1);
    if (value != "NA") expected.push_back(std::stod(value));
  }
  std::vector<double> got;
  for (const std::string& row : rows) {
    std::string values = row.substr(row.rfind('\t') + 1);
    std::istringstream items(values);
    std::string item;
    while (std::getline(items, item, ',')) {
      if (item != ".") got.push_back(std::stod(item));
    }
  }
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-5).scale(1e-6));
  }
}

TEST_CASE("variants: a BCF output with its index, and BCF and TSV inputs score the same") {
  if (!have("bcftools")) STRAND_SKIP("bcftools (Debian bcftools) is not installed");
  VariantScene scene;
  std::string body = scene.snv("chr1", 200, "rs1") + scene.snv("chr1", 900, "rs2");
  const std::string vcf = scene.vcf("in.vcf", body);
  REQUIRE(run(scene.args(vcf, "scores.bcf")).status == 0);
  CHECK(scene.outputs() == std::vector<std::string>{"scores.bcf", "scores.bcf.csi"});
  REQUIRE(run(scene.args(vcf, "from_vcf.tsv")).status == 0);
  REQUIRE(run(scene.args(scene.dir.str("scores.bcf"), "from_bcf.tsv")).status == 0);
  CHECK(tsv_diffs(scene.dir.str("from_bcf.tsv")) == tsv_diffs(scene.dir.str("from_vcf.tsv")));
  // chrombpnet's table of the same variants.
  std::string table;
  for (const int64_t p : {200, 900}) {
    const char ref = scene.base("chr1", p);
    table +=
        fmt::format("chr1\t{}\t{}\t{}\trs{}\n", p, ref, ref == 'A' ? 'G' : 'A', p == 200 ? 1 : 2);
  }
  write_text(scene.dir.path() / "in.tsv", table);
  REQUIRE(run(scene.args(scene.dir.str("in.tsv"), "from_tsv.tsv")).status == 0);
  CHECK(tsv_diffs(scene.dir.str("from_tsv.tsv")) == tsv_diffs(scene.dir.str("from_vcf.tsv")));
  // A TSV input has no records to write back as a VCF.
  const auto refused = run(scene.args(scene.dir.str("in.tsv"), "t.vcf.gz"));
  CHECK(refused.status == 1);
  CHECK(refused.err.find("is a TSV; write a .tsv instead") != std::string::npos);
}

TEST_CASE("variants: an unsorted VCF is refused for an indexed output, nothing written") {
  VariantScene scene;
  const std::string body =
      scene.snv("chr1", 900, "a") + scene.snv("chr1", 200, "b") + scene.snv("chr2", 100, "c");
  const std::string vcf = scene.vcf("in.vcf", body);
  for (const char* out : {"s.vcf.gz", "s.bcf"}) {
    const auto result = run(scene.args(vcf, out));
    CHECK(result.status == 1);
    CHECK(result.err.find(vcf + ":6: chr1:200 comes after chr1:900 (" + vcf + ":5)") !=
          std::string::npos);
    CHECK(result.err.find("bcftools sort") != std::string::npos);
    CHECK(scene.outputs().empty());
  }
  // Records of a contig apart from each other are unsorted too.
  const std::string split = scene.vcf(
      "in2.vcf", scene.snv("chr1", 200) + scene.snv("chr2", 100) + scene.snv("chr1", 900));
  CHECK(run(scene.args(split, "s.vcf.gz")).err.find(":7: chr1:900 comes after chr2:100") !=
        std::string::npos);
  // No index, no order needed.
  CHECK(run(scene.args(vcf, "s.vcf")).status == 0);
  CHECK(run(scene.args(vcf, "s.tsv")).status == 0);
}

TEST_CASE("variants: a malformed line after the first chunk leaves nothing written") {
  VariantScene scene;
  std::string body;
  for (int i = 0; i < 5000; ++i) body += scene.snv(i % 2 ? "chr2" : "chr1", 100 + (i / 2) % 2800);
  body += "chr1\t100\tbad\tA\n";
  const std::string vcf = scene.vcf("in.vcf", body);
  for (const char* out : {"s.tsv", "s.vcf"}) {
    const auto result = run(scene.args(vcf, out));
    CHECK(result.status == 1);
    CHECK(result.err.find(vcf + ":5005: 4 tab-separated column(s)") != std::string::npos);
    CHECK(scene.outputs().empty());
  }
}

TEST_CASE("variants: a VCF without a header is an error naming the file") {
  VariantScene scene;
  write_text(scene.dir.path() / "in.vcf", scene.snv("chr1", 100));
  auto result = run(scene.args(scene.dir.str("in.vcf"), "s.tsv"));
  CHECK(result.status == 1);
  CHECK(result.err.find("in.vcf' has no VCF header") != std::string::npos);
  CHECK(scene.outputs().empty());
}

TEST_CASE(
    "variants: ALT '.' records are skipped and counted, and a VCF output keeps them unscored") {
  // Issue 38: a monomorphic record (valid VCF) aborted the whole file.
  VariantScene scene;
  const char ref = scene.base("chr1", 300);
  const std::string dot = scene.vcf(
      "in_dot.vcf", scene.snv("chr1", 100) + fmt::format("chr1\t300\tmono\t{}\t.\t.\t.\t.\n", ref) +
                        scene.snv("chr1", 500));
  auto result = run(scene.args(dot, "s.tsv"));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("3 record(s), 2 ALT allele(s): 2 scored, 1 record(s) without an ALT "
                        "('.', monomorphic) skipped") != std::string::npos);
  const std::string table = read_text(scene.dir.path() / "s.tsv");
  CHECK(testing::count_lines(table) == 1 + 2);
  CHECK(table.find("mono") == std::string::npos);
  result = run(scene.args(dot, "s.vcf"));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  const std::string vcf = read_text(scene.dir.path() / "s.vcf");
  CHECK(vcf.find(fmt::format("chr1\t300\tmono\t{}\t.\t", ref)) != std::string::npos);
}

TEST_CASE("variants: a ##contig length that differs from the FASTA's is a warning naming it") {
  VariantScene scene;
  write_text(
      scene.dir.path() / "in.vcf",
      "##fileformat=VCFv4.2\n##contig=<ID=chr1,length=3000>\n##contig=<ID=chr2,length=4000>\n"
      "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n" +
          scene.snv("chr2", 200));
  const auto result = run(scene.args(scene.dir.str("in.vcf"), "s.tsv"));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.err.find("warning: variants file '" + scene.dir.str("in.vcf") +
                        "': its header declares contig 'chr2' with 4000 bases (##contig), but "
                        "FASTA '" +
                        scene.dir.str("g.fa") + "' has 3000 for 'chr2'") != std::string::npos);
  CHECK(result.err.find("'chr1'") == std::string::npos);
}

TEST_CASE("variants: a REF mismatch is an error listing the lines, --ref-mismatch skips or warns") {
  VariantScene scene;
  const char r = scene.base("chr1", 300);
  const std::string body =
      scene.snv("chr1", 200) + fmt::format("chr1\t300\tm\t{}\tG\t.\t.\t.\n", r == 'C' ? 'T' : 'C');
  const std::string vcf = scene.vcf("in.vcf", body);
  auto result = run(scene.args(vcf, "s.vcf.gz"));
  CHECK(result.status == 1);
  CHECK(result.err.find(fmt::format("{}:6: chr1:300 REF '{}', FASTA '{}'", vcf,
                                    r == 'C' ? 'T' : 'C', r)) != std::string::npos);
  CHECK(scene.outputs().empty());
  result = run(with(scene.args(vcf, "s.tsv"), {"--ref-mismatch", "skip"}));
  CHECK(result.status == 0);
  CHECK(result.out.find("1 skipped (ref_mismatch 1)") != std::string::npos);
  result = run(with(scene.args(vcf, "w.tsv"), {"--ref-mismatch", "warn"}));
  CHECK(result.status == 0);
  CHECK(result.err.find("warning: " + vcf + ":6: REF") != std::string::npos);
  CHECK(result.out.find("1 scored despite a REF mismatch") != std::string::npos);
}

TEST_CASE("variants: contig names without 'chr' are explained, --chrom-alias maps them") {
  VariantScene scene;
  const char r = scene.base("chr2", 400);
  const std::string vcf = scene.vcf("in.vcf", fmt::format("2\t400\t.\t{}\tA\t.\t.\t.\n", r));
  auto result = run(scene.args(vcf, "s.tsv"));
  CHECK(result.status == 1);
  CHECK(result.err.find(vcf + ":5: contig '2' is not in FASTA") != std::string::npos);
  CHECK(result.err.find("which calls it 'chr2'") != std::string::npos);
  write_text(scene.dir.path() / "in_aliases.tsv", "1\tchr1\n2\tchr2\n");
  result =
      run(with(scene.args(vcf, "s.vcf.gz"), {"--chrom-alias", scene.dir.str("in_aliases.tsv")}));
  CHECK(result.status == 0);
  CHECK(result.out.find("1 scored") != std::string::npos);
  const std::string missing = scene.vcf("in_missing.vcf", "chrM\t4\t.\tA\tG\t.\t.\t.\n");
  result = run(scene.args(missing, "m.tsv"));
  CHECK(result.err.find(missing + ":5: contig 'chrM' is not in FASTA") != std::string::npos);
}

// The fields of a TSV line.
std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream row(line);
  for (std::string field; std::getline(row, field, '\t');) fields.push_back(field);
  return fields;
}

TEST_CASE("variants: --attributions explains the strongest variants' windows beside the scores") {
  VariantScene scene;
  std::string body;
  for (const int64_t position : {200, 700, 1200, 1700, 2200}) body += scene.snv("chr1", position);
  const std::string vcf = scene.vcf("in.vcf", body);
  const auto result = run(with(scene.args(vcf, "s.tsv"), {"--attributions", "2"}));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(result.out.find("(DeepLIFT/SHAP of the 2 strongest variants)") != std::string::npos);
  CHECK(scene.outputs() ==
        std::vector<std::string>{"s.attributions.npz", "s.attributions.tsv", "s.tsv"});

  // The two rows of largest |diff|, strongest first.
  std::vector<std::pair<double, int64_t>> by_strength;
  {
    std::istringstream in(read_text(scene.dir.path() / "s.tsv"));
    std::string line;
    std::getline(in, line);
    for (int64_t row = 0; std::getline(in, line); ++row) {
      by_strength.emplace_back(std::abs(std::stod(tab_fields(line)[7])), row);
    }
  }
  std::sort(by_strength.rbegin(), by_strength.rend());
  std::istringstream listed(read_text(scene.dir.path() / "s.attributions.tsv"));
  std::string line;
  std::getline(listed, line);
  CHECK(line.starts_with("rank\trow\tid\tchrom\tpos\tref\talt\tcolumn\tstrength"));
  std::vector<int64_t> positions;
  for (int rank = 0; rank < 2; ++rank) {
    REQUIRE(std::getline(listed, line));
    const std::vector<std::string> f = tab_fields(line);
    REQUIRE(f.size() == 13);
    CHECK(std::stoll(f[1]) == by_strength[static_cast<size_t>(rank)].second);
    CHECK(f[7] == "task_0.diff");
    CHECK(std::stod(f[8]) ==
          doctest::Approx(by_strength[static_cast<size_t>(rank)].first).epsilon(1e-4));
    // Convergence of DeepLIFT/SHAP on both windows.
    CHECK(std::stod(f[11]) < 1e-3);
    CHECK(std::stod(f[12]) < 1e-3);
    positions.push_back(std::stoll(f[4]));
  }
  CHECK_FALSE(std::getline(listed, line));

  // The windows: 100 genome bases with the variant at position 50, the alt base there.
  const auto arrays = io::read_npz(scene.dir.path() / "s.attributions.npz");
  std::map<std::string, const io::NpyArray*> named;
  for (const io::NpyArray& array : arrays) named[array.name] = &array;
  for (const char* name : {"ref_onehot", "alt_onehot", "ref_hypothetical", "alt_hypothetical"}) {
    REQUIRE(named.count(name) == 1);
    CHECK(named[name]->shape == Shape{2, 4, 100});
  }
  CHECK(named["ref_onehot"]->descr == "<f4");
  CHECK(named["ref_hypothetical"]->descr == "<f4");
  const auto base_at = [&](const char* name, int64_t k, int64_t l) {
    for (int64_t c = 0; c < 4; ++c) {
      float value = 0.0F;
      std::memcpy(&value, named[name]->bytes.data() + ((k * 4 + c) * 100 + l) * 4, 4);
      if (value == 1.0F) return "ACGT"[c];
    }
    return 'N';
  };
  for (int64_t k = 0; k < 2; ++k) {
    const int64_t p = positions[static_cast<size_t>(k)];
    for (int64_t l = 0; l < 100; ++l) {
      CHECK(base_at("ref_onehot", k, l) == scene.base("chr1", p - 50 + l));
    }
    const char ref = scene.base("chr1", p);
    CHECK(base_at("alt_onehot", k, 50) == (ref == 'A' ? 'G' : 'A'));
  }

  // --out - needs a place for the attributions; nothing is written without it.
  std::vector<std::string> to_stdout = scene.args(vcf, "t.tsv");
  to_stdout[8] = "-";
  const auto refused = run(with(to_stdout, {"--attributions", "1"}));
  CHECK(refused.status == 1);
  CHECK(refused.err.find("--attributions: give --attributions-out FILE.npz when --out is -") !=
        std::string::npos);
}

TEST_CASE("variants: --task picks columns, --null-shuffles adds p-values, bad flags refused") {
  VariantScene scene;
  const std::string vcf = scene.vcf("in.vcf", scene.snv("chr1", 200) + scene.snv("chr1", 700));
  auto result = run(with(scene.args(vcf, "s.tsv"), {"--task", "0", "--null-shuffles", "5"}));
  REQUIRE(result.status == 0);
  CHECK(result.out.find("10 allele pairs in shuffled backgrounds") != std::string::npos);
  const std::string text = read_text(scene.dir.path() / "s.tsv");
  CHECK(
      text.starts_with("id\tchrom\tpos\tref\talt\ttask_0.ref\ttask_0.alt\ttask_0.diff\t"
                       "task_0.diff_pval\n"));
  result = run(with(scene.args(vcf, "t.tsv"), {"--task", "CTCF"}));
  CHECK(result.status == 1);
  CHECK(result.err.find("--task: 'CTCF' is neither a task name nor an index") != std::string::npos);
  result = run(with(scene.args(vcf, "t.tsv"), {"--output", "profile"}));
  CHECK(result.err.find("--output: the model has no output 'profile'") != std::string::npos);
  result = run(with(scene.args(vcf, "t.tsv"), {"--ref-mismatch", "ignore"}));
  CHECK(result.status == 2);
}

#ifdef STRAND_EXE
TEST_CASE("variants: SIGINT stops a strand variants process cleanly, exit 130, nothing written") {
  VariantScene scene;
  // Far more variants than the run gets through before the signal.
  std::string body;
  for (int i = 0; i < 300000; ++i) body += scene.snv(i % 2 ? "chr2" : "chr1", 100 + (i / 2) % 2800);
  const std::string vcf = scene.vcf("in.vcf", body);
  const std::filesystem::path program = strand::test::strand_executable();
  REQUIRE_MESSAGE(::access(program.c_str(), X_OK) == 0,
                  "no strand executable at '" << program.string()
                                              << "' (set STRAND_EXE to the program to test)");
  std::vector<std::string> args = scene.args(vcf, "s.tsv");
  args.insert(args.begin(), program.string());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = scene.dir.str("in.log");
  const pid_t child = ::fork();
  if (child == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  REQUIRE(child > 0);
  // The first line says scoring has started (the handler is in place).
  bool started = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  int status = 0;
  while (!started && std::chrono::steady_clock::now() < give_up) {
    started = read_text(log).find(" with ") != std::string::npos;
    if (!started && ::waitpid(child, &status, WNOHANG) == child) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (started) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(child, SIGINT);
    REQUIRE(::waitpid(child, &status, 0) == child);
  }
  INFO(read_text(log));
  REQUIRE(started);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(read_text(log).find("variants: interrupted by SIGINT") != std::string::npos);
  // Issue 38: the handler printed the trainer's "saving checkpoints/last.safetensors".
  CHECK(read_text(log).find("strand: stopping at the next batch; nothing is written") !=
        std::string::npos);
  CHECK(read_text(log).find("saving checkpoints") == std::string::npos);
  CHECK(scene.outputs().empty());  // no output, index or temporary file
}
#endif

TEST_CASE("variants: --device cuda is refused, with the reason, where no GPU is usable") {
  if (cuda_usable()) STRAND_SKIP("a CUDA device is usable here: the GPU comparison runs instead");
  VariantScene scene;
  const std::string vcf = scene.vcf("in.vcf", scene.snv("chr1", 500));
  const auto result = run(with(scene.args(vcf, "scores.tsv"), {"--device", "cuda"}));
  CHECK(result.status != 0);
  CHECK(result.err.find("error: --device: 'cuda' requested, but " + cuda_unusable_reason()) == 0);
  CHECK(scene.outputs().empty());
}

TEST_CASE("variants: on the GPU, the same scores as the CPU's") {
  STRAND_REQUIRE_GPU();
  VariantScene scene;
  const std::string vcf =
      scene.vcf("in.vcf", scene.snv("chr1", 500) + scene.snv("chr1", 1200) +
                              scene.snv("chr2", 2500) + "chr2\t1000\t.\tA\tAT,G\t.\t.\t.\n");
  REQUIRE(run(scene.args(vcf, "cpu.tsv")).status == 0);
  const auto result = run(with(scene.args(vcf, "gpu.tsv"), {"--device", "cuda"}));
  REQUIRE_MESSAGE(result.status == 0, result.err);
  CHECK(testing::tables_agree(read_text(scene.dir.path() / "cpu.tsv"),
                              read_text(scene.dir.path() / "gpu.tsv"), 1e-4));
}

}  // namespace
}  // namespace strand::cli
