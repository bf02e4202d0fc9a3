// FASTA index management: validation, staleness checks and atomic index builds.
#include "data/fasta_index.h"

#include <fcntl.h>
#include <htslib/bgzf.h>
#include <htslib/faidx.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "data/data_error.h"
#include "data/fasta_scan.h"
#include "data/text_fields.h"
#include "data/warnings.h"
#include "fmt/format.h"

namespace strand::data {
namespace {

struct BgzfCloser {
  void operator()(BGZF* fp) const { bgzf_close(fp); }
};
using BgzfPtr = std::unique_ptr<BGZF, BgzfCloser>;

BgzfPtr open_bgzf(const std::string& path) {
  BgzfPtr fp(bgzf_open(path.c_str(), "r"));
  if (!fp) {
    throw DataError(fmt::format("cannot open FASTA '{}': {}", path, std::strerror(errno)));
  }
  return fp;
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Modification time in nanoseconds; the FASTA must exist (checked by the caller).
int64_t mtime_ns(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw DataError(fmt::format("cannot stat '{}': {}", path, std::strerror(errno)));
  }
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

std::string parent_dir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Creates an empty temporary file next to `target`; its name is returned. Failure means the
// directory is not writable, which gets the actionable message.
std::string make_temp_next_to(const std::string& target, const std::string& fasta) {
  std::string tmpl = target + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    throw DataError(fmt::format(
        "cannot build the index for '{}': directory '{}' is not writable ({}). Put the index "
        "in a writable directory with FastaOptions::index_path / gzi_path (LoaderConfig "
        "fasta_index), or copy the FASTA somewhere writable",
        fasta, parent_dir(target), why));
  }
  ::fchmod(fd, 0644);  // mkstemp gives 0600; an index should be as readable as samtools'
  ::close(fd);
  return tmpl;
}

// Why the .fai does not match a plain FASTA (empty string when it matches). Checks that each
// record's extent lies inside the file, that a header line ends right before each record's
// first base, and that only whitespace follows the last record.
std::string plain_index_mismatch(const std::string& fasta, const std::vector<FaiEntry>& entries) {
  std::ifstream in(fasta, std::ios::binary);
  const auto size = static_cast<int64_t>(std::filesystem::file_size(fasta));
  int64_t previous_end = 0;
  for (const FaiEntry& e : entries) {
    if (e.line_bases <= 0 || e.line_width < e.line_bases) {
      return fmt::format("record '{}' has line bases {} and line width {}", e.name, e.line_bases,
                         e.line_width);
    }
    const int64_t end =
        e.offset + (e.length / e.line_bases) * e.line_width + e.length % e.line_bases;
    if (e.offset < previous_end || end > size) {
      return fmt::format("record '{}' (length {}) does not fit the {}-byte file", e.name, e.length,
                         size);
    }
    char before = 0;
    in.seekg(e.offset - 1);
    in.get(before);
    if (!in || before != '\n') {
      return fmt::format("no header line ends right before record '{}' at byte {}", e.name,
                         e.offset);
    }
    previous_end = end;
  }
  if (size - previous_end > 4096) {
    return fmt::format("{} bytes follow the last indexed record", size - previous_end);
  }
  in.seekg(previous_end);
  char c = 0;
  while (in.get(c)) {
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t') {
      return "sequence data follows the last indexed record";
    }
  }
  return {};
}

// Why the index at `paths` is stale (empty string when it is current).
std::string stale_reason(const std::string& fasta, const FastaIndexPaths& paths) {
  if (mtime_ns(paths.fai) < mtime_ns(fasta)) return "it is older than the FASTA";
  if (paths.bgzf) {
    if (!file_exists(paths.gzi)) return fmt::format("its .gzi '{}' is missing", paths.gzi);
    if (mtime_ns(paths.gzi) < mtime_ns(fasta)) return "its .gzi is older than the FASTA";
    return {};
  }
  return plain_index_mismatch(fasta, read_fai(paths.fai));
}

}  // namespace

std::vector<FaiEntry> read_fai(const std::string& fai) {
  std::ifstream in(fai);
  if (!in) throw DataError(fmt::format("cannot open FASTA index '{}'", fai));
  std::vector<FaiEntry> entries;
  std::string line;
  int64_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    FaiEntry e;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      throw DataError(fmt::format("{}:{}: expected 5 tab-separated fields, found '{}'", fai,
                                  line_number, excerpt(line)));
    }
    e.name = line.substr(0, tab);
    if (std::sscanf(line.c_str() + tab, "%ld %ld %ld %ld", &e.length, &e.offset, &e.line_bases,
                    &e.line_width) != 4) {
      throw DataError(
          fmt::format("{}:{}: expected NAME LENGTH OFFSET LINEBASES LINEWIDTH, found '{}'", fai,
                      line_number, excerpt(line)));
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

void build_fasta_index(const std::string& fasta, const std::string& fai, const std::string& gzi) {
  silence_htslib_log();
  const std::string tmp_fai = make_temp_next_to(fai, fasta);
  std::string tmp_gzi;
  try {
    if (!gzi.empty()) tmp_gzi = make_temp_next_to(gzi, fasta);
  } catch (...) {
    std::remove(tmp_fai.c_str());
    throw;
  }
  const auto cleanup = [&] {
    std::remove(tmp_fai.c_str());
    if (!tmp_gzi.empty()) std::remove(tmp_gzi.c_str());
  };
  if (fai_build3(fasta.c_str(), tmp_fai.c_str(), tmp_gzi.empty() ? nullptr : tmp_gzi.c_str()) !=
      0) {
    cleanup();
    throw DataError(fmt::format(
        "cannot index FASTA '{}': htslib's fai_build3 failed (malformed FASTA, e.g. lines of "
        "uneven length inside a record, or a truncated/corrupt BGZF file)",
        fasta));
  }
  // The .gzi goes first: a reader that sees the new .fai must also find its .gzi.
  if ((!tmp_gzi.empty() && std::rename(tmp_gzi.c_str(), gzi.c_str()) != 0) ||
      std::rename(tmp_fai.c_str(), fai.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    cleanup();
    throw DataError(fmt::format("cannot move the new index into place as '{}': {}", fai, why));
  }
}

FastaIndexPaths ensure_fasta_index(const std::string& fasta, const FastaOptions& options) {
  silence_htslib_log();
  if (!file_exists(fasta)) {
    throw DataError(fmt::format("FASTA '{}' does not exist", fasta));
  }
  FastaIndexPaths paths;
  {
    BgzfPtr fp = open_bgzf(fasta);
    const int compression = bgzf_compression(fp.get());
    if (compression == 1) {
      throw DataError(fmt::format(
          "FASTA '{}' is gzip-compressed but not BGZF, so it cannot be indexed; recompress it "
          "with `zcat {} | bgzip > NEW.fa.gz` or decompress it",
          fasta, fasta));
    }
    paths.bgzf = compression == 2;
    if (paths.bgzf && bgzf_check_EOF(fp.get()) != 1) {
      throw DataError(
          fmt::format("BGZF FASTA '{}' is truncated: its end-of-file marker is missing (incomplete "
                      "download or copy?)",
                      fasta));
    }
  }
  paths.fai = options.index_path.empty() ? fasta + ".fai" : options.index_path;
  if (paths.bgzf) paths.gzi = options.gzi_path.empty() ? fasta + ".gzi" : options.gzi_path;

  std::string rebuild_reason;
  if (!file_exists(paths.fai)) {
    if (!options.build_missing_index) {
      throw DataError(
          fmt::format("FASTA index '{}' is missing; run `samtools faidx {}` or allow building it",
                      paths.fai, fasta));
    }
    rebuild_reason = "missing";
  } else {
    const std::string why = stale_reason(fasta, paths);
    if (!why.empty()) {
      if (options.stale_index == StaleIndexPolicy::kError) {
        throw DataError(
            fmt::format("FASTA index '{}' is stale: {}; delete it or run `samtools faidx {}`",
                        paths.fai, why, fasta));
      }
      rebuild_reason = why;
    }
  }
  if (!rebuild_reason.empty()) {
    // htslib indexes binary bytes, uneven lines and the like without an error (and then reads
    // misaligned), so the content is checked first, naming the line.
    check_fasta_content(fasta, options.allow_loose_headers);
    build_fasta_index(fasta, paths.fai, paths.gzi);
    paths.built = true;
  }
  return paths;
}

}  // namespace strand::data
