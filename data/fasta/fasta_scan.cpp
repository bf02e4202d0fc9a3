// check_fasta_content: one pass of FastaScanner (data/fasta/fasta_scanner.h) over the whole file.
#include "data/fasta/fasta_scan.h"

#include "data/fasta/fasta_scanner.h"
#include "data/warnings.h"

namespace strand::data {

void check_fasta_content(const std::string& fasta, bool allow_loose_headers) {
  silence_htslib_log();
  FastaChunks chunks(fasta, size_t{1} << 20);
  FastaScanner scanner(fasta, allow_loose_headers);
  while (chunks.feed(scanner)) {
  }
  scanner.finish();
}

}  // namespace strand::data
