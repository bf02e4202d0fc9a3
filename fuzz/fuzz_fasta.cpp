// libFuzzer target: a FASTA file (plain or BGZF) opened with FastaReader, which builds its
// index, then opened again with the index it built.
//
// Expected: DataError for bad input. Findings: crashes, sanitizer reports, other exception
// types, a temporary index left behind, a clean FASTA refused, an accepted file with a NUL byte (it
// would be read misaligned), a reader whose fetches disagree with each other, a second open that
// rebuilds or changes the index just built, and, for clean FASTA (fasta_oracle.h), bases that
// differ from the file.
#include <htslib/hts_log.h>

#include <cstddef>
#include <cstdint>

#include "data/data_error.h"
#include "data/fasta/fasta_reader.h"
#include "fuzz/fasta_oracle.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  hts_set_log_level(HTS_LOG_OFF);  // htslib's own complaints are not findings
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strand;
  const std::string_view text = fuzz::as_text(data, size);
  const auto& dir = fuzz::ScratchDir::get().fresh();
  const std::string fasta = (dir / "input.fa").string();
  fuzz::write_file(fasta, text);

  const bool plain = fuzz::is_plain(text);
  const auto reference = plain ? fuzz::read_clean_fasta(text) : std::nullopt;
  std::string error;
  const bool accepted = fuzz::parses<data::DataError>(
      "FastaReader",
      [&] {
        const data::FastaReader reader(fasta);
        fuzz::check_reader(reader, reference, "FastaReader");
        // The index just built must be judged current and describe the same contigs.
        const data::FastaReader again(fasta);
        if (again.index_paths().built) {
          fuzz::finding("FastaReader: the index strand just built is rebuilt on the next open");
        }
        if (again.contigs().size() != reader.contigs().size()) {
          fuzz::finding("FastaReader: a second open lists another number of contigs");
        }
        for (size_t i = 0; i < reader.contigs().size(); ++i) {
          if (again.contigs()[i].name != reader.contigs()[i].name ||
              again.contigs()[i].length != reader.contigs()[i].length) {
            fuzz::finding("FastaReader: a second open lists other contigs");
          }
        }
      },
      &error);
  if (!accepted && reference && fuzz::every_record_has_bases(*reference)) {
    fuzz::finding("FastaReader: clean FASTA refused: " + error);
  }
  if (accepted && plain && text.find('\0') != std::string_view::npos) {
    fuzz::finding("FastaReader: a FASTA holding a NUL byte was accepted");
  }
  fuzz::expect_no_temporaries(dir, "FastaReader");
  return 0;
}
