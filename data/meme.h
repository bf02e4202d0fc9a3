// Motifs in MEME's minimal motif format, the exchange format of the MEME suite (TOMTOM, FIMO),
// JASPAR's downloads and TF-MoDISco-lite's reports: a "MEME version" line, optionally ALPHABET,
// strands and background lines, then per motif a "MOTIF name [alternate name]" line and a
// "letter-probability matrix: alength= 4 w= W ..." line followed by W rows of the four
// probabilities of A, C, G and T. `strand simulate` writes the motifs it embeds this way;
// `strand marginalize` reads them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "data/simulation/motif_library.h"

namespace strand::data {

/// The motifs of MEME-format `text`; `source` names it in errors. Throws DataError naming
/// source:line for a missing "MEME version" line, an alphabet other than ACGT, an alength other
/// than 4, a matrix without w=, a row of other than four numbers, a negative value, a row not
/// summing to 1 (within 0.01), fewer rows than w=, a motif without a matrix, a repeated name, or
/// no motif at all. Each motif's consensus is the likeliest letter of each row.
std::vector<Motif> parse_meme(std::string_view text, std::string_view source);

/// parse_meme() of a file; throws DataError naming it when it cannot be read.
std::vector<Motif> read_meme(const std::filesystem::path& path);

/// The MEME text of `motifs` (version 4, ACGT, both strands, uniform background).
std::string meme_text(const std::vector<Motif>& motifs);

/// Writes meme_text(motifs) to `path` atomically.
void write_meme(const std::filesystem::path& path, const std::vector<Motif>& motifs);

}  // namespace strand::data
