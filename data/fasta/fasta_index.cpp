// FASTA index management: validation, staleness checks and atomic index builds.
#include "data/fasta/fasta_index.h"

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
#include <memory>
#include <unordered_map>

#include "data/data_error.h"
#include "data/fasta/fai_check.h"
#include "data/fasta/fasta_scan.h"
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

// Why the index at `paths` does not describe `fasta` (empty string when it does): older than
// the FASTA, a missing or older .gzi, a malformed .fai line, or records that are not where and
// what the .fai says (fai_mismatch).
std::string stale_reason(const std::string& fasta, const FastaIndexPaths& paths) {
  if (mtime_ns(paths.fai) < mtime_ns(fasta)) return "it is older than the FASTA";
  if (paths.bgzf) {
    if (!file_exists(paths.gzi)) return fmt::format("its .gzi '{}' is missing", paths.gzi);
    if (mtime_ns(paths.gzi) < mtime_ns(fasta)) return "its .gzi is older than the FASTA";
  }
  std::vector<FaiEntry> entries;
  try {
    entries = read_fai(paths.fai);
  } catch (const DataError& error) {
    return error.what();
  }
  if (entries.empty()) return "it lists no records";
  return fai_mismatch(fasta, paths.fai, entries, paths.gzi);
}

}  // namespace

std::vector<FaiEntry> read_fai(const std::string& fai) {
  LineReader in(fai);
  std::vector<FaiEntry> entries;
  std::unordered_map<std::string, int64_t> lines;  // name -> its .fai line
  std::string line;
  while (in.next(line)) {
    const int64_t n = in.line_number();
    if (line.empty()) continue;
    const auto fields = split_tabs(line);
    if (fields.size() != 5) {
      throw DataError(fmt::format(
          "{}:{}: expected 5 tab-separated fields NAME LENGTH OFFSET LINEBASES LINEWIDTH, found "
          "{} in '{}'",
          fai, n, fields.size(), excerpt(line)));
    }
    FaiEntry e;
    e.name = std::string(fields[0]);
    e.line = n;
    const char* names[] = {"LENGTH", "OFFSET", "LINEBASES", "LINEWIDTH"};
    int64_t* values[] = {&e.length, &e.offset, &e.line_bases, &e.line_width};
    for (size_t i = 0; i < 4; ++i) {
      const auto value = parse_int(fields[i + 1]);
      if (!value || *value < 0) {
        throw DataError(fmt::format(
            "{}:{}: {} (column {}) must be an integer from 0 to 9223372036854775807, found '{}'",
            fai, n, names[i], i + 2, excerpt(fields[i + 1])));
      }
      *values[i] = *value;
    }
    const auto [it, inserted] = lines.emplace(e.name, n);
    if (!inserted) {
      throw DataError(fmt::format("{}:{}: record '{}' is listed twice (also on line {})", fai, n,
                                  excerpt(e.name), it->second));
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
  // The new index must pass the same check as an existing one, or every later run would find
  // it stale; htslib silently drops duplicate and empty records, for instance.
  std::string problem;
  try {
    problem = fai_mismatch(fasta, fai, read_fai(tmp_fai), tmp_gzi);
  } catch (const DataError& error) {
    problem = error.what();
  }
  if (!problem.empty()) {
    cleanup();
    throw DataError(fmt::format(
        "cannot index FASTA '{}': the index htslib built does not match the file ({}); check "
        "the FASTA with strand's content check (FastaReader does it before indexing)",
        fasta, problem));
  }
  // The .gzi goes first: a reader that sees the new .fai must also find its .gzi.
  if ((!tmp_gzi.empty() && std::rename(tmp_gzi.c_str(), gzi.c_str()) != 0) ||
      std::rename(tmp_fai.c_str(), fai.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    cleanup();
    throw DataError(fmt::format("cannot move the new index into place as '{}': {}", fai, why));
  }
}

bool check_fasta_file(const std::string& fasta) {
  silence_htslib_log();
  if (!file_exists(fasta)) {
    throw DataError(fmt::format("FASTA '{}' does not exist", fasta));
  }
  std::error_code error;
  if (std::filesystem::is_directory(fasta, error)) {
    throw DataError(fmt::format("FASTA '{}' is a directory, expected a file", fasta));
  }
  BgzfPtr fp = open_bgzf(fasta);
  const int compression = bgzf_compression(fp.get());
  if (compression == 1) {
    throw DataError(fmt::format(
        "FASTA '{}' is gzip-compressed but not BGZF, so it cannot be indexed; recompress it "
        "with `zcat {} | bgzip > NEW.fa.gz` or decompress it",
        fasta, fasta));
  }
  const bool bgzf = compression == 2;
  if (bgzf && bgzf_check_EOF(fp.get()) != 1) {
    throw DataError(
        fmt::format("BGZF FASTA '{}' is truncated: its end-of-file marker is missing (incomplete "
                    "download or copy?)",
                    fasta));
  }
  return bgzf;
}

FastaIndexPaths ensure_fasta_index(const std::string& fasta, const FastaOptions& options) {
  FastaIndexPaths paths;
  paths.bgzf = check_fasta_file(fasta);
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
        throw DataError(fmt::format(
            "FASTA index '{}' is stale or does not match FASTA '{}': {}; delete it or run "
            "`samtools faidx {}`",
            paths.fai, fasta, why, fasta));
      }
      warn(fmt::format("FASTA index '{}' is stale or does not match FASTA '{}' ({}); rebuilding it",
                       paths.fai, fasta, why));
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
