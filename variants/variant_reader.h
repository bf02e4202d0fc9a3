// VariantReader: the records of a VCF, bgzipped VCF, BCF (through HTSlib's VCF API) or
// chrombpnet's variant TSV (`chrom pos ref alt [id]`), one at a time, checked line by line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/fasta/fasta_reader.h"

struct bcf1_t;
struct bcf_hdr_t;

namespace strand::variants {

/// What a variants file is.
enum class VariantFormat {
  kVcf,  ///< VCF text, plain or (b)gzipped
  kBcf,  ///< BCF
  kTsv,  ///< chrombpnet's TSV: chrom, 1-based pos, ref, alt, optional id
};

/// "VCF", "BCF" or "TSV".
const char* format_name(VariantFormat format);

/// Frees an htslib record (bcf_destroy).
struct BcfRecordDeleter {
  void operator()(bcf1_t* record) const;
};
/// An owned htslib record.
using BcfRecordPtr = std::unique_ptr<bcf1_t, BcfRecordDeleter>;

/// One input record: a VCF/BCF line with its ALT alleles, or one TSV line (one ALT).
struct VariantRecord {
  std::string chrom;              ///< as the file names it
  int64_t position = 0;           ///< 1-based position of REF's first base
  std::string id;                 ///< the ID column; "." when none
  std::string ref;                ///< REF as written (TSV: "" for '-')
  std::vector<std::string> alts;  ///< the ALT alleles in order (TSV: one; "" for '-')
  int64_t line = 0;               ///< 1-based line of a text file, or record number of a BCF
  BcfRecordPtr raw;               ///< the htslib record (VCF/BCF input with keep_records)
};

/// How a reader treats what only some uses need.
struct VariantReaderOptions {
  /// Keep each record's htslib form in VariantRecord::raw (to write it back out).
  bool keep_records = false;
  /// Parse the FORMAT and sample columns (off: they are skipped, which is faster).
  bool keep_samples = false;
  /// An INFO or FORMAT tag that the header does not declare is an error (a VCF/BCF written
  /// from the records must declare every tag). Off: htslib's reading (the tag is accepted).
  bool require_declared_tags = false;
  /// Contigs declared in the VCF header when it lacks them (with their lengths), so that
  /// records written back out carry a header line for their contig.
  std::vector<data::Contig> declare_contigs;
};

/// Reads a variants file. The format comes from the content: HTSlib recognises VCF (plain,
/// gzip or BGZF) and BCF by their headers; any other text file is a TSV, except one named
/// .vcf or .vcf.gz (a VCF without its header: an error). Every malformed line is a DataError
/// naming the file and the line (BCF: the record number) and what was expected.
class VariantReader {
 public:
  /// Opens `path` and reads the VCF header. Throws DataError for a missing or unreadable file, a
  /// directory, a BGZF file without its end-of-file marker (truncated), a file named
  /// .vcf/.vcf.gz without a VCF header, or a header HTSlib cannot parse.
  explicit VariantReader(std::string path, VariantReaderOptions options = {});
  ~VariantReader();
  VariantReader(const VariantReader&) = delete;
  VariantReader& operator=(const VariantReader&) = delete;

  /// The next record; false at the end of the file. A VCF/BCF record with ALT '.' (a
  /// monomorphic site) comes with no ALT. Throws DataError for a malformed line: too few
  /// columns, a POS that is not a positive integer, a REF that is not DNA (A, C, G, T, N), an
  /// empty ALT entry, an ALT that is neither DNA nor symbolic (<DEL>, a breakend, '*'), or what
  /// HTSlib refuses.
  bool next(VariantRecord& record);

  /// The file as given.
  const std::string& path() const { return path_; }
  /// Its format.
  VariantFormat format() const { return format_; }
  /// The VCF header (VCF and BCF input), null for a TSV.
  const bcf_hdr_t* header() const;
  /// The contigs the header declares with a length (##contig=<ID=...,length=...>), in order.
  std::vector<data::Contig> declared_contigs() const;
  /// "FILE:LINE" (text) or "FILE record N" (BCF) for messages about `record`.
  std::string where(const VariantRecord& record) const;

 private:
  struct Handles;
  bool next_text_vcf(VariantRecord& record);
  bool next_bcf(VariantRecord& record);
  bool next_tsv(VariantRecord& record);
  void fill_from_htslib(VariantRecord& record);

  std::string path_;
  VariantReaderOptions options_;
  VariantFormat format_ = VariantFormat::kTsv;
  std::unique_ptr<Handles> handles_;
  int64_t line_ = 0;  // lines (text) or records (BCF) read so far
  bool tsv_header_checked_ = false;
};

/// Whether `allele` is DNA: one or more of A, C, G, T, N in either case.
bool is_dna_allele(std::string_view allele);

/// Whether an ALT is symbolic: <ID>, a breakend (with '[' or ']', or a leading or trailing '.'
/// after or before bases), or '*' (the spanning deletion, reported apart: is_spanning_deletion).
bool is_symbolic_allele(std::string_view allele);

/// Whether an ALT is '*', an allele removed by an overlapping deletion.
bool is_spanning_deletion(std::string_view allele);

}  // namespace strand::variants
