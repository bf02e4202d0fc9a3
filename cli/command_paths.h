// Checks of the paths a command reads and writes, made before any work: an input is a file (not
// a directory), a run name is one directory inside output_dir, an output file's directory
// exists, an output directory can be made, and no output replaces an input. A command that would
// write elsewhere, destroy what it reads, or fail to write after hours of work stops at once.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace strand::cli {

/// Throws ConfigError unless `name` is one path component of printable characters: not ".",
/// "..", nor holding '/' or a control character (tab, line break, NUL). An empty name is the
/// default, date-time name. `option` names the flag or key.
void check_run_name(const std::string& name, const std::string& option);

/// Throws ConfigError naming `option` unless `path` can be written as a file: not empty, not
/// an existing directory, ending in a file name, in an existing, writable directory.
void check_output_file(const std::string& path, const std::string& option);

/// Throws ConfigError naming `option` unless `path` is an existing, writable directory or one
/// that can be created: not empty, not an existing file, its nearest existing ancestor a
/// writable directory.
void check_output_directory(const std::string& path, const std::string& option);

/// Throws ConfigError naming `option` when `path` (if given) is a directory or does not exist.
void check_input_file(const std::string& path, const std::string& option);

/// Whether `a` and `b` name the same file, whether they exist or not ("x.bed", "./x.bed"; a hard
/// or symbolic link to an existing file: io::same_file).
bool same_path(const std::string& a, const std::string& b);

/// Throws ConfigError when output `path` (of `option`) is one of `inputs` (path, option): the
/// command would replace a file it reads. Empty paths are skipped.
void refuse_overwriting_input(const std::string& path, const std::string& option,
                              const std::vector<std::pair<std::string, std::string>>& inputs);

/// The checks of a command's output files (path, option) before any work: each can be written
/// (check_output_file), replaces none of `inputs` (refuse_overwriting_input), and is no other
/// output's file. Empty paths are skipped.
void check_output_files(const std::vector<std::pair<std::string, std::string>>& outputs,
                        const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace strand::cli
