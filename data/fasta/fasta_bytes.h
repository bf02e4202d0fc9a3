// FastaBytes: the uncompressed bytes of a plain or BGZF FASTA by offset, as a .fai counts them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace strand::data {

/// Reads byte ranges of a FASTA: plain files with pread, BGZF files through their .gzi (offsets
/// are always uncompressed). Not thread-safe (a BGZF handle has a position): one per thread.
class FastaBytes {
 public:
  /// Opens `fasta`; `gzi` empty means a plain file. nullptr when it cannot be opened, with the
  /// reason in *error (e.g. "No such file or directory", "its .gzi 'x.gzi' cannot be read").
  static std::unique_ptr<FastaBytes> open(const std::string& fasta, const std::string& gzi,
                                          std::string* error);
  virtual ~FastaBytes() = default;

  /// Replaces `out` with up to n bytes at `offset`: fewer at the end of the file, none past it.
  /// false on a read error (I/O error, corrupt BGZF block).
  virtual bool read(int64_t offset, int64_t n, std::string& out) = 0;
};

}  // namespace strand::data
