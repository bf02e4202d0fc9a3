// ContigNames: the FASTA record a variants file's contig name refers to, through an optional
// alias file, with an explanation for names that differ only by a "chr" prefix.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "data/fasta/fasta_reader.h"

namespace strand::variants {

/// Reads a contig alias file: one `VARIANTS_NAME FASTA_NAME` pair per line, separated by a tab
/// or spaces (bcftools' --rename-chrs format); blank lines and '#' lines are skipped. Throws
/// DataError naming the file and line for a line without exactly two names or a name given
/// twice.
std::map<std::string, std::string, std::less<>> read_contig_aliases(const std::string& path);

/// Resolves contig names of a variants file against a FASTA's records.
class ContigNames {
 public:
  /// `contigs`: the FASTA's records; `aliases`: variants-file name -> FASTA name. Throws
  /// DataError when an alias names a contig the FASTA lacks (`alias_file` names the file).
  ContigNames(const std::vector<data::Contig>& contigs,
              std::map<std::string, std::string, std::less<>> aliases = {},
              const std::string& alias_file = "");

  /// The FASTA record index for `name` (through the aliases), or -1 when there is none.
  int resolve(std::string_view name) const;

  /// Why `name` has no FASTA record, and what to do: the FASTA's name for it when the two
  /// differ by a "chr" prefix (with a one-line command that writes an alias file), else a few
  /// of the FASTA's contigs.
  std::string explain_missing(std::string_view name, const std::string& fasta) const;

  /// The variants-file names that the aliases map to FASTA records (to declare in a header).
  const std::map<std::string, std::string, std::less<>>& aliases() const { return aliases_; }

 private:
  std::vector<std::string> names_;  // the FASTA's records in order
  std::map<std::string, int, std::less<>> ids_;
  std::map<std::string, std::string, std::less<>> aliases_;
};

}  // namespace strand::variants
