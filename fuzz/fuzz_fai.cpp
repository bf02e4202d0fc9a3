// libFuzzer target: a .fai index checked against its FASTA.
//
// Input: the .fai text alone (checked against the fixed FASTA below), or FASTA text, the line
// "@@fai@@", then the .fai text. The .fai is written after the FASTA, so by modification time
// it is current: only strand's check of its contents stands between a wrong index and wrong
// bases. The FASTA is opened twice: refusing a stale index (StaleIndexPolicy::kError, no
// build), then rebuilding it (kRebuild).
//
// Expected: DataError. Findings: crashes, sanitizer reports (e.g. signed overflow on a huge
// length), other exception types, temporaries left behind, and, when the FASTA is clean
// (fasta_oracle.h), any accepted index that yields other contigs or other bases than the file
// holds.
#include <htslib/hts_log.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "data/data_error.h"
#include "data/fasta/fasta_reader.h"
#include "fuzz/fasta_oracle.h"
#include "fuzz/fuzz_support.h"

namespace {

// Three records with different line widths, a lowercase/N stretch and a description.
constexpr std::string_view kFasta =
    ">chr1 first\n"
    "ACGTACGTAC\n"
    "GTACGTACGT\n"
    "ACG\n"
    ">chr2\n"
    "TTTTGGGGCCCCAA\n"
    "GG\n"
    ">chrM\n"
    "acgtnNNNACgt\n";

constexpr std::string_view kSeparator = "\n@@fai@@\n";

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  hts_set_log_level(HTS_LOG_OFF);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strand;
  bool has_fasta = false;
  auto [first, second] = fuzz::split_once(fuzz::as_text(data, size), kSeparator, &has_fasta);
  const std::string_view fasta_text = has_fasta ? first : kFasta;
  const std::string_view fai_text = has_fasta ? second : first;

  const auto& dir = fuzz::ScratchDir::get().fresh();
  const std::string fasta = (dir / "input.fa").string();
  const std::string fai = (dir / "input.fa.fai").string();
  fuzz::write_file(fasta, fasta_text);
  fuzz::write_file(fai, fai_text);  // written second: never older than the FASTA

  const auto reference =
      fuzz::is_plain(fasta_text) ? fuzz::read_clean_fasta(fasta_text) : std::nullopt;

  data::FastaOptions strict;
  strict.build_missing_index = false;
  strict.stale_index = data::StaleIndexPolicy::kError;
  fuzz::parses<data::DataError>("FastaReader (stale index refused)", [&] {
    const data::FastaReader reader(fasta, strict);
    if (reader.index_paths().built) {
      fuzz::finding("FastaReader (stale index refused): built an index although told not to");
    }
    fuzz::check_reader(reader, reference, "FastaReader with the given .fai (kError)");
  });
  fuzz::expect_no_temporaries(dir, "FastaReader (stale index refused)");

  // Refusing a wrong index with a clear message is as good as rebuilding it; reading through
  // it is not.
  fuzz::parses<data::DataError>("FastaReader (stale index rebuilt)", [&] {
    const data::FastaReader reader(fasta);
    fuzz::check_reader(reader, reference, "FastaReader with the given .fai (kRebuild)");
  });
  fuzz::expect_no_temporaries(dir, "FastaReader (stale index rebuilt)");
  return 0;
}
