// NpzWriter: a streamed ZIP of stored .npy members (data descriptors, ZIP64 where needed), and
// read_npz(), its reader for tests. Layouts: PKWARE APPNOTE 6.3 sections 4.3 and 4.5; the .npy
// header: numpy/lib/format.py (version 1.0, padded to 64 bytes).
#include "io/npz.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "io/atomic_file.h"

namespace strand::io {
namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kDataDescriptorSignature = 0x08074b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint16_t kFlagDataDescriptor = 0x0008;
constexpr uint16_t kVersionPlain = 20;
constexpr uint16_t kVersionZip64 = 45;
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, as numpy.savez's default
constexpr uint32_t kMax32 = 0xFFFFFFFFu;
constexpr size_t kBufferBytes = size_t{1} << 20;

// Little-endian fields appended to a byte buffer.
void put16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>(v >> 8));
}
void put32(std::string& out, uint32_t v) {
  put16(out, static_cast<uint16_t>(v & 0xFFFF));
  put16(out, static_cast<uint16_t>(v >> 16));
}
void put64(std::string& out, uint64_t v) {
  put32(out, static_cast<uint32_t>(v & kMax32));
  put32(out, static_cast<uint32_t>(v >> 32));
}

const char* descr_of(NpyType type) {
  switch (type) {
    case NpyType::kFloat32:
      return "<f4";
    case NpyType::kUInt8:
      return "|u1";
    case NpyType::kInt64:
      return "<i8";
  }
  return "<f4";
}

uint64_t item_size(NpyType type) {
  switch (type) {
    case NpyType::kFloat32:
      return 4;
    case NpyType::kUInt8:
      return 1;
    case NpyType::kInt64:
      return 8;
  }
  return 4;
}

// The .npy version 1.0 header: magic, version, length, then the dict padded with spaces and a
// newline so that the values start at a multiple of 64 bytes.
std::string npy_header(NpyType type, const Shape& shape) {
  // numpy's tuple text: "()", "(3,)", "(3, 4)".
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += fmt::format("{}{}", i ? ", " : "", shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                 descr_of(type), dims);
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string header("\x93NUMPY\x01\x00", 8);
  put16(header, static_cast<uint16_t>(dict.size()));
  return header + dict;
}

}  // namespace

struct NpzWriter::Output {
  AtomicFileWriter file;
  std::string buffer;
  explicit Output(const std::filesystem::path& path) : file(path) {}
  void flush() {
    file.write(std::span<const std::byte>(reinterpret_cast<const std::byte*>(buffer.data()),
                                          buffer.size()));
    buffer.clear();
  }
};

struct NpzWriter::Member {
  std::string file_name;  // "arr_0.npy"
  NpyType type = NpyType::kFloat32;
  uint64_t header_offset = 0;  // of its local header
  uint64_t size = 0;           // the .npy bytes: header + values
  uint64_t written = 0;        // .npy bytes so far
  uint32_t crc = 0;
  bool zip64 = false;  // sizes in ZIP64 fields
  bool open = true;
};

NpzWriter::NpzWriter(std::filesystem::path path)
    : path_(std::move(path)), output_(std::make_unique<Output>(path_)) {
  output_->buffer.reserve(kBufferBytes);
}

NpzWriter::~NpzWriter() = default;

void NpzWriter::write(const void* data, uint64_t size) {
  const char* bytes = static_cast<const char*>(data);
  output_->buffer.append(bytes, size);
  if (output_->buffer.size() >= kBufferBytes) output_->flush();
  offset_ += size;
}

void NpzWriter::begin_array(const std::string& name, NpyType type, const Shape& shape) {
  if (!members_.empty() && members_.back().open) end_array();
  if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
      })) {
    throw std::invalid_argument(fmt::format(
        "'{}': npz array name '{}' must be letters, digits or '_'", path_.string(), name));
  }
  for (const Member& member : members_) {
    if (member.file_name == name + ".npy") {
      throw std::invalid_argument(
          fmt::format("'{}': npz array '{}' is written twice", path_.string(), name));
    }
  }
  const std::string header = npy_header(type, shape);
  Member member;
  member.file_name = name + ".npy";
  member.type = type;
  member.header_offset = offset_;
  member.size = header.size() + static_cast<uint64_t>(numel(shape)) * item_size(type);
  member.zip64 = member.size >= zip64_threshold_;
  // Local header: CRC and sizes follow in the data descriptor (flag bit 3); ZIP64 members say
  // so with 0xFFFFFFFF sizes and a ZIP64 extra field, as Python's zipfile writes a stream.
  std::string local;
  put32(local, kLocalHeaderSignature);
  put16(local, member.zip64 ? kVersionZip64 : kVersionPlain);
  put16(local, kFlagDataDescriptor);
  put16(local, 0);  // stored
  put16(local, 0);  // time
  put16(local, kDosDate);
  put32(local, 0);  // CRC: in the descriptor
  put32(local, member.zip64 ? kMax32 : 0);
  put32(local, member.zip64 ? kMax32 : 0);
  put16(local, static_cast<uint16_t>(member.file_name.size()));
  put16(local, member.zip64 ? 20 : 0);
  local += member.file_name;
  if (member.zip64) {
    put16(local, 0x0001);
    put16(local, 16);
    put64(local, 0);
    put64(local, 0);
  }
  write(local.data(), local.size());
  members_.push_back(std::move(member));
  members_.back().crc = static_cast<uint32_t>(crc32_z(0, nullptr, 0));
  append_bytes(header.data(), header.size(), type);
}

void NpzWriter::append_bytes(const void* data, uint64_t size, NpyType type) {
  if (members_.empty() || !members_.back().open) {
    throw std::logic_error(
        fmt::format("'{}': npz values appended outside an array", path_.string()));
  }
  Member& member = members_.back();
  if (type != member.type) {
    throw std::logic_error(fmt::format("'{}': npz array '{}' holds {}, not {}", path_.string(),
                                       member.file_name, descr_of(member.type), descr_of(type)));
  }
  if (member.written + size > member.size) {
    throw std::logic_error(fmt::format("'{}': more values than npz array '{}' holds",
                                       path_.string(), member.file_name));
  }
  member.crc = static_cast<uint32_t>(
      crc32_z(member.crc, static_cast<const unsigned char*>(data), static_cast<size_t>(size)));
  member.written += size;
  write(data, size);
}

void NpzWriter::append(std::span<const float> values) {
  append_bytes(values.data(), values.size_bytes(), NpyType::kFloat32);
}
void NpzWriter::append(std::span<const uint8_t> values) {
  append_bytes(values.data(), values.size_bytes(), NpyType::kUInt8);
}
void NpzWriter::append(std::span<const int64_t> values) {
  append_bytes(values.data(), values.size_bytes(), NpyType::kInt64);
}

void NpzWriter::end_array() {
  Member& member = members_.back();
  if (member.written != member.size) {
    throw std::logic_error(fmt::format("'{}': npz array '{}' got {} of its {} bytes",
                                       path_.string(), member.file_name, member.written,
                                       member.size));
  }
  std::string descriptor;
  put32(descriptor, kDataDescriptorSignature);
  put32(descriptor, member.crc);
  if (member.zip64) {
    put64(descriptor, member.size);
    put64(descriptor, member.size);
  } else {
    put32(descriptor, static_cast<uint32_t>(member.size));
    put32(descriptor, static_cast<uint32_t>(member.size));
  }
  write(descriptor.data(), descriptor.size());
  member.open = false;
}

void NpzWriter::commit() {
  if (!members_.empty() && members_.back().open) end_array();
  const uint64_t directory_offset = offset_;
  std::string directory;
  for (const Member& member : members_) {
    const bool big_size = member.zip64;
    const bool big_offset = member.header_offset >= zip64_threshold_;
    std::string extra;
    if (big_size || big_offset) {
      std::string fields;
      if (big_size) {
        put64(fields, member.size);  // uncompressed
        put64(fields, member.size);  // compressed
      }
      if (big_offset) put64(fields, member.header_offset);
      put16(extra, 0x0001);
      put16(extra, static_cast<uint16_t>(fields.size()));
      extra += fields;
    }
    put32(directory, kCentralHeaderSignature);
    put16(directory, (big_size || big_offset) ? kVersionZip64 : kVersionPlain);  // made by
    put16(directory, (big_size || big_offset) ? kVersionZip64 : kVersionPlain);  // needed
    put16(directory, kFlagDataDescriptor);
    put16(directory, 0);
    put16(directory, 0);
    put16(directory, kDosDate);
    put32(directory, member.crc);
    put32(directory, big_size ? kMax32 : static_cast<uint32_t>(member.size));
    put32(directory, big_size ? kMax32 : static_cast<uint32_t>(member.size));
    put16(directory, static_cast<uint16_t>(member.file_name.size()));
    put16(directory, static_cast<uint16_t>(extra.size()));
    put16(directory, 0);  // comment
    put16(directory, 0);  // disk
    put16(directory, 0);  // internal attributes
    put32(directory, 0);  // external attributes
    put32(directory, big_offset ? kMax32 : static_cast<uint32_t>(member.header_offset));
    directory += member.file_name;
    directory += extra;
  }
  const uint64_t directory_size = directory.size();
  const uint64_t count = members_.size();
  const bool zip64_end =
      directory_offset >= zip64_threshold_ || directory_size >= zip64_threshold_ || count >= 0xFFFF;
  if (zip64_end) {
    const uint64_t record_offset = directory_offset + directory_size;
    put32(directory, kZip64EndSignature);
    put64(directory, 44);  // the record's size after this field
    put16(directory, kVersionZip64);
    put16(directory, kVersionZip64);
    put32(directory, 0);
    put32(directory, 0);
    put64(directory, count);
    put64(directory, count);
    put64(directory, directory_size);
    put64(directory, directory_offset);
    put32(directory, kZip64LocatorSignature);
    put32(directory, 0);
    put64(directory, record_offset);
    put32(directory, 1);
  }
  put32(directory, kEndSignature);
  put16(directory, 0);
  put16(directory, 0);
  put16(directory, zip64_end ? 0xFFFF : static_cast<uint16_t>(count));
  put16(directory, zip64_end ? 0xFFFF : static_cast<uint16_t>(count));
  put32(directory, zip64_end ? kMax32 : static_cast<uint32_t>(directory_size));
  put32(directory, zip64_end ? kMax32 : static_cast<uint32_t>(directory_offset));
  put16(directory, 0);
  write(directory.data(), directory.size());
  output_->flush();
  output_->file.commit();
}

// ---- Reading (tests) ------------------------------------------------------------------------

namespace {

uint64_t get(const std::string& bytes, size_t at, int width, const std::filesystem::path& path) {
  if (at + static_cast<size_t>(width) > bytes.size()) {
    throw std::runtime_error(
        fmt::format("'{}': truncated ZIP record at byte {}", path.string(), at));
  }
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
  }
  return value;
}

// The value of `key` in a .npy header dict: the text after "'key': " up to the next ',' or '}'
// outside parentheses.
std::string dict_value(const std::string& dict, const std::string& key) {
  const std::string needle = "'" + key + "': ";
  const size_t at = dict.find(needle);
  if (at == std::string::npos) return "";
  const size_t start = at + needle.size();
  size_t end = start;
  int depth = 0;
  for (; end < dict.size(); ++end) {
    const char c = dict[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  return dict.substr(start, end - start);
}

}  // namespace

std::vector<NpyArray> read_npz(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot open '{}'", path.string()));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The end record: the last signature 0x06054b50 (no archive comment is written).
  if (bytes.size() < 22)
    throw std::runtime_error(fmt::format("'{}': not a ZIP file", path.string()));
  size_t end = bytes.size() - 22;
  if (get(bytes, end, 4, path) != kEndSignature) {
    throw std::runtime_error(fmt::format("'{}': no ZIP end record", path.string()));
  }
  uint64_t count = get(bytes, end + 10, 2, path);
  uint64_t directory_offset = get(bytes, end + 16, 4, path);
  if (directory_offset == kMax32 || count == 0xFFFF) {
    const size_t locator = end - 20;
    if (get(bytes, locator, 4, path) != kZip64LocatorSignature) {
      throw std::runtime_error(fmt::format("'{}': no ZIP64 locator", path.string()));
    }
    const size_t record = get(bytes, locator + 8, 8, path);
    if (get(bytes, record, 4, path) != kZip64EndSignature) {
      throw std::runtime_error(fmt::format("'{}': no ZIP64 end record", path.string()));
    }
    count = get(bytes, record + 32, 8, path);
    directory_offset = get(bytes, record + 48, 8, path);
  }
  std::vector<NpyArray> arrays;
  size_t at = directory_offset;
  for (uint64_t i = 0; i < count; ++i) {
    if (get(bytes, at, 4, path) != kCentralHeaderSignature) {
      throw std::runtime_error(
          fmt::format("'{}': bad central directory entry {}", path.string(), i));
    }
    const uint32_t crc = static_cast<uint32_t>(get(bytes, at + 16, 4, path));
    uint64_t size = get(bytes, at + 24, 4, path);
    const size_t name_length = get(bytes, at + 28, 2, path);
    const size_t extra_length = get(bytes, at + 30, 2, path);
    const size_t comment_length = get(bytes, at + 32, 2, path);
    uint64_t header_offset = get(bytes, at + 42, 4, path);
    const std::string name = bytes.substr(at + 46, name_length);
    size_t extra = at + 46 + name_length;
    const size_t extra_end = extra + extra_length;
    while (extra + 4 <= extra_end) {
      const uint64_t id = get(bytes, extra, 2, path);
      const uint64_t length = get(bytes, extra + 2, 2, path);
      if (id == 0x0001) {
        size_t field = extra + 4;
        if (size == kMax32) {
          size = get(bytes, field, 8, path);
          field += 16;  // uncompressed, then compressed
        }
        if (header_offset == kMax32) header_offset = get(bytes, field, 8, path);
      }
      extra += 4 + length;
    }
    at = extra_end + comment_length;
    if (get(bytes, header_offset, 4, path) != kLocalHeaderSignature) {
      throw std::runtime_error(fmt::format("'{}': bad local header of '{}'", path.string(), name));
    }
    const size_t data = header_offset + 30 + get(bytes, header_offset + 26, 2, path) +
                        get(bytes, header_offset + 28, 2, path);
    if (data + size > bytes.size()) {
      throw std::runtime_error(fmt::format("'{}': member '{}' is truncated", path.string(), name));
    }
    const uint32_t actual = static_cast<uint32_t>(
        crc32_z(0, reinterpret_cast<const unsigned char*>(bytes.data() + data), size));
    if (actual != crc) {
      throw std::runtime_error(fmt::format("'{}': member '{}' fails its CRC", path.string(), name));
    }
    if (bytes.compare(data, 6, "\x93NUMPY") != 0) {
      throw std::runtime_error(fmt::format("'{}': member '{}' is no .npy", path.string(), name));
    }
    const size_t dict_length = get(bytes, data + 8, 2, path);
    const std::string dict = bytes.substr(data + 10, dict_length);
    NpyArray array;
    array.name = name.ends_with(".npy") ? name.substr(0, name.size() - 4) : name;
    const std::string descr = dict_value(dict, "descr");
    array.descr = descr.size() >= 2 ? descr.substr(1, descr.size() - 2) : descr;
    std::string shape = dict_value(dict, "shape");
    for (char& c : shape) {
      if (c == '(' || c == ')' || c == ',') c = ' ';
    }
    size_t p = 0;
    while (p < shape.size()) {
      while (p < shape.size() && shape[p] == ' ') ++p;
      if (p == shape.size()) break;
      size_t q = p;
      while (q < shape.size() && shape[q] != ' ') ++q;
      array.shape.push_back(std::stoll(shape.substr(p, q - p)));
      p = q;
    }
    const size_t values = data + 10 + dict_length;
    array.bytes.assign(bytes.begin() + static_cast<std::ptrdiff_t>(values),
                       bytes.begin() + static_cast<std::ptrdiff_t>(data + size));
    arrays.push_back(std::move(array));
  }
  return arrays;
}

}  // namespace strand::io
