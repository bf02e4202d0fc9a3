// same_file(): filesystem identity, else resolved absolute paths.
#include "io/same_file.h"

#include <system_error>

namespace strand::io {

namespace fs = std::filesystem;

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) {
    const bool same = fs::equivalent(a, b, error);
    if (!error) return same;
  }
  error.clear();
  const fs::path x = fs::weakly_canonical(fs::absolute(a, error), error);
  if (error) return a == b;
  const fs::path y = fs::weakly_canonical(fs::absolute(b, error), error);
  if (error) return a == b;
  return x == y;
}

}  // namespace strand::io
