// Test helpers: repo-root lookup and self-deleting temporary directories.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>

namespace strand::test {

/// Repository root: env STRAND_SOURCE_DIR (set by CTest) or the compile-time STRAND_SOURCE_DIR.
inline std::filesystem::path source_dir() {
  if (const char* env = std::getenv("STRAND_SOURCE_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return STRAND_SOURCE_DIR;
}

/// A fresh directory under the system temp dir, removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    const auto base = std::filesystem::temp_directory_path();
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto candidate = base / ("strand_test_" + std::to_string(rd()));
      if (std::filesystem::create_directory(candidate)) {
        path_ = candidate;
        return;
      }
    }
    throw std::runtime_error("TempDir: could not create a unique directory in " + base.string());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Where a test should leave files for an external checker: the directory named by env `var`
/// (created if needed) when set, otherwise the given temporary directory.
inline std::filesystem::path output_dir_from_env(const char* var, const TempDir& fallback) {
  if (const char* env = std::getenv(var); env != nullptr && *env != '\0') {
    std::filesystem::create_directories(env);
    return env;
  }
  return fallback.path();
}

}  // namespace strand::test
