// The files score_variants() writes: a TSV of one row per ALT, or the input VCF/BCF with the
// scores as INFO fields (Number=A), bgzipped and indexed. Both are written to a temporary file
// beside the target and renamed over it on commit(), so a failed or interrupted run leaves
// nothing behind.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "variants/variant_scorer.h"

namespace strand::variants {

/// The kind of file a path asks for, by its extension.
enum class ScoreFileFormat {
  kTsv,    ///< any other name, or "-" (standard output)
  kVcf,    ///< .vcf: plain text, not indexed
  kVcfGz,  ///< .vcf.gz or .vcf.bgz: BGZF with a tabix index (.tbi)
  kBcf,    ///< .bcf: BCF with a CSI index (.csi)
};

/// The format `path` asks for (case-insensitive extension).
ScoreFileFormat score_file_format(const std::string& path);

/// The INFO key a column is written under: its name with every character VCF does not allow
/// in a key (letters, digits, '_' and '.'; not a digit first) replaced by '_'.
std::string info_key(const std::string& column);

/// A sink writing `path` in the format its extension asks for. "-" writes a TSV to `stdout_stream`
/// (as it goes: nothing to take back). `source` (e.g. the model's path) goes into a VCF header's
/// ##strand_variants line. A VCF/BCF needs VCF/BCF input, and an indexed one (.vcf.gz, .bcf)
/// input sorted by position within each contig, with each contig's records together: a record
/// out of order is a DataError naming its line. An INFO key the input already declares other
/// than Number=A, Type=Float is an error.
std::unique_ptr<VariantScoreSink> open_score_file(const std::string& path,
                                                  std::ostream* stdout_stream = nullptr,
                                                  std::string source = "");

}  // namespace strand::variants
