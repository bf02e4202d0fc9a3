// Levenshtein distance for "did you mean" suggestions (config keys, motif names).
#pragma once

#include <cstddef>
#include <string>

namespace strand::app {

/// Insertions, deletions and substitutions turning `a` into `b`, ignoring letter case.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace strand::app
