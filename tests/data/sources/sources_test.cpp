// Tests for the SequenceSource implementations: interval windows (in-memory and streaming
// agree with samtools-checked FASTA access), FASTA records + label TSV, in-memory arrays.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/sources/array_source.h"
#include "data/sources/interval_source.h"
#include "data/sources/record_source.h"
#include "data/test_paths.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

std::string fetch_text(const SequenceSource& source, int64_t index, int64_t shift,
                       std::vector<uint8_t>* mask = nullptr) {
  std::vector<uint8_t> codes(static_cast<size_t>(source.length()));
  if (mask != nullptr) mask->assign(codes.size(), 9);
  source.fetch(index, shift, codes.data(), mask != nullptr ? mask->data() : nullptr, 0);
  return decode(codes.data(), codes.size());
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

TEST_CASE("interval windows: in-memory and streaming give the same bases as the FASTA") {
  TempDir dir;
  const std::string fa = dir.copy_in(fixture("genomes/yeast_small.fa.gz"), "y.fa.gz");
  // Interval centred at 5000; one near the start and one near the end of their contigs.
  const std::string bed =
      dir.write("i.bed", "chrI\t4950\t5050\t1\nchrII\t10\t30\t0\nchrM\t9990\t10000\t1\n");
  IntervalReadOptions read;
  IntervalSourceOptions options;
  options.window = 200;
  options.jitter = 25;
  options.lower_mask = true;
  FastaReader reader(fa);
  const FastaReader oracle = reader.clone();
  IntervalSource memory(reader.clone(), read_intervals(bed, read), options);
  options.streaming = true;
  IntervalSource streaming(reader.clone(), read_intervals(bed, read), options);
  streaming.prepare_workers(1);
  CHECK(memory.resident_bytes() == 250 + 200 + 200);  // edge windows cannot move: no flank
  CHECK(streaming.resident_bytes() == 0);
  const int64_t m_len = oracle.contigs()[static_cast<size_t>(oracle.contig_id("chrM"))].length;
  for (const int64_t shift : {-25, -7, 0, 13, 25}) {
    CAPTURE(shift);
    for (int64_t i = 0; i < 3; ++i) {
      std::vector<uint8_t> mask_m;
      std::vector<uint8_t> mask_s;
      const std::string m = fetch_text(memory, i, shift, &mask_m);
      CHECK(m == fetch_text(streaming, i, shift, &mask_s));
      CHECK(mask_m == mask_s);
    }
    const std::string raw = oracle.fetch("chrI", 4900 + shift, 5100 + shift);
    std::vector<uint8_t> mask;
    CHECK(fetch_text(memory, 0, shift, &mask) == upper(raw));
    for (size_t k = 0; k < raw.size(); ++k) CHECK(mask[k] == (is_lowercase(raw[k]) ? 1 : 0));
    // Near the contig ends the window is kept inside the contig whatever the shift.
    CHECK(fetch_text(memory, 1, shift) == upper(oracle.fetch("chrII", 0, 200)));
    CHECK(fetch_text(memory, 2, shift) == upper(oracle.fetch("chrM", m_len - 200, m_len)));
  }
  CHECK_THROWS_AS(fetch_text(memory, 0, 26), DataError);
}

TEST_CASE("interval windows: narrowPeak summits centre the window and short contigs pad N") {
  TempDir dir;
  const std::string fa = dir.write("s.fa", ">tiny\nACGTACGTAC\n>big\nAAAAACCCCCGGGGGTTTTT\n");
  IntervalReadOptions read;
  read.format = IntervalFormat::kNarrowPeak;
  const std::string peaks = dir.write(
      "p.narrowPeak", "big\t0\t20\tp\t0\t.\t1\t-1\t-1\t12\ntiny\t0\t10\tq\t0\t.\t1\t-1\t-1\t-1\n");
  IntervalSourceOptions options;
  options.window = 4;
  IntervalSource source(FastaReader(fa), read_intervals(peaks, read), options);
  CHECK(fetch_text(source, 0, 0) == "GGGG");  // bases 10..13, centred on 12
  options.window = 14;
  IntervalSource padded(FastaReader(fa), read_intervals(peaks, read), options);
  CHECK(fetch_text(padded, 1, 0) == "ACGTACGTACNNNN");
  options.streaming = true;
  IntervalSource padded_streaming(FastaReader(fa), read_intervals(peaks, read), options);
  padded_streaming.prepare_workers(1);
  CHECK(fetch_text(padded_streaming, 1, 0) == "ACGTACGTACNNNN");
}

TEST_CASE("records + label TSV: header masking crop and pad errors") {
  TempDir dir;
  const std::string fa = dir.write("r.fa", ">s1\nAACCGGTT\n>s2\nacgt\n>s3\nTTTTGGGG\n");
  FastaReader reader(fa);
  RecordSource source(reader, dir.write("l.tsv", "name\tCTCF\tJUN\ns3\t1\tNA\ns1\t0\t0.5\n"), 6);
  CHECK(source.size() == 2);
  CHECK(source.target_names() == std::vector<std::string>{"CTCF", "JUN"});
  CHECK(fetch_text(source, 0, 0) == "TTTGGG");   // centred crop of s3
  CHECK(fetch_text(source, 0, -1) == "TTTTGG");  // jitter moves the crop
  float labels[2];
  uint8_t mask[2];
  source.labels(0, labels, mask);
  CHECK(labels[0] == 1.0F);
  CHECK(mask[1] == 0);
  RecordSource padded(reader, dir.write("p.tsv", "s2\t1\n"), 6);
  CHECK(padded.target_names() == std::vector<std::string>{"task_0"});
  CHECK(fetch_text(padded, 0, 0) == "ACGTNN");
  CHECK_THROWS_WITH_AS(RecordSource(reader, dir.write("x.tsv", "s1\t1\ns9\t0\n")),
                       doctest::Contains("x.tsv:2: record 's9' is not in FASTA"), DataError);
  CHECK_THROWS_WITH_AS(RecordSource(reader, dir.write("y.tsv", "s1\t1\ns2\t0\n")),
                       doctest::Contains("y.tsv:2: record 's2' has length 4 but 's1' has 8"),
                       DataError);
  CHECK_THROWS_WITH_AS(RecordSource(reader, dir.write("w.tsv", "s1\t1\ns3\t0\t1\n")),
                       doctest::Contains("w.tsv:2: expected 1 label columns, found 2"), DataError);
  CHECK_THROWS_WITH_AS(RecordSource(reader, dir.write("e.tsv", "")), doctest::Contains("is empty"),
                       DataError);
}

TEST_CASE("array source: centred windows inside stored sequences") {
  const auto codes = encode(
      "ACGTAC"
      "GGGTTT");
  ArraySource source(std::vector<uint8_t>(codes.begin(), codes.end()), 6, {1.0F, 0.0F}, 1, {}, 4);
  CHECK(source.size() == 2);
  CHECK(fetch_text(source, 0, 0) == "CGTA");
  CHECK(fetch_text(source, 1, 5) == "GTTT");
  CHECK(fetch_text(source, 1, -5) == "GGGT");
  CHECK_THROWS_AS(ArraySource({0, 1, 7}, 3, {1.0F}, 1), DataError);
  CHECK_THROWS_AS(ArraySource({0, 1, 2}, 3, {1.0F, 2.0F}, 1), DataError);
}
