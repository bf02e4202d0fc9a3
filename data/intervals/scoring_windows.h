// Windows to score when there are no intervals: tiles across a genomic region written as
// samtools writes regions ("chr1:1-1000000"), and one window per FASTA record. Both come back
// as an unlabelled IntervalSet (T = 0) whose intervals are exactly the windows, so an
// IntervalSource of the same window length fetches them unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/fasta/fasta_reader.h"
#include "data/intervals/intervals.h"

namespace strand::data {

/// A genomic region, 0-based half-open.
struct Region {
  std::string contig;  ///< contig name
  int64_t start = 0;   ///< 0-based first base
  int64_t end = 0;     ///< one past the last base
};

/// Parses a region in samtools' 1-based inclusive syntax: "chr1" (the whole contig), "chr1:1000"
/// (from base 1000 to the end) or "chr1:1,000-2,000" (commas in numbers are ignored). When the
/// whole text is a contig name it is that contig, even if it holds ':' (as samtools reads it).
/// Throws DataError naming the text and what was expected for an unknown contig, a number that
/// is not a positive integer, a begin after the end, or an end past the contig.
Region parse_region(std::string_view text, const std::vector<Contig>& contigs);

/// Windows of `window` bases starting at region.start and every `step` bases after, as long as
/// they end inside the region: [s, s + window) for s = start, start + step, ... with
/// s + window <= end. Appends them to `set` (T must be 0). Throws DataError when window or step
/// is not positive, step exceeds window (the region would have gaps), or the region is shorter
/// than one window.
void tile_region(const Region& region, int64_t window, int64_t step, IntervalSet& set);

/// One window of `window` bases per record of `reader`, in file order: the whole record when
/// it has exactly `window` bases; with `centre`, the central window of a longer record (the one
/// RecordSource crops: it starts at length/2 - window/2). Throws DataError naming the record,
/// its length and the window for a record of another length (shorter ones even with `centre`:
/// scores of N-padded sequence would mislead).
IntervalSet record_windows(const FastaReader& reader, int64_t window, bool centre);

}  // namespace strand::data
