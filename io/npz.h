// NumPy .npz archives, written as a stream: each array's values are appended in order, so an
// array larger than memory (contribution scores of 100,000 sequences) never exists whole. The
// file is a ZIP of stored (uncompressed) .npy members, as numpy.savez writes it: numpy.load,
// TF-MoDISco-lite (`modisco motifs -s ohe.npz -a shap.npz`, which reads "arr_0") and any ZIP
// tool read it. Members carry a data descriptor (their CRC is known only at the end) and ZIP64
// records where sizes or offsets pass 4 GiB. The archive is published atomically on commit().
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/shape.h"

namespace strand::io {

/// The element types an NpzWriter array can hold.
enum class NpyType {
  kFloat32,  ///< '<f4'
  kUInt8,    ///< '|u1'
  kInt64,    ///< '<i8'
};

/// Writes an .npz archive array by array, values streamed in C order.
class NpzWriter {
 public:
  /// Opens a temporary file beside `path` (io/atomic_file.h). Throws naming the path when it
  /// cannot be created.
  explicit NpzWriter(std::filesystem::path path);
  ~NpzWriter();
  NpzWriter(const NpzWriter&) = delete;
  NpzWriter& operator=(const NpzWriter&) = delete;

  /// Starts the member `name`.npy (name: letters, digits, '_') of `type` and `shape`; exactly
  /// numel(shape) values must follow through append() before the next begin_array() or
  /// commit().
  void begin_array(const std::string& name, NpyType type, const Shape& shape);
  /// Appends values of a kFloat32 array.
  void append(std::span<const float> values);
  /// Appends values of a kUInt8 array.
  void append(std::span<const uint8_t> values);
  /// Appends values of a kInt64 array.
  void append(std::span<const int64_t> values);
  /// Ends the last array and publishes the archive. Throws when an array is short of values.
  void commit();

  /// Members at or above this many bytes (or past this offset) get ZIP64 records. Tests lower
  /// it to exercise the ZIP64 layout on small files; the ZIP format's own limit by default.
  void set_zip64_threshold(uint64_t bytes) { zip64_threshold_ = bytes; }

 private:
  struct Member;
  void append_bytes(const void* data, uint64_t size, NpyType type);
  void end_array();
  void write(const void* data, uint64_t size);

  std::filesystem::path path_;
  struct Output;
  std::unique_ptr<Output> output_;
  std::vector<Member> members_;
  uint64_t offset_ = 0;  // bytes written so far
  uint64_t zip64_threshold_ = 0xFFFFFFFFull;
};

/// One array of an .npz archive as read back by read_npz().
struct NpyArray {
  std::string name;         ///< the member's name without ".npy"
  std::string descr;        ///< numpy's type string, e.g. "<f4"
  Shape shape;              ///< C order
  std::vector<char> bytes;  ///< the values, little-endian
};

/// Reads every array of an .npz archive of stored members (what NpzWriter and numpy.savez
/// write), checking each member's CRC. For tests and small files: the values are held in
/// memory. Throws naming the file and what is wrong.
std::vector<NpyArray> read_npz(const std::filesystem::path& path);

}  // namespace strand::io
