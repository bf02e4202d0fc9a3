// check_fasta_content: one pass of FastaScanner (data/fasta/fasta_scanner.h) over the whole file.
#include "data/fasta/fasta_scan.h"

#include <htslib/bgzf.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "data/data_error.h"
#include "data/fasta/fasta_scanner.h"
#include "data/warnings.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

struct BgzfCloser {
  void operator()(BGZF* fp) const { bgzf_close(fp); }
};

}  // namespace

void check_fasta_content(const std::string& fasta, bool allow_loose_headers) {
  silence_htslib_log();
  std::unique_ptr<BGZF, BgzfCloser> fp(bgzf_open(fasta.c_str(), "r"));
  if (!fp) {
    throw DataError(fmt::format("cannot open FASTA '{}': {}", fasta, std::strerror(errno)));
  }
  FastaScanner scanner(fasta, allow_loose_headers);
  std::vector<unsigned char> buffer(kChunkBytes);
  while (true) {
    const ssize_t n = bgzf_read(fp.get(), buffer.data(), buffer.size());
    if (n < 0) {
      throw DataError(fmt::format("{}: read error at line {} (truncated or corrupt file?)", fasta,
                                  scanner.line()));
    }
    if (n == 0) break;
    scanner.feed(buffer.data(), static_cast<size_t>(n));
  }
  scanner.finish();
}

}  // namespace strand::data
