// safetensors encoding/decoding with strict validation.
#include "io/safetensors.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/json_limits.h"

namespace strand::io {
namespace {

constexpr std::string_view kMetadataKey = "__metadata__";
constexpr std::size_t kHeaderPrefix = 8;
// Same cap as the reference implementation: a header this large is corrupt, not a checkpoint.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

std::runtime_error error(std::string_view source, std::string_view message) {
  return std::runtime_error(fmt::format("safetensors '{}': {}", source, message));
}

std::runtime_error tensor_error(std::string_view source, std::string_view tensor,
                                std::string_view message) {
  return std::runtime_error(
      fmt::format("safetensors '{}': tensor '{}': {}", source, tensor, message));
}

// Element count times element size, or nullopt-equivalent false on overflow or negative dims.
bool byte_size(const std::vector<std::int64_t>& shape, std::size_t elem, std::uint64_t& out) {
  std::uint64_t n = elem;
  for (const auto d : shape) {
    if (d < 0) {
      return false;
    }
    const auto ud = static_cast<std::uint64_t>(d);
    if (ud != 0 && n > std::numeric_limits<std::uint64_t>::max() / ud) {
      return false;
    }
    n *= ud;
  }
  out = n;
  return true;
}

// The bytes a shape needs, for messages: the product, or "more than 2^64 - 1" when it overflows
// (the product itself would wrap, and a wrapped count reads as a lie).
std::string byte_size_text(const std::vector<std::int64_t>& shape, std::size_t elem) {
  std::uint64_t bytes = 0;
  if (byte_size(shape, elem, bytes)) return std::to_string(bytes);
  return fmt::format("more than {}", std::numeric_limits<std::uint64_t>::max());
}

}  // namespace

const SafetensorsEntry& SafetensorsFile::at(std::string_view name) const {
  for (const auto& e : entries) {
    if (e.name == name) {
      return e;
    }
  }
  throw std::out_of_range(fmt::format("safetensors: no tensor named '{}'", name));
}

std::size_t safetensors_dtype_size(std::string_view dtype) {
  if (dtype == "F32" || dtype == "I32") {
    return 4;
  }
  if (dtype == "F64" || dtype == "I64") {
    return 8;
  }
  if (dtype == "U8") {
    return 1;
  }
  throw std::invalid_argument(
      fmt::format("unknown safetensors dtype '{}' (expected F32, F64, U8, I32 or I64)", dtype));
}

std::vector<std::byte> encode_safetensors(std::span<const SafetensorsEntry> entries,
                                          const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) {
    header[std::string(kMetadataKey)] = metadata;
  }
  std::uint64_t offset = 0;
  for (const auto& e : entries) {
    if (e.name.empty() || e.name == kMetadataKey) {
      throw std::invalid_argument(fmt::format("safetensors: invalid tensor name '{}'", e.name));
    }
    if (header.contains(e.name)) {
      throw std::invalid_argument(fmt::format("safetensors: duplicate tensor name '{}'", e.name));
    }
    std::size_t elem = 0;
    try {
      elem = safetensors_dtype_size(e.dtype);
    } catch (const std::invalid_argument& ex) {
      throw std::invalid_argument(fmt::format("safetensors: tensor '{}': {}", e.name, ex.what()));
    }
    std::uint64_t expected = 0;
    if (!byte_size(e.shape, elem, expected) || expected != e.data.size()) {
      throw std::invalid_argument(fmt::format(
          "safetensors: tensor '{}': shape [{}] of {} needs {} bytes, data has {}", e.name,
          fmt::join(e.shape, ", "), e.dtype, byte_size_text(e.shape, elem), e.data.size()));
    }
    header[e.name] = {
        {"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {offset, offset + e.data.size()}}};
    offset += e.data.size();
  }
  std::string json = header.dump();
  // Pad so the data section starts 8-byte aligned (8-byte prefix + header).
  json.append((8 - json.size() % 8) % 8, ' ');

  std::vector<std::byte> out;
  out.reserve(kHeaderPrefix + json.size() + offset);
  const std::uint64_t n = json.size();
  for (std::size_t i = 0; i < kHeaderPrefix; ++i) {
    out.push_back(static_cast<std::byte>((n >> (8 * i)) & 0xff));
  }
  const auto* p = reinterpret_cast<const std::byte*>(json.data());
  out.insert(out.end(), p, p + json.size());
  for (const auto& e : entries) {
    out.insert(out.end(), e.data.begin(), e.data.end());
  }
  return out;
}

namespace {

// A tensor's bytes in the data section, [begin, end).
struct DataSpan {
  std::uint64_t begin, end;
  std::string name;
};

// The header's JSON (bytes [8, 8 + header_len) of the file), refusing duplicate top-level keys
// and deep nesting.
nlohmann::json parse_header(std::string_view header_text, std::string_view source) {
  // nlohmann keeps the last of duplicate keys silently, so watch top-level keys while parsing.
  std::set<std::string> seen;
  std::string duplicate;
  const auto watch = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (opens_too_deep(depth, event)) {
      throw error(source, fmt::format("header nests objects and arrays deeper than {} levels",
                                      kMaxJsonNesting));
    }
    if (depth == 1 && event == nlohmann::json::parse_event_t::key) {
      const auto key = parsed.get<std::string>();
      if (!seen.insert(key).second && duplicate.empty()) {
        duplicate = key;
      }
    }
    return true;
  };
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_text, watch);
  } catch (const nlohmann::json::exception& ex) {
    throw error(source, fmt::format("header is not valid JSON: {}", ex.what()));
  }
  if (!duplicate.empty()) {
    throw tensor_error(source, duplicate, "name appears more than once in the header");
  }
  if (!header.is_object()) {
    throw error(source, fmt::format("header must be a JSON object, found {}", header.type_name()));
  }
  return header;
}

void read_metadata(const nlohmann::json& value, std::string_view source,
                   std::map<std::string, std::string>& metadata) {
  if (!value.is_object()) {
    throw error(source, "__metadata__ must be an object of strings");
  }
  for (const auto& [mk, mv] : value.items()) {
    if (!mv.is_string()) {
      throw error(source, fmt::format("__metadata__ value of '{}' must be a string, found {}", mk,
                                      mv.type_name()));
    }
    metadata[mk] = mv.get<std::string>();
  }
}

std::vector<std::int64_t> read_shape(const nlohmann::json& shape, std::string_view source,
                                     const std::string& key) {
  if (!shape.is_array()) {
    throw tensor_error(source, key, "shape must be an array");
  }
  std::vector<std::int64_t> out;
  for (const auto& d : shape) {
    if (!d.is_number_unsigned()) {
      throw tensor_error(source, key,
                         fmt::format("shape must hold non-negative integers, found {}", d.dump()));
    }
    if (d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      throw tensor_error(source, key,
                         fmt::format("shape dimension {} exceeds {}", d.dump(), INT64_MAX));
    }
    out.push_back(d.get<std::int64_t>());
  }
  return out;
}

// data_offsets [begin, end] of `key`, inside the data section of `data_size` bytes.
DataSpan read_offsets(const nlohmann::json& offsets, std::uint64_t data_size,
                      std::string_view source, const std::string& key) {
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    throw tensor_error(source, key,
                       fmt::format("data_offsets must be [begin, end] non-negative integers, "
                                   "found {}",
                                   offsets.dump()));
  }
  const auto begin = offsets[0].get<std::uint64_t>();
  const auto end = offsets[1].get<std::uint64_t>();
  if (begin > end || end > data_size) {
    throw tensor_error(source, key,
                       fmt::format("data_offsets [{}, {}] outside the {}-byte data section", begin,
                                   end, data_size));
  }
  return {begin, end, key};
}

// The header entry `key` of a tensor, its bytes copied from `data`; its span into `spans`.
SafetensorsEntry read_entry(const std::string& key, const nlohmann::json& value,
                            std::span<const std::byte> data, std::string_view source,
                            std::vector<DataSpan>& spans) {
  // The writer refuses empty names, so the reader does too: a file strand reads can always
  // be written back (found by fuzz/fuzz_safetensors).
  if (key.empty()) {
    throw tensor_error(source, key, "tensor name must not be empty");
  }
  if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
      !value.contains("data_offsets")) {
    throw tensor_error(source, key, "entry must be an object with dtype, shape, data_offsets");
  }
  SafetensorsEntry e;
  e.name = key;
  const auto& dtype = value["dtype"];
  if (!dtype.is_string()) {
    throw tensor_error(source, key, "dtype must be a string");
  }
  e.dtype = dtype.get<std::string>();
  std::size_t elem = 0;
  try {
    elem = safetensors_dtype_size(e.dtype);
  } catch (const std::invalid_argument& ex) {
    throw tensor_error(source, key, ex.what());
  }
  const auto& shape = value["shape"];
  e.shape = read_shape(shape, source, key);
  const DataSpan span = read_offsets(value["data_offsets"], data.size(), source, key);
  const auto [begin, end, name] = span;
  std::uint64_t expected = 0;
  if (!byte_size(e.shape, elem, expected) || expected != end - begin) {
    throw tensor_error(
        source, key,
        fmt::format("shape {} of {} needs {} bytes but data_offsets [{}, {}] "
                    "span {}",
                    shape.dump(), e.dtype, byte_size_text(e.shape, elem), begin, end, end - begin));
  }
  const auto first = data.begin() + static_cast<std::ptrdiff_t>(begin);
  e.data.assign(first, first + static_cast<std::ptrdiff_t>(end - begin));
  spans.push_back(span);
  return e;
}

// The order of the spans by offset, checked to tile the data section of `data_size` bytes
// exactly: no overlap, no gap, nothing trailing.
std::vector<std::size_t> tiling_order(const std::vector<DataSpan>& spans, std::uint64_t data_size,
                                      std::string_view source) {
  std::vector<std::size_t> order(spans.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return spans[a].begin != spans[b].begin ? spans[a].begin < spans[b].begin
                                            : spans[a].end < spans[b].end;
  });
  std::uint64_t cursor = 0;
  for (const auto i : order) {
    if (spans[i].begin < cursor) {
      throw tensor_error(source, spans[i].name,
                         fmt::format("data_offsets [{}, {}] overlap the previous tensor ending at "
                                     "{}",
                                     spans[i].begin, spans[i].end, cursor));
    }
    if (spans[i].begin > cursor) {
      throw tensor_error(source, spans[i].name,
                         fmt::format("data_offsets [{}, {}] leave a gap after byte {}",
                                     spans[i].begin, spans[i].end, cursor));
    }
    cursor = spans[i].end;
  }
  if (cursor != data_size) {
    throw error(source, fmt::format("tensors cover {} bytes but the data section has {}", cursor,
                                    data_size));
  }
  return order;
}

}  // namespace

SafetensorsFile decode_safetensors(std::span<const std::byte> bytes, std::string_view source) {
  if (bytes.size() < kHeaderPrefix) {
    throw error(source, fmt::format("file is {} bytes, too short for the 8-byte header length",
                                    bytes.size()));
  }
  std::uint64_t header_len = 0;
  for (std::size_t i = 0; i < kHeaderPrefix; ++i) {
    header_len |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  }
  const std::uint64_t available = bytes.size() - kHeaderPrefix;
  if (header_len > available || header_len > kMaxHeaderBytes) {
    throw error(source, fmt::format("header length {} exceeds the {} bytes after the length field",
                                    header_len, available));
  }
  const nlohmann::json header = parse_header(
      std::string_view(reinterpret_cast<const char*>(bytes.data() + kHeaderPrefix), header_len),
      source);
  const auto data = bytes.subspan(kHeaderPrefix + header_len);
  SafetensorsFile file;
  std::vector<DataSpan> spans;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      read_metadata(value, source, file.metadata);
    } else {
      file.entries.push_back(read_entry(key, value, data, source, spans));
    }
  }
  const std::vector<std::size_t> order = tiling_order(spans, data.size(), source);
  std::vector<SafetensorsEntry> sorted;
  sorted.reserve(order.size());
  for (const auto i : order) {
    sorted.push_back(std::move(file.entries[i]));
  }
  file.entries = std::move(sorted);
  return file;
}

void write_safetensors(const std::filesystem::path& path, std::span<const SafetensorsEntry> entries,
                       const std::map<std::string, std::string>& metadata) {
  write_file_atomically(path, encode_safetensors(entries, metadata));
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    throw error(path.string(), "cannot open file");
  }
  const auto size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  std::vector<std::byte> bytes(size);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    throw error(path.string(), "read failed");
  }
  return decode_safetensors(bytes, path.string());
}

}  // namespace strand::io
