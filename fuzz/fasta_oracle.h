// The FASTA checks shared by fuzz_fasta and fuzz_fai: a reference reading of "clean" FASTA
// text (where every reader agrees on the bases), and the checks run on an accepted FastaReader.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "data/data_error.h"
#include "data/encoding.h"
#include "data/fasta/fasta_reader.h"
#include "fmt/format.h"
#include "fuzz/fuzz_support.h"

namespace strand::fuzz {

/// One record of the reference reading.
struct ReferenceRecord {
  std::string name;
  std::string bases;
};

/// Reads `text` when it is clean FASTA, the subset on which samtools, htslib and every other
/// reader agree: '\n' line ends only; the first line is a header; headers are '>' NAME with
/// NAME of letters, digits and "_.-|", optionally followed by ' ' and printable text; sequence
/// lines hold letters only; within a record every line but the last has the same length and
/// the last is not longer; no blank lines; unique names. Returns nullopt for anything else
/// (such input gets only the self-consistency checks).
inline std::optional<std::vector<ReferenceRecord>> read_clean_fasta(std::string_view text) {
  if (text.empty() || text.front() != '>') return std::nullopt;
  if (text.back() == '\n') text.remove_suffix(1);
  std::vector<ReferenceRecord> records;
  std::set<std::string, std::less<>> names;
  size_t full_width = 0;      // length of the record's first sequence line
  bool record_ended = false;  // a shorter line was seen: no more sequence lines may follow
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) return std::nullopt;
    if (line.front() == '>') {
      const std::string_view header = line.substr(1);
      const size_t space = header.find(' ');
      const std::string_view name = header.substr(0, space);
      if (name.empty()) return std::nullopt;
      for (const char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' &&
            c != '|') {
          return std::nullopt;
        }
      }
      for (const char c : header) {
        if (c < ' ' || c > '~') return std::nullopt;
      }
      if (!names.emplace(name).second) return std::nullopt;
      records.push_back({std::string(name), {}});
      full_width = 0;
      record_ended = false;
      continue;
    }
    for (const char c : line) {
      if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return std::nullopt;
    }
    if (record_ended) return std::nullopt;
    if (full_width == 0) {
      full_width = line.size();
    } else if (line.size() > full_width) {
      return std::nullopt;
    } else if (line.size() < full_width) {
      record_ended = true;
    }
    records.back().bases.append(line);
  }
  return records;
}

/// Checks an accepted reader: every contig reads back at its full length, through fetch() and
/// fetch_codes() and a clone; sub-ranges agree with the whole; ranges outside a contig are a
/// DataError. With a reference reading of the same file, the contigs, in order, and their bases
/// must equal it (empty records aside). `what` prefixes findings.
inline void check_reader(const data::FastaReader& reader,
                         const std::optional<std::vector<ReferenceRecord>>& reference,
                         const char* what) {
  const data::FastaReader copy = reader.clone();
  std::vector<std::string> sequences;
  for (const data::Contig& c : reader.contigs()) {
    if (c.length < 0) finding(fmt::format("{}: contig '{}' has length {}", what, c.name, c.length));
    if (reader.contig_id(c.name) < 0) {
      finding(fmt::format("{}: contig '{}' has no id", what, c.name));
    }
    const std::string whole = reader.fetch(c.name, 0, c.length);
    if (static_cast<int64_t>(whole.size()) != c.length) {
      finding(fmt::format("{}: fetch of '{}' gave {} bases, length {}", what, c.name, whole.size(),
                          c.length));
    }
    if (copy.fetch(c.name, 0, c.length) != whole) {
      finding(fmt::format("{}: a clone reads other bases for '{}'", what, c.name));
    }
    std::vector<uint8_t> codes(whole.size()), expected(whole.size());
    std::vector<uint8_t> mask(whole.size());
    reader.fetch_codes(c.name, 0, c.length, codes.data(), mask.data());
    data::encode(whole.data(), whole.size(), expected.data());
    if (codes != expected) {
      finding(fmt::format("{}: fetch_codes of '{}' disagrees with fetch", what, c.name));
    }
    const int64_t starts[] = {0, c.length / 3, c.length / 2, std::max<int64_t>(0, c.length - 1)};
    for (const int64_t start : starts) {
      const int64_t end = std::min(c.length, start + 1 + c.length / 4);
      if (start >= end) continue;
      const std::string part = reader.fetch(c.name, start, end);
      if (part != whole.substr(static_cast<size_t>(start), static_cast<size_t>(end - start))) {
        finding(
            fmt::format("{}: fetch of '{}' [{}, {}) is not the same bases as in the whole "
                        "record",
                        what, c.name, start, end));
      }
    }
    // Outside the contig: a DataError, never bases.
    const bool past_end = parses<data::DataError>(what, [&] {
      (void)reader.fetch(c.name, std::max<int64_t>(0, c.length - 1), c.length + 1);
    });
    if (past_end) finding(fmt::format("{}: fetch past the end of '{}' returned", what, c.name));
    sequences.push_back(whole);
  }
  if (!reference) return;
  // Empty records (a header and no bases) are left out on both sides: htslib 1.16 drops them
  // from the index, and whether strand lists, drops or refuses them is a policy (a listed one
  // must be empty in the file too).
  std::vector<size_t> listed;  // indices into reader.contigs() with bases
  for (size_t i = 0; i < reader.contigs().size(); ++i) {
    const data::Contig& c = reader.contigs()[i];
    if (c.length > 0) {
      listed.push_back(i);
      continue;
    }
    const auto it = std::find_if(reference->begin(), reference->end(),
                                 [&](const ReferenceRecord& r) { return r.name == c.name; });
    if (it == reference->end() || !it->bases.empty()) {
      finding(fmt::format("{}: contig '{}' listed with no bases", what, c.name));
    }
  }
  std::vector<const ReferenceRecord*> records;  // the FASTA's records with bases
  for (const ReferenceRecord& r : *reference) {
    if (!r.bases.empty()) records.push_back(&r);
  }
  // Wrong bases first (the worst outcome), then missing, extra or reordered records.
  for (size_t k = 0; k < listed.size(); ++k) {
    const data::Contig& c = reader.contigs()[listed[k]];
    const auto it = std::find_if(records.begin(), records.end(),
                                 [&](const ReferenceRecord* r) { return r->name == c.name; });
    if (it == records.end()) {
      finding(fmt::format("{}: contig '{}' is not a record of the FASTA", what, c.name));
    }
    const std::string& bases = sequences[listed[k]];
    if ((*it)->bases != bases) {
      finding(
          fmt::format("{}: contig '{}' reads {} bases '{:.40}' but the FASTA holds {} bases "
                      "'{:.40}' (silently wrong bases)",
                      what, c.name, bases.size(), bases, (*it)->bases.size(), (*it)->bases));
    }
    if (static_cast<size_t>(it - records.begin()) != k) {
      finding(fmt::format("{}: contig '{}' is listed at position {} but is record {} of the FASTA",
                          what, c.name, k, it - records.begin()));
    }
  }
  if (listed.size() != records.size()) {
    finding(fmt::format("{}: {} contigs with bases listed, the FASTA has {} such records", what,
                        listed.size(), records.size()));
  }
}

/// True when no record is empty: clean FASTA of this kind must be accepted (an empty record
/// may be refused by policy).
inline bool every_record_has_bases(const std::vector<ReferenceRecord>& records) {
  return std::all_of(records.begin(), records.end(),
                     [](const ReferenceRecord& r) { return !r.bases.empty(); });
}

/// True when `text` is not BGZF/gzip (so the bytes are the FASTA text itself).
inline bool is_plain(std::string_view text) {
  return !(text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
           static_cast<unsigned char>(text[1]) == 0x8b);
}

}  // namespace strand::fuzz
