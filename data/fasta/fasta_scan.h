// One pass over a whole FASTA before strand indexes it: everything htslib would index wrongly
// (and then read misaligned) or refuse with only a log line becomes an error naming the line.
#pragma once

#include <string>

namespace strand::data {

/// Reads `fasta` (plain or BGZF) once and throws DataError "FILE:LINE: ..." for:
/// - a byte that is not a base in a sequence line: NUL and other control bytes, DEL, bytes
///   >= 0x80 ("binary data"), and spaces, tabs or CR followed by more bases on the same line
///   (htslib counts only the bases, so the record would be read misaligned);
/// - NUL or control bytes in a header line;
/// - a line of a record longer than the record's first line, a line after a shorter line or a
///   blank line in the same record, or a full-length line with a different number of bases
///   (all lines of a record but the last must match: htslib reads by line geometry);
/// - a duplicate record name (both lines named; htslib keeps the first and drops the rest);
/// - sequence before the first header, a record without sequence lines, a line holding only
///   spaces or tabs, FASTQ input ('@' first), a file with no record, a header over 1 MiB;
/// - "> name" or ">" headers unless `allow_loose_headers` (tools disagree on their names).
void check_fasta_content(const std::string& fasta, bool allow_loose_headers);

}  // namespace strand::data
