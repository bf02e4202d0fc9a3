// Test helpers: locating the repository's fixtures (tests/data/fixtures) and scratch directories.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace strand::data::testing {

inline std::string source_dir() {
  const char* env = std::getenv("STRAND_SOURCE_DIR");
  return env != nullptr ? env : STRAND_SOURCE_DIR;
}

/// A file under tests/data/fixtures (read only: copy it into a TempDir before anything may
/// write an index next to it). See tests/data/fixtures/README.md for provenance.
inline std::string fixture(const std::string& name) {
  return source_dir() + "/tests/data/fixtures/" + name;
}

/// A fresh scratch directory, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "strand-data-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  /// Copies a file in, returning its new path.
  std::string copy_in(const std::string& from, const std::string& name) const {
    std::filesystem::copy_file(from, file(name));
    return file(name);
  }
  /// Writes text to a new file, returning its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }

 private:
  std::string path_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace strand::data::testing
