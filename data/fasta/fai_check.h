// Checks a .fai against the FASTA it claims to index, without reading the whole FASTA: every
// record's header at its offset, offsets that increase, extents inside the file, line geometry
// at both ends of each record, and nothing but blank space between and after records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/fasta/fasta_index.h"

namespace strand::data {

/// The uncompressed byte offset of base `i` of the record `e` describes:
/// offset + (i / line_bases) * line_width + i % line_bases. nullopt when the geometry is
/// impossible (line_bases <= 0 or line_width <= line_bases), i is negative, or the offset
/// overflows int64 (a .fai may hold any numbers).
std::optional<int64_t> fai_base_offset(const FaiEntry& e, int64_t i);

/// Why `entries` (read from `fai` by read_fai) do not describe `fasta`, as
/// "FAI:LINE: record 'NAME' ..." (empty when they do). `gzi` is the .gzi of a BGZF FASTA
/// (empty for a plain one): reads go through it, so a .gzi that does not match the FASTA shows
/// up as records that are not where the .fai says. Costs a few small reads per record.
std::string fai_mismatch(const std::string& fasta, const std::string& fai,
                         const std::vector<FaiEntry>& entries, const std::string& gzi);

}  // namespace strand::data
