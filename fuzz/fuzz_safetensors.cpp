// libFuzzer target: a safetensors file read with read_safetensors() (the path checkpoints are
// loaded through).
//
// Expected: std::runtime_error whose message starts "safetensors '<file>'" (the reader's own
// errors). Findings: crashes, sanitizer reports, std::bad_alloc, any other exception, and for
// an accepted file: tensors whose bytes are not shape x dtype size, values that do not decode,
// entries that encode_safetensors() refuses, or a re-encoded file that decodes to anything
// else (tensors, order, bytes or metadata).
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "fmt/format.h"
#include "fuzz/fuzz_support.h"
#include "io/safetensors.h"

namespace {

using namespace strand;

uint64_t elements(const io::SafetensorsEntry& e) {
  uint64_t n = 1;
  for (const int64_t d : e.shape) n *= static_cast<uint64_t>(d);
  return n;
}

size_t decoded_count(const io::SafetensorsEntry& e) {
  if (e.dtype == "F32") return io::safetensors_values<float>(e).size();
  if (e.dtype == "F64") return io::safetensors_values<double>(e).size();
  if (e.dtype == "U8") return io::safetensors_values<uint8_t>(e).size();
  if (e.dtype == "I32") return io::safetensors_values<int32_t>(e).size();
  if (e.dtype == "I64") return io::safetensors_values<int64_t>(e).size();
  strand::fuzz::finding("read_safetensors: accepted dtype '" + e.dtype + "'");
}

bool same(const io::SafetensorsFile& a, const io::SafetensorsFile& b) {
  if (a.metadata != b.metadata || a.entries.size() != b.entries.size()) return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const auto& x = a.entries[i];
    const auto& y = b.entries[i];
    if (x.name != y.name || x.dtype != y.dtype || x.shape != y.shape || x.data != y.data) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& dir = fuzz::ScratchDir::get().fresh();
  const auto path = dir / "input.safetensors";
  fuzz::write_file(path, fuzz::as_text(data, size));
  io::SafetensorsFile file;
  try {
    file = io::read_safetensors(path);
  } catch (const std::runtime_error& e) {
    // The reader's own errors name the file; a runtime_error of another origin is a finding.
    const std::string prefix = fmt::format("safetensors '{}'", path.string());
    if (std::string_view(e.what()).starts_with(prefix)) return 0;
    fuzz::finding(fmt::format("read_safetensors: unexpected {}: {}", fuzz::type_name(e), e.what()));
  } catch (const std::bad_alloc&) {
    fuzz::finding("read_safetensors: std::bad_alloc (a size from the input reached the allocator)");
  } catch (const std::exception& e) {
    fuzz::finding(fmt::format("read_safetensors: unexpected {}: {}", fuzz::type_name(e), e.what()));
  }

  for (const auto& e : file.entries) {
    const size_t elem = io::safetensors_dtype_size(e.dtype);
    if (elements(e) * elem != e.data.size() || decoded_count(e) != elements(e)) {
      fuzz::finding(fmt::format("read_safetensors: tensor '{}' ({}, {} dims) holds {} bytes",
                                e.name, e.dtype, e.shape.size(), e.data.size()));
    }
  }
  std::vector<std::byte> encoded;
  fuzz::must_succeed("encode_safetensors of the tensors read_safetensors accepted",
                     [&] { encoded = io::encode_safetensors(file.entries, file.metadata); });
  io::SafetensorsFile again;
  fuzz::must_succeed("decode_safetensors of the re-encoded file",
                     [&] { again = io::decode_safetensors(encoded); });
  if (!same(file, again)) fuzz::finding("a re-encoded safetensors file decodes to other tensors");
  return 0;
}
