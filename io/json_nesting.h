// The nesting limit of every JSON file strand reads (configs, fold files, safetensors headers,
// checkpoint metadata), checked while parsing, before anything walks the parsed value.
#pragma once

#include <nlohmann/json.hpp>

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

}  // namespace strand::io
