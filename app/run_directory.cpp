// Run directory creation and the crash-safe rewrites a resume needs.
#include "app/run_directory.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#include "app/command_paths.h"
#include "app/run_config.h"
#include "core/parse_number.h"
#include "io/atomic_file.h"

namespace strand::app {

std::string default_run_name(uint64_t seed) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  return fmt::format("{}-seed{}", stamp, seed);
}

RunPaths create_run_directory(const std::filesystem::path& output_dir, const std::string& name,
                              uint64_t seed) {
  RunPaths paths;
  if (name.empty()) {
    const std::string base = default_run_name(seed);
    paths.root = output_dir / base;
    // Two runs started within the same second must not share a directory.
    for (int i = 1; std::filesystem::exists(paths.root); ++i) {
      paths.root = output_dir / fmt::format("{}-{}", base, i);
    }
  } else {
    check_run_name(name, "--run-name");
    paths.root = output_dir / name;
    if (std::filesystem::exists(paths.config())) {
      throw ConfigError(fmt::format(
          "run directory '{}' already holds a run; continue it with --resume {} or pick another "
          "--run-name",
          paths.root.string(), paths.root.string()));
    }
  }
  std::error_code error;
  std::filesystem::create_directories(paths.checkpoints(), error);
  if (error) {
    throw ConfigError(
        fmt::format("output_dir: cannot create '{}': {}", paths.root.string(), error.message()));
  }
  return paths;
}

void write_json_file(const std::filesystem::path& path, const nlohmann::json& value) {
  io::write_file_atomically(path, value.dump(2) + "\n");
}

int64_t truncate_csv_rows(const std::filesystem::path& path, double last_kept) {
  if (!std::filesystem::exists(path)) return 0;
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::string kept;
  int64_t dropped = 0;
  size_t start = 0;
  bool header = true;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      ++dropped;  // a torn last line (no newline): the row never finished
      break;
    }
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (header) {
      kept += line + "\n";
      header = false;
      continue;
    }
    const std::string first = line.substr(0, line.find(','));
    // The whole first field: std::stod would read "3x" as 3.
    const std::optional<double> value = parse_double(first);
    if (!value) {
      throw ConfigError(fmt::format("{}: row '{}' does not start with a number", path.string(),
                                    line.substr(0, 80)));
    }
    if (*value <= last_kept) {
      kept += line + "\n";
    } else {
      ++dropped;
    }
  }
  if (dropped > 0) io::write_file_atomically(path, kept);
  return dropped;
}

}  // namespace strand::app
