// Checks of a command's input and output paths, made before it starts its work.
#include "cli/command_paths.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "cli/config_error.h"
#include "io/same_file.h"

namespace strand::cli {
namespace {

namespace fs = std::filesystem;

// The directory `path` lies in: "." for a bare file name.
fs::path directory_of(const fs::path& path) {
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

void require_writable_directory(const fs::path& directory, const std::string& path,
                                const std::string& option) {
  std::error_code error;
  const fs::file_status status = fs::status(directory, error);
  if (!fs::exists(status)) {
    throw ConfigError(fmt::format("{}: cannot write '{}': directory '{}' does not exist", option,
                                  path, directory.string()));
  }
  if (!fs::is_directory(status)) {
    throw ConfigError(fmt::format("{}: cannot write '{}': '{}' is not a directory", option, path,
                                  directory.string()));
  }
  if (::access(directory.c_str(), W_OK | X_OK) != 0) {
    throw ConfigError(fmt::format("{}: cannot write '{}': directory '{}' is not writable", option,
                                  path, directory.string()));
  }
}

}  // namespace

void check_run_name(const std::string& name, const std::string& option) {
  if (name.empty()) return;
  const bool one_component = name != "." && name != ".." && name.find('/') == std::string::npos;
  // Control characters (a tab, a line break, NUL) would break the printed resume command and
  // every log line that names the run.
  const bool printable = std::none_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
  if (!one_component || !printable) {
    throw ConfigError(fmt::format(
        "{}: '{}' is not a run name: a run name is one directory name of printable characters, "
        "made inside output_dir (no '/', not '.' or '..'); choose where runs go with "
        "--output-dir",
        option, name));
  }
}

void check_output_file(const std::string& path, const std::string& option) {
  if (path.empty()) throw ConfigError(fmt::format("{}: an output file path is required", option));
  const fs::path file(path);
  std::error_code error;
  if (fs::is_directory(file, error) || !file.has_filename()) {
    throw ConfigError(
        fmt::format("{}: '{}' is a directory; give the path of a file to write", option, path));
  }
  require_writable_directory(directory_of(file), path, option);
}

void check_output_directory(const std::string& path, const std::string& option) {
  if (path.empty()) {
    throw ConfigError(fmt::format("{}: an output directory is required", option));
  }
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      throw ConfigError(fmt::format(
          "{}: '{}' is a file, not a directory; give a directory to write into", option, path));
    }
    if (::access(path.c_str(), W_OK | X_OK) != 0) {
      throw ConfigError(fmt::format("{}: directory '{}' is not writable", option, path));
    }
    return;
  }
  // create_directories makes every missing level; the nearest existing one must take them.
  fs::path ancestor = fs::absolute(fs::path(path), error).lexically_normal();
  while (!ancestor.empty() && !fs::exists(ancestor, error) && ancestor != ancestor.root_path()) {
    ancestor = ancestor.parent_path();
  }
  require_writable_directory(ancestor.empty() ? fs::path(".") : ancestor, path, option);
}

void check_input_file(const std::string& path, const std::string& option) {
  if (path.empty()) return;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::is_directory(status)) {
    throw ConfigError(fmt::format("{}: '{}' is a directory, expected a file", option, path));
  }
  if (!fs::exists(status)) {
    throw ConfigError(fmt::format("{}: '{}' does not exist", option, path));
  }
}

bool same_path(const std::string& a, const std::string& b) { return io::same_file(a, b); }

void refuse_overwriting_input(const std::string& path, const std::string& option,
                              const std::vector<std::pair<std::string, std::string>>& inputs) {
  if (path.empty()) return;
  for (const auto& [input, input_option] : inputs) {
    if (!input.empty() && same_path(path, input)) {
      throw ConfigError(fmt::format("{}: '{}' is the {} file this command reads; write elsewhere",
                                    option, path, input_option));
    }
  }
}

void check_output_files(const std::vector<std::pair<std::string, std::string>>& outputs,
                        const std::vector<std::pair<std::string, std::string>>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [path, option] = outputs[i];
    if (path.empty()) continue;
    check_output_file(path, option);
    refuse_overwriting_input(path, option, inputs);
    for (size_t j = 0; j < i; ++j) {
      if (!outputs[j].first.empty() && same_path(path, outputs[j].first)) {
        throw ConfigError(fmt::format("{}: '{}' is also the file of {}; write elsewhere", option,
                                      path, outputs[j].second));
      }
    }
  }
}

}  // namespace strand::cli
