// libFuzzer target: a ENCODE-DREAM TSV (header chrom start end CELL..., labels B/U/A) file read
// with read_intervals() and validated against a small genome (checks: fuzz/interval_checks.h).
#include <cstddef>
#include <cstdint>

#include "data/intervals/intervals.h"
#include "fuzz/interval_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return strand::fuzz::fuzz_interval_file(data, size, strand::data::IntervalFormat::kDreamTsv,
                                          "DREAM");
}
