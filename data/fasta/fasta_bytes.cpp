// FastaBytes: pread for plain files; bgzf_useek + bgzf_read with the .gzi for BGZF files.
#include "data/fasta/fasta_bytes.h"

#include <fcntl.h>
#include <htslib/bgzf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fmt/format.h"

namespace strand::data {
namespace {

class PlainBytes final : public FastaBytes {
 public:
  explicit PlainBytes(int fd) : fd_(fd) {}
  ~PlainBytes() override { ::close(fd_); }
  PlainBytes(const PlainBytes&) = delete;
  PlainBytes& operator=(const PlainBytes&) = delete;

  bool read(int64_t offset, int64_t n, std::string& out) override {
    out.resize(static_cast<size_t>(n < 0 ? 0 : n));
    size_t got = 0;
    while (offset >= 0 && got < out.size()) {
      const ssize_t r = ::pread(fd_, out.data() + got, out.size() - got,
                                static_cast<off_t>(offset) + static_cast<off_t>(got));
      if (r < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    out.resize(got);
    return true;
  }

 private:
  int fd_;
};

class BgzfBytes final : public FastaBytes {
 public:
  explicit BgzfBytes(BGZF* fp) : fp_(fp) {}
  ~BgzfBytes() override { bgzf_close(fp_); }
  BgzfBytes(const BgzfBytes&) = delete;
  BgzfBytes& operator=(const BgzfBytes&) = delete;

  bool read(int64_t offset, int64_t n, std::string& out) override {
    out.clear();
    if (offset < 0 || n <= 0) return true;
    // A seek past the end fails: that is the end of the file, not an error.
    if (bgzf_useek(fp_, static_cast<off_t>(offset), SEEK_SET) < 0) return true;
    out.resize(static_cast<size_t>(n));
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t r = bgzf_read(fp_, out.data() + got, out.size() - got);
      if (r < 0) return false;
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    out.resize(got);
    return true;
  }

 private:
  BGZF* fp_;
};

}  // namespace

std::unique_ptr<FastaBytes> FastaBytes::open(const std::string& fasta, const std::string& gzi,
                                             std::string* error) {
  if (gzi.empty()) {
    const int fd = ::open(fasta.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = std::strerror(errno);
      return nullptr;
    }
    return std::make_unique<PlainBytes>(fd);
  }
  BGZF* fp = bgzf_open(fasta.c_str(), "r");
  if (fp == nullptr) {
    *error = fmt::format("it cannot be opened as BGZF ({})", std::strerror(errno));
    return nullptr;
  }
  if (bgzf_index_load(fp, gzi.c_str(), nullptr) != 0) {
    bgzf_close(fp);
    *error = fmt::format("its .gzi '{}' cannot be read", gzi);
    return nullptr;
  }
  return std::make_unique<BgzfBytes>(fp);
}

}  // namespace strand::data
