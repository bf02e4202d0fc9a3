// DragoNN's sequence-level simulations: motif counts per sequence, central localization, one
// task per motif with labels matching what was planted, heterodimer spacing of positives vs
// negatives, differential motif sets, splits, determinism, and the records files they write.
#include "data/simulation/sequence_simulations.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>

#include "data/fasta/fasta_reader.h"
#include "data/simulation/records_dataset_writer.h"
#include "data/sources/record_source.h"
#include "support/test_paths.h"

using namespace strand::data;

namespace {

const MotifLibrary& library() {
  static const MotifLibrary& lib = MotifLibrary::builtin();
  return lib;
}

const Motif& motif(const std::string& name) { return library().get(name); }

SequenceSimulationConfig config(std::uint64_t seed, std::size_t length = 200) {
  SequenceSimulationConfig c;
  c.seq_length = length;
  c.seed = seed;
  return c;
}

// Whether the codes at `e` are an instance of its motif: the certain positions (probability 1
// in the PWM) show their base, read on the embedding's strand.
bool holds_instance(const SequenceDataset& ds, std::size_t i, const Embedding& e) {
  const Motif& m = motif(ds.motif_names[e.motif]);
  const std::uint8_t* seq = ds.sequence(i) + e.start;
  std::size_t certain = 0, agree = 0;
  for (std::size_t p = 0; p < m.length(); ++p) {
    const auto it = std::find(m.rows[p].begin(), m.rows[p].end(), 1.0);
    if (it == m.rows[p].end()) continue;
    const auto base = static_cast<std::uint8_t>(it - m.rows[p].begin());
    const std::uint8_t got =
        e.reverse ? static_cast<std::uint8_t>(3 - seq[m.length() - 1 - p]) : seq[p];
    ++certain;
    agree += got == base ? 1 : 0;
  }
  return certain == 0 || agree + 1 >= certain;  // a pseudocount draw may change one base
}

bool overlap(const Embedding& a, const Embedding& b) {
  return a.start < b.end() && b.start < a.end();
}

}  // namespace

TEST_CASE("motif counting: positives and negatives get counts from their own ranges") {
  const auto ds =
      simulate_motif_counting(motif("TAL1_known4"), {3, 5}, {0, 1}, 300, 200, config(1));
  REQUIRE(ds.size() == 500);
  REQUIRE(ds.num_tasks() == 1);
  std::map<std::size_t, int> positive_counts, negative_counts;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const auto& planted = ds.embeddings[i];
    const bool positive = ds.labels[i] == 1.0F;
    CHECK(positive == (i < 300));
    (positive ? positive_counts : negative_counts)[planted.size()]++;
    for (std::size_t a = 0; a < planted.size(); ++a) {
      CHECK(holds_instance(ds, i, planted[a]));
      for (std::size_t b = a + 1; b < planted.size(); ++b)
        CHECK_FALSE(overlap(planted[a], planted[b]));
    }
  }
  CHECK(positive_counts.begin()->first == 3);
  CHECK(positive_counts.rbegin()->first == 5);
  CHECK(negative_counts.begin()->first == 0);
  CHECK(negative_counts.rbegin()->first == 1);
  // Uniform counts: 100 per value in expectation among 300 positives (5 sigma: about +-41).
  for (const auto& [count, n] : positive_counts) CHECK(std::abs(n - 100) < 41);
}

TEST_CASE("motif density localization: positives' motifs lie in the centre, negatives' anywhere") {
  const std::size_t center = 60;
  const auto ds = simulate_motif_density_localization(motif("TAL1_known4"), center, {2, 3}, 200,
                                                      200, config(2));
  const std::size_t lo = 100 - center / 2;
  std::size_t negatives_outside = 0;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const bool positive = i < 200;
    CHECK(ds.embeddings[i].size() >= 2);
    CHECK(ds.embeddings[i].size() <= 3);
    for (const Embedding& e : ds.embeddings[i]) {
      CHECK(holds_instance(ds, i, e));
      const bool inside = e.start >= lo && e.end() <= lo + center;
      if (positive) CHECK(inside);
      if (!positive && !inside) ++negatives_outside;
    }
  }
  CHECK(negatives_outside > 300);  // most of the ~500 negative instances fall outside the centre
  CHECK_THROWS_AS(
      simulate_motif_density_localization(motif("TAL1_known4"), 5, {1, 1}, 1, 1, config(2)),
      std::invalid_argument);
}

TEST_CASE("multi-motif embedding: one task per motif, labels are exactly what was planted") {
  std::vector<Motif> motifs;
  for (const char* name :
       {"CTCF_known1", "ZNF143_known2", "SIX5_known1", "TAL1_known4", "GATA_known1", "SPI1_known4",
        "IRF_known20", "POU5F1_known1", "SOX2_1", "CEBPB_known1", "IRF_known1", "SPI1_known1"}) {
    motifs.push_back(motif(name));
  }
  const MotifCount count{0, 4};
  const auto ds = simulate_multi_motif_embedding(motifs, count, 1200, config(3, 400));
  REQUIRE(ds.num_tasks() == 12);
  CHECK(ds.task_names[4] == "GATA_known1");
  std::vector<double> per_count(5, 0.0), per_task(12, 0.0);
  for (std::size_t i = 0; i < ds.size(); ++i) {
    std::set<std::size_t> planted;
    for (const Embedding& e : ds.embeddings[i]) {
      CHECK(planted.insert(e.motif).second);  // a subset: no motif twice
      CHECK(holds_instance(ds, i, e));
      per_task[e.motif] += 1;
    }
    for (std::size_t t = 0; t < 12; ++t) {
      CHECK(ds.labels[i * 12 + t] == (planted.count(t) != 0 ? 1.0F : 0.0F));
    }
    REQUIRE(planted.size() <= 4);
    per_count[planted.size()] += 1;
  }
  // Counts uniform on 0..4 (240 each), motifs equally likely (1200 * 2 / 12 = 200 each).
  for (const double n : per_count) CHECK(std::abs(n - 240.0) < 5.0 * std::sqrt(240.0));
  for (const double n : per_task) CHECK(std::abs(n - 200.0) < 5.0 * std::sqrt(200.0));

  // Poisson counts truncated to [min, max]: mean 1.5 within [1, 3].
  const auto poisson = simulate_multi_motif_embedding(motifs, {1, 3, 1.5}, 2000, config(4, 400));
  double total = 0.0;
  std::vector<int> seen(4, 0);
  for (const auto& planted : poisson.embeddings) {
    REQUIRE(planted.size() >= 1);
    REQUIRE(planted.size() <= 3);
    ++seen[planted.size()];
    total += static_cast<double>(planted.size());
  }
  // P(k | 1 <= k <= 3) for Poisson(1.5): 0.3347 / 0.2510 / 0.1255 normalised.
  const double z = 0.334695 + 0.251021 + 0.125511;
  CHECK(seen[1] / 2000.0 == doctest::Approx(0.334695 / z).epsilon(0.08));
  CHECK(seen[3] / 2000.0 == doctest::Approx(0.125511 / z).epsilon(0.15));
  CHECK_THROWS_AS(simulate_multi_motif_embedding(motifs, {0, 13}, 10, config(4, 400)),
                  std::invalid_argument);
}

TEST_CASE("heterodimer grammar: positives keep the spacing, negatives place the motifs freely") {
  const Motif& first = motif("SPI1_known4");
  const Motif& second = motif("IRF_known20");
  const auto ds = simulate_heterodimer_grammar(first, second, 2, 5, 400, 400, config(5));
  std::size_t negatives_in_grammar = 0;
  std::set<std::size_t> positive_gaps;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const auto& planted = ds.embeddings[i];
    REQUIRE(planted.size() == 2);
    CHECK(holds_instance(ds, i, planted[0]));
    CHECK(holds_instance(ds, i, planted[1]));
    CHECK_FALSE(overlap(planted[0], planted[1]));
    const Embedding& a = planted[0].motif == 0 ? planted[0] : planted[1];
    const Embedding& b = planted[0].motif == 0 ? planted[1] : planted[0];
    REQUIRE(a.motif == 0);
    REQUIRE(b.motif == 1);
    const bool grammar = b.start >= a.end() && b.start - a.end() >= 2 && b.start - a.end() <= 5 &&
                         !a.reverse && !b.reverse;
    if (ds.labels[i] == 1.0F) {
      CHECK(grammar);
      positive_gaps.insert(b.start - a.end());
    } else {
      negatives_in_grammar += grammar ? 1 : 0;
    }
  }
  CHECK(positive_gaps == std::set<std::size_t>{2, 3, 4, 5});
  // Independent placement and strands: the grammar arises by chance in well under 1%.
  CHECK(negatives_in_grammar < 4);
  CHECK_THROWS_AS(simulate_heterodimer_grammar(first, second, 5, 2, 1, 1, config(5)),
                  std::invalid_argument);
}

TEST_CASE("differential accessibility: positives draw from one motif set, negatives the other") {
  const std::vector<Motif> pos = {motif("CTCF_known1"), motif("SIX5_known1")};
  const std::vector<Motif> neg = {motif("GATA_known1"), motif("TAL1_known4")};
  const auto ds = simulate_differential_accessibility(pos, neg, {1, 2}, 100, 100, config(6));
  REQUIRE(ds.motif_names.size() == 4);
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const bool positive = ds.labels[i] == 1.0F;
    CHECK(!ds.embeddings[i].empty());
    for (const Embedding& e : ds.embeddings[i]) CHECK((e.motif < 2) == positive);
  }
}

TEST_CASE("sequence simulations: deterministic per seed, split without loss, GC as asked") {
  const std::vector<Motif> motifs = {motif("CTCF_known1"), motif("SIX5_known1")};
  const auto a = simulate_multi_motif_embedding(motifs, {0, 2}, 300, config(7));
  const auto b = simulate_multi_motif_embedding(motifs, {0, 2}, 300, config(7));
  const auto c = simulate_multi_motif_embedding(motifs, {0, 2}, 300, config(8));
  CHECK(a.codes == b.codes);
  CHECK(a.labels == b.labels);
  CHECK(a.codes != c.codes);
  const SequenceSplits splits = split_dataset(a, 50, 40, 7);
  CHECK(splits.test.size() == 50);
  CHECK(splits.validation.size() == 40);
  CHECK(splits.train.size() == 210);
  std::vector<std::uint32_t> ids;
  for (const auto* s : {&splits.train, &splits.validation, &splits.test}) {
    ids.insert(ids.end(), s->ids.begin(), s->ids.end());
    for (std::size_t i = 0; i < s->size(); ++i) {
      const std::uint32_t id = s->ids[i];
      CHECK(std::equal(s->sequence(i), s->sequence(i) + 200, a.sequence(id)));
      CHECK(s->labels[i * 2] == a.labels[id * 2]);
    }
  }
  std::sort(ids.begin(), ids.end());
  for (std::uint32_t i = 0; i < ids.size(); ++i) REQUIRE(ids[i] == i);
  double gc = 0.0;
  for (const std::uint8_t code : a.codes) gc += code == 1 || code == 2 ? 1.0 : 0.0;
  CHECK(gc / static_cast<double>(a.codes.size()) == doctest::Approx(0.4).epsilon(0.02));
  CHECK_THROWS_AS(split_dataset(a, 200, 100, 7), std::invalid_argument);
}

TEST_CASE("records writer: FASTA + TSV with task names that the records reader reads back") {
  strand::test::TempDir dir;
  const std::vector<Motif> motifs = {motif("CTCF_known1"), motif("AHR::ARNT_1")};
  const auto ds = simulate_multi_motif_embedding(motifs, {0, 2}, 100, config(9, 120));
  const SequenceSplits splits = split_dataset(ds, 20, 10, 9);
  write_records_dataset(dir.path(), splits);
  const FastaReader fasta((dir.path() / "valid.fa").string());
  const RecordSource records(fasta, (dir.path() / "valid.tsv").string());
  REQUIRE(records.size() == 10);
  CHECK(records.target_names() == std::vector<std::string>{"CTCF_known1", "AHR::ARNT_1"});
  for (int64_t i = 0; i < records.size(); ++i) {
    std::vector<std::uint8_t> codes(120);
    records.fetch(i, 0, codes.data(), nullptr, 0);
    CHECK(
        std::equal(codes.begin(), codes.end(), splits.validation.sequence(static_cast<size_t>(i))));
    float labels[2];
    std::uint8_t mask[2];
    records.labels(i, labels, mask);
    CHECK(labels[0] == splits.validation.labels[static_cast<size_t>(i) * 2]);
    CHECK(labels[1] == splits.validation.labels[static_cast<size_t>(i) * 2 + 1]);
  }
  // The planted motifs are listed in the FASTA header: `>seq<id> motifs=<name>@<start><strand>`.
  const SequenceDataset& v = splits.validation;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::vector<Embedding>& planted = v.embeddings[i];
    if (planted.empty()) continue;
    // Listed along the sequence: the first is the one starting first.
    const Embedding& e =
        *std::min_element(planted.begin(), planted.end(),
                          [](const Embedding& a, const Embedding& b) { return a.start < b.start; });
    CHECK(fasta.contig_id(fmt::format("seq{:06}", v.ids[i])) >= 0);
    std::ifstream in(dir.path() / "valid.fa");
    std::string line;
    bool found = false;
    const std::string expected =
        fmt::format(">seq{:06} motifs={}@{}{}", v.ids[i], v.motif_names[e.motif], e.start,
                    e.reverse ? '-' : '+');
    while (std::getline(in, line)) found = found || line.rfind(expected, 0) == 0;
    CHECK(found);
    break;
  }
}
