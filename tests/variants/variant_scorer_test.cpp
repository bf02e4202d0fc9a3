// The scoring pipeline on a simulated genome with planted motifs and a model that scans for the
// motif: a motif-breaking variant scores strongly negative and a far one near zero; rows keep
// the input order with one row per ALT; skips are counted per reason; bad input stops with
// file:line and nothing committed; reverse-complement averaging, profiles, null p-values and
// a stop request.
#include <doctest/doctest.h>

#include <cmath>
#include <csignal>

#include "core/stop_signal.h"
#include "data/data_error.h"
#include "data/encoding.h"
#include "data/warnings.h"
#include "train/code_inference.h"
#include "variants/allele_windows.h"
#include "variants/pair_forward.h"
#include "variants/variant_scorer.h"
#include "variants_test_support.h"

namespace strand::variants {
namespace {

using testing::MemorySink;
using testing::TempDir;
using testing::vcf_text;
using testing::write_fasta;
using testing::write_text;

constexpr int64_t kWindow = 100;

// chr1 and chr2 of 2000 bases with TAL1_known4 (10 bases) at chr1:500, chr1:1200 and chr2:800
// (0-based starts), in dir/genome.fa.
struct Scene {
  TempDir dir{"scorer"};
  testing::MotifGenome genome =
      testing::motif_genome("TAL1_known4", 2, 2000, {{0, 500}, {0, 1200}, {1, 800}});
  std::shared_ptr<Sequential> model = testing::motif_scanner(genome.motif);
  Scene() { write_fasta(dir.str("genome.fa"), genome.contigs); }
  std::string fasta() const { return dir.str("genome.fa"); }
  // The genome's base at 1-based `position` of contig `c`.
  char base(int c, int64_t position) const {
    return genome.contigs[static_cast<size_t>(c)].second[static_cast<size_t>(position - 1)];
  }
  std::string vcf(const std::string& name, const std::string& body) const {
    write_text(dir.str(name), vcf_text(body, {{"chr1", 2000}, {"chr2", 2000}}));
    return dir.str(name);
  }
};

std::string snv(const std::string& id, const std::string& chrom, int64_t position, char ref,
                char alt) {
  return fmt::format("{}\t{}\t{}\t{}\t{}\t.\t.\t.\n", chrom, position, id, ref, alt);
}

TEST_CASE("variant scorer: a motif-breaking variant scores strongly negative, a far one ~0") {
  Scene scene;
  // Position 2 of the motif (1-based 2 within it) is C with probability 1.
  const int64_t motif_base = 500 + 2;  // 0-based 501 -> 1-based 502
  const char broken = testing::breaking_base(scene.genome.motif, 1);
  std::string body = snv("break", "chr1", motif_base, scene.base(0, motif_base), broken);
  body += snv("far", "chr1", 1700, scene.base(0, 1700), scene.base(0, 1700) == 'A' ? 'C' : 'A');
  body +=
      snv("break2", "chr2", 808, scene.base(1, 808), testing::breaking_base(scene.genome.motif, 7));
  MemorySink sink;
  const VariantSummary summary = score_variants(
      *scene.model, scene.vcf("v.vcf", body), scene.fasta(), sink, testing::value_options(kWindow));
  REQUIRE(sink.committed);
  REQUIRE(sink.rows.size() == 3);
  CHECK(summary.scored == 3);
  const float motif_ref = sink.value(0, "motif.ref");
  const float break_diff = sink.value(0, "motif.diff");
  const float far_diff = sink.value(1, "motif.diff");
  MESSAGE("motif window " << motif_ref << ", break diff " << break_diff << ", far diff " << far_diff
                          << ", far ref " << sink.value(1, "motif.ref"));
  CHECK(motif_ref > 10.0f);  // the consensus: about 13 bits of log-odds
  CHECK(break_diff < -5.0f);
  CHECK(sink.value(2, "motif.diff") < -5.0f);
  CHECK(std::abs(far_diff) < 0.1f * std::abs(break_diff));
  CHECK(sink.value(1, "motif.ref") < motif_ref - 5.0f);
  CHECK(sink.value(0, "motif.alt") == doctest::Approx(motif_ref + break_diff));
}

TEST_CASE("variant scorer: one row per ALT in input order, skips counted by reason") {
  Scene scene;
  const char r1 = scene.base(0, 300), r2 = scene.base(0, 10), r3 = scene.base(1, 1990);
  std::string body;
  body += fmt::format("chr1\t300\tmulti\t{}\tA,C,<DEL>,*,G,T\t.\t.\t.\n", r1);
  body += fmt::format("chr1\t10\tstart\t{}\t{}\t.\t.\t.\n", r2, r2 == 'A' ? 'C' : 'A');
  body += fmt::format("chr2\t1990\tend\t{}\t{}{}\t.\t.\t.\n", r3, r3, "ACGT");
  body += fmt::format("chr2\t500\tlong\t{}\t{}{}\t.\t.\t.\n", scene.base(1, 500),
                      scene.base(1, 500), std::string(50, 'A'));
  body += fmt::format("chr2\t600\tbreakend\t{}\t{}[chr1:5[\t.\t.\t.\n", scene.base(1, 600),
                      scene.base(1, 600));
  const std::string vcf = scene.vcf("v.vcf", body);
  VariantScoringOptions options = testing::value_options(kWindow);
  MemorySink sink;
  VariantSummary summary = score_variants(*scene.model, vcf, scene.fasta(), sink, options);
  REQUIRE(sink.rows.size() == 10);
  CHECK(summary.records == 5);
  CHECK(summary.variants == 10);
  CHECK(summary.scored == 6);  // A, C, G, T; start; end (padded)
  CHECK(summary.padded == 2);
  CHECK(summary.skipped[static_cast<size_t>(SkipReason::kSymbolic)] == 2);
  CHECK(summary.skipped[static_cast<size_t>(SkipReason::kSpanningDeletion)] == 1);
  CHECK(summary.skipped[static_cast<size_t>(SkipReason::kTooLong)] == 1);
  const std::vector<std::string> alts = {"A", "C", "<DEL>", "*", "G", "T"};
  for (size_t i = 0; i < alts.size(); ++i) {
    CHECK(sink.rows[i].id == "multi");
    CHECK(sink.rows[i].alt == alts[i]);
    CHECK(std::isnan(sink.rows[i].values[0]) == (i == 2 || i == 3));
  }
  CHECK(sink.rows[6].id == "start");
  CHECK(std::isnan(sink.rows[8].values[2]));  // too long
  // The same ALT scores the same whatever the record holds besides it.
  const float a_ref = sink.value(0, "motif.ref");
  CHECK(sink.value(1, "motif.ref") == a_ref);

  options.contig_end = ContigEndPolicy::kSkip;
  MemorySink skipping;
  summary = score_variants(*scene.model, vcf, scene.fasta(), skipping, options);
  CHECK(summary.scored == 4);
  CHECK(summary.skipped[static_cast<size_t>(SkipReason::kContigEnd)] == 2);
  CHECK(std::isnan(skipping.value(6, "motif.diff")));
}

TEST_CASE("variant scorer: a REF mismatch stops the run listing the first ones with lines") {
  Scene scene;
  const char r = scene.base(0, 300);
  const char wrong = r == 'A' ? 'C' : 'A';
  std::string body = snv("ok", "chr1", 300, r, 'G');
  body += snv("bad1", "chr1", 400, scene.base(0, 400) == 'A' ? 'C' : 'A', 'G');
  body += snv("ok2", "chr1", 450, scene.base(0, 450), 'G');
  body += snv("bad2", "chr2", 700, scene.base(1, 700) == 'T' ? 'G' : 'T', 'C');
  const std::string vcf = scene.vcf("v.vcf", body);
  MemorySink sink;
  try {
    score_variants(*scene.model, vcf, scene.fasta(), sink, testing::value_options(kWindow));
    FAIL("no error");
  } catch (const data::DataError& error) {
    const std::string message = error.what();
    CHECK(message.find("REF differs from FASTA") != std::string::npos);
    CHECK(message.find("v.vcf:6: chr1:400 REF") != std::string::npos);
    CHECK(message.find("v.vcf:8: chr2:700 REF") != std::string::npos);
    CHECK(message.find("at 2 variant(s)") != std::string::npos);
    CHECK(message.find("--ref-mismatch skip") != std::string::npos);
  }
  CHECK_FALSE(sink.committed);
  CHECK(sink.rows.empty());

  VariantScoringOptions options = testing::value_options(kWindow);
  options.listed_mismatches = 1;  // stops at the first
  CHECK_THROWS_WITH_AS(score_variants(*scene.model, vcf, scene.fasta(), sink, options),
                       doctest::Contains("the first ones listed"), data::DataError);
  options.ref_mismatch = RefMismatchPolicy::kSkip;
  MemorySink skipping;
  VariantSummary summary = score_variants(*scene.model, vcf, scene.fasta(), skipping, options);
  CHECK(summary.skipped[static_cast<size_t>(SkipReason::kRefMismatch)] == 2);
  CHECK(std::isnan(skipping.value(1, "motif.diff")));
  options.ref_mismatch = RefMismatchPolicy::kWarn;
  std::vector<std::string> warnings;
  const data::ScopedWarningHandler handler(
      [&warnings](std::string_view message) { warnings.emplace_back(message); });
  MemorySink warned;
  summary = score_variants(*scene.model, vcf, scene.fasta(), warned, options);
  CHECK(summary.scored == 4);
  CHECK(summary.ref_mismatches_scored == 2);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("v.vcf:6: REF") != std::string::npos);
  (void)wrong;
}

TEST_CASE("variant scorer: a contig missing from the FASTA is an error naming the line") {
  Scene scene;
  std::string body = snv("a", "chr1", 300, scene.base(0, 300), 'G');
  body += "chr7\t20\tb\tA\tG\t.\t.\t.\n";
  MemorySink sink;
  CHECK_THROWS_WITH_AS(score_variants(*scene.model, scene.vcf("v.vcf", body), scene.fasta(), sink,
                                      testing::value_options(kWindow)),
                       doctest::Contains("v.vcf:6: contig 'chr7' is not in FASTA"),
                       data::DataError);
  CHECK_FALSE(sink.committed);
  // "1" for the FASTA's "chr1": explained, then fixed by an alias.
  const std::string renamed =
      scene.vcf("renamed.vcf", fmt::format("1\t300\ta\t{}\tG\t.\t.\t.\n", scene.base(0, 300)));
  CHECK_THROWS_WITH_AS(
      score_variants(*scene.model, renamed, scene.fasta(), sink, testing::value_options(kWindow)),
      doctest::Contains(("renamed.vcf:5: contig '1' is not in FASTA '" + scene.fasta() +
                         "', which calls it 'chr1'")
                            .c_str()),
      data::DataError);
  VariantScoringOptions options = testing::value_options(kWindow);
  options.contig_aliases = {{"1", "chr1"}};
  MemorySink aliased;
  CHECK(score_variants(*scene.model, renamed, scene.fasta(), aliased, options).scored == 1);
}

TEST_CASE("variant scorer: --rc-average is the mean of the strands' predictions") {
  Scene scene;
  const std::string body = snv("break", "chr1", 502, scene.base(0, 502), 'T');
  const std::string vcf = scene.vcf("v.vcf", body);
  VariantScoringOptions options = testing::value_options(kWindow);
  options.rc_average = true;
  MemorySink sink;
  score_variants(*scene.model, vcf, scene.fasta(), sink, options);
  // The same by hand: the ref window, forward and reverse complemented.
  const data::FastaReader fasta(scene.fasta());
  const AlleleSource source = allele_source(502, kWindow, std::string(1, scene.base(0, 502)), "T");
  Tensor codes = Tensor::empty({1, kWindow}, DType::kUInt8);
  fasta.fetch_codes("chr1", source.start, source.start + kWindow, codes.data<uint8_t>());
  const std::vector<train::OutputRequest> request = {{0, true}};
  const float forward = train::forward_codes(*scene.model, codes, request)[0].data<float>()[0];
  const float reverse =
      train::forward_codes(*scene.model, reverse_complement_rows(codes), request)[0]
          .data<float>()[0];
  CHECK(sink.value(0, "motif.ref") == doctest::Approx(0.5 * (forward + reverse)).epsilon(1e-6));
}

TEST_CASE("variant scorer: a profile output scores the Jensen-Shannon distance per track") {
  Scene scene;
  // Two tracks of per-position logits: Conv1D(4 -> 2, k = 5) over the window.
  auto model = std::make_shared<Sequential>();
  model->add(Conv1D(4, 2, 5));
  const std::string vcf =
      scene.vcf("v.vcf", fmt::format("chr1\t300\ts\t{0}\t{0},{1}\t.\t.\t.\n", scene.base(0, 300),
                                     scene.base(0, 300) == 'A' ? 'G' : 'A'));
  VariantScoringOptions options = testing::value_options(kWindow);
  options.outputs[0].kind = OutputKind::kProfile;
  options.outputs[0].task_names = {"plus", "minus"};
  options.outputs[0].reverse_tracks = {1, 0};
  MemorySink sink;
  score_variants(*model, vcf, scene.fasta(), sink, options);
  REQUIRE(sink.columns().size() == 2);
  CHECK(sink.columns()[0].name == "plus.jsd");
  CHECK(sink.value(0, "plus.jsd") == 0.0f);  // ALT = REF: the same window
  const float jsd = sink.value(1, "minus.jsd");
  CHECK(jsd > 0.0f);
  CHECK(jsd < 1.0f);
  // By hand: softmax of each track's logits for the ref and alt windows.
  const data::FastaReader fasta(scene.fasta());
  const char alt = scene.base(0, 300) == 'A' ? 'G' : 'A';
  const AlleleSource source = allele_source(300, kWindow, "A", "A");
  std::vector<uint8_t> genome(kWindow), ref(kWindow), alt_window(kWindow);
  fasta.fetch_codes("chr1", source.start, source.start + kWindow, genome.data());
  build_allele_windows(genome.data(), kWindow, std::string(1, scene.base(0, 300)),
                       std::string(1, alt), ref.data(), alt_window.data());
  const std::vector<train::OutputRequest> request = {{0, false}};
  const Tensor r = train::forward_codes(*model, Tensor::from_vector(ref, {1, kWindow}), request)[0];
  const Tensor a =
      train::forward_codes(*model, Tensor::from_vector(alt_window, {1, kWindow}), request)[0];
  const int64_t positions = r.size(2);
  CHECK(jsd == doctest::Approx(jensen_shannon_distance(a.data<float>() + positions,
                                                       r.data<float>() + positions, positions))
                   .epsilon(1e-6));
  // With reverse-complement averaging the strands' tracks swap; still a distance in [0, 1].
  options.rc_average = true;
  MemorySink averaged;
  score_variants(*model, vcf, scene.fasta(), averaged, options);
  CHECK(averaged.value(0, "plus.jsd") == 0.0f);
  CHECK(averaged.value(1, "plus.jsd") > 0.0f);
  CHECK(averaged.value(1, "plus.jsd") != sink.value(1, "plus.jsd"));
}

TEST_CASE("variant scorer: null shuffles give p-values: the motif break is significant") {
  Scene scene;
  std::string body =
      snv("break", "chr1", 502, scene.base(0, 502), testing::breaking_base(scene.genome.motif, 1));
  body += snv("far", "chr1", 1700, scene.base(0, 1700), scene.base(0, 1700) == 'A' ? 'C' : 'A');
  body += snv("far2", "chr2", 300, scene.base(1, 300), scene.base(1, 300) == 'G' ? 'T' : 'G');
  body += snv("break2", "chr1", 1206, scene.base(0, 1206),
              testing::breaking_base(scene.genome.motif, 5));
  VariantScoringOptions options = testing::value_options(kWindow);
  options.null_shuffles = 25;
  MemorySink sink;
  const VariantSummary summary =
      score_variants(*scene.model, scene.vcf("v.vcf", body), scene.fasta(), sink, options);
  CHECK(summary.null_pairs == 4 * 25);
  REQUIRE(sink.columns().size() == 4);
  CHECK(sink.columns()[3].name == "motif.diff_pval");
  CHECK(sink.columns()[3].p_value);
  for (size_t row = 0; row < 4; ++row) {
    const float p = sink.value(row, "motif.diff_pval");
    CHECK(p > 0.0f);
    CHECK(p <= 1.0f);
  }
  MESSAGE("p break " << sink.value(0, "motif.diff_pval") << ", far "
                     << sink.value(1, "motif.diff_pval"));
  CHECK(sink.value(0, "motif.diff_pval") < 0.05f);
  CHECK(sink.value(3, "motif.diff_pval") < 0.05f);
  CHECK(sink.value(1, "motif.diff_pval") > 0.2f);
  // The same seed gives the same null.
  MemorySink again;
  score_variants(*scene.model, scene.dir.str("v.vcf"), scene.fasta(), again, options);
  CHECK(again.value(1, "motif.diff_pval") == sink.value(1, "motif.diff_pval"));
}

TEST_CASE("variant scorer: a stop request ends the run at the next batch, nothing committed") {
  Scene scene;
  std::string body;
  for (int64_t p = 100; p < 1900; p += 50) body += snv("v", "chr1", p, scene.base(0, p), 'N');
  VariantScoringOptions options = testing::value_options(kWindow);
  options.chunk_variants = 4;
  options.progress = [](const VariantSummary&) { request_stop(SIGINT); };
  MemorySink sink;
  clear_stop_request();
  const VariantSummary summary =
      score_variants(*scene.model, scene.vcf("v.vcf", body), scene.fasta(), sink, options);
  clear_stop_request();
  CHECK(summary.stop_signal == SIGINT);
  CHECK_FALSE(sink.committed);
  CHECK(summary.variants < 36);
}

}  // namespace
}  // namespace strand::variants
