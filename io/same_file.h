// Whether two paths name the same file: the check every command makes before it writes, so that
// an output never replaces an input it reads (`--out genome.fa`).
#pragma once

#include <filesystem>

namespace strand::io {

/// Whether `a` and `b` name one file. When both exist, by filesystem identity (device and inode:
/// std::filesystem::equivalent), so a hard link, a symbolic link or another spelling of the path
/// is caught; when one does not exist yet, by their absolute paths with symbolic links resolved
/// ("x.tsv" and "./x.tsv").
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace strand::io
