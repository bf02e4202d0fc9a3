// Contig name resolution and the chr-prefix explanation (variants/contig_names.h).
#include "variants/contig_names.h"

#include <fmt/format.h>

#include "data/data_error.h"
#include "data/text_fields.h"

namespace strand::variants {
namespace {

std::vector<std::string_view> whitespace_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

}  // namespace

std::map<std::string, std::string, std::less<>> read_contig_aliases(const std::string& path) {
  data::LineReader in(path);
  std::map<std::string, std::string, std::less<>> aliases;
  std::map<std::string, int64_t, std::less<>> lines;
  std::string line;
  while (in.next(line)) {
    if (data::is_blank(line) || line.starts_with('#')) continue;
    const std::vector<std::string_view> fields = whitespace_fields(line);
    if (fields.size() != 2) {
      throw data::DataError(
          fmt::format("{}:{}: {} name(s); an alias line is 'VARIANTS_NAME<TAB>FASTA_NAME': '{}'",
                      path, in.line_number(), fields.size(), data::excerpt(line)));
    }
    const auto [it, added] = aliases.emplace(std::string(fields[0]), std::string(fields[1]));
    if (!added) {
      throw data::DataError(fmt::format("{}:{}: '{}' is given an alias twice (also line {})", path,
                                        in.line_number(), fields[0], lines[it->first]));
    }
    lines[it->first] = in.line_number();
  }
  return aliases;
}

ContigNames::ContigNames(const std::vector<data::Contig>& contigs,
                         std::map<std::string, std::string, std::less<>> aliases,
                         const std::string& alias_file)
    : aliases_(std::move(aliases)) {
  for (size_t i = 0; i < contigs.size(); ++i) {
    names_.push_back(contigs[i].name);
    ids_.emplace(contigs[i].name, static_cast<int>(i));
  }
  for (const auto& [from, to] : aliases_) {
    if (ids_.find(to) == ids_.end()) {
      throw data::DataError(fmt::format(
          "contig alias file '{}': '{}' maps to '{}', which is not a record of the FASTA",
          alias_file, from, to));
    }
  }
}

int ContigNames::resolve(std::string_view name) const {
  if (const auto alias = aliases_.find(name); alias != aliases_.end()) {
    return ids_.find(alias->second)->second;
  }
  const auto it = ids_.find(name);
  return it == ids_.end() ? -1 : it->second;
}

std::string ContigNames::explain_missing(std::string_view name, const std::string& fasta) const {
  // The FASTA's name for this contig when the two differ by a "chr" prefix.
  std::string other;
  bool fasta_has_prefix = false;
  if (name.starts_with("chr") && ids_.count(name.substr(3)) > 0) {
    other = std::string(name.substr(3));
  } else if (ids_.count("chr" + std::string(name)) > 0) {
    other = "chr" + std::string(name);
    fasta_has_prefix = true;
  }
  if (!other.empty()) {
    const std::string awk = fasta_has_prefix
                                ? R"(awk -v OFS='\t' '/^chr/ {print substr($1, 4), $1}')"
                                : R"(awk -v OFS='\t' '{print "chr" $1, $1}')";
    return fmt::format(
        "contig '{}' is not in FASTA '{}', which calls it '{}': the variants name contigs {} a "
        "'chr' prefix and the FASTA {}. Map the names with a contig alias file of "
        "'VARIANTS_NAME<TAB>FASTA_NAME' lines (--chrom-alias), e.g. written by `{} {}.fai > "
        "aliases.tsv`",
        name, fasta, other, fasta_has_prefix ? "without" : "with",
        fasta_has_prefix ? "with it" : "without it", awk, fasta);
  }
  std::string listed;
  const size_t shown = std::min<size_t>(names_.size(), 8);
  for (size_t i = 0; i < shown; ++i) listed += (i ? ", " : "") + names_[i];
  if (names_.size() > shown) listed += fmt::format(", ... ({} in all)", names_.size());
  return fmt::format(
      "contig '{}' is not in FASTA '{}' (its records: {}); is the FASTA the variants' genome "
      "assembly? A contig alias file (--chrom-alias) maps other names",
      name, fasta, listed);
}

}  // namespace strand::variants
