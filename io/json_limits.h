// The limits of the JSON files strand reads: a nesting limit (configs, fold files, safetensors
// headers), checked while parsing, before anything walks the parsed value; and no NUL byte in
// a text file (configs, fold files), where nlohmann's parser stops as at the end of the input.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace strand::io {

/// Deepest nesting of objects and arrays accepted in a JSON input: the top-level value is
/// depth 1. A graph config nests 5 deep (config, model, nodes, a node, its inputs); nlohmann's
/// copies and dumps recurse once per level, so a file nested 100,000 deep would overflow the
/// stack in the first copy. Inputs deeper than this are refused while parsing.
inline constexpr int kMaxJsonNesting = 64;

/// Whether a parse callback's event at `depth` (nlohmann's depth of the element being read)
/// opens an object or array deeper than kMaxJsonNesting.
inline bool opens_too_deep(int depth, nlohmann::json::parse_event_t event) {
  return (event == nlohmann::json::parse_event_t::object_start ||
          event == nlohmann::json::parse_event_t::array_start) &&
         depth >= kMaxJsonNesting;
}

/// The offset of the first NUL byte of `text`, if any. nlohmann reads a NUL as the end of its
/// input, so "{\"epochs\": 5}\0..." parses as {"epochs": 5} and the rest is dropped unread;
/// a JSON text file with a NUL byte is refused instead.
inline std::optional<size_t> nul_byte(std::string_view text) {
  const size_t at = text.find('\0');
  if (at == std::string_view::npos) return std::nullopt;
  return at;
}

}  // namespace strand::io
