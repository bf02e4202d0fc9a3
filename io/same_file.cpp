// same_file(): filesystem identity, else resolved absolute paths, else the lexical paths.
#include "io/same_file.h"

#include <system_error>

namespace strand::io {
namespace {

namespace fs = std::filesystem;

// `path` made absolute and normal without asking the filesystem anything but the working
// directory: "./x", "d/../x" and "x/" all give "/cwd/x".
fs::path lexical_form(const fs::path& path) {
  std::error_code error;
  fs::path form = fs::absolute(path, error);
  if (error) form = path;
  form = form.lexically_normal();
  if (!form.has_filename() && form.has_parent_path()) form = form.parent_path();
  return form;
}

// `path` absolute with its symbolic links resolved, or nothing when the filesystem cannot say
// (a name over NAME_MAX, a loop of links, a directory that cannot be searched).
bool resolved_form(const fs::path& path, fs::path& form) {
  std::error_code error;
  form = fs::weakly_canonical(fs::absolute(path, error), error);
  return !error;
}

}  // namespace

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  if (fs::exists(a, error) && fs::exists(b, error)) {
    const bool same = fs::equivalent(a, b, error);
    if (!error) return same;
  }
  fs::path x, y;
  if (resolved_form(a, x) && resolved_form(b, y)) return x == y;
  // Found by fuzz/fuzz_paths: "./N" and "N" for a name N of 300 bytes (ENAMETOOLONG) were two
  // files when the fallback compared the spellings.
  return lexical_form(a) == lexical_form(b);
}

}  // namespace strand::io
