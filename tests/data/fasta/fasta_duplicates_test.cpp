// Tests for duplicate FASTA record names and htslib's log lines (issue 10, item 4): a duplicate
// is an error naming both lines; htslib never writes to stderr; strand's warnings go to a
// replaceable handler.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "data/data_error.h"
#include "data/fasta/fasta_index.h"
#include "data/fasta/fasta_reader.h"
#include "data/test_paths.h"
#include "data/warnings.h"

using namespace strand::data;
using namespace strand::data::testing;

namespace {

// Runs `call` with file descriptor 2 redirected to a file and returns what was written there.
template <typename Call>
std::string captured_stderr(const TempDir& dir, Call call) {
  std::fflush(stderr);
  const int saved = ::dup(2);
  const std::string path = dir.file("stderr.txt");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 2);
  ::close(fd);
  try {
    call();
  } catch (...) {
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    throw;
  }
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  return read_text(path);
}

}  // namespace

TEST_CASE("duplicate FASTA record names are an error naming both lines") {
  // Reproducer from issue 10, item 4: the second 'a' was dropped, the only sign was htslib's
  // "[W::fai_insert_index]" line, and the index was rebuilt on every run.
  TempDir dir;
  const std::string fa = dir.write("dup.fa", ">a first\nACGT\n>b\nAA\n>a second\nCCCC\n");
  CHECK_THROWS_WITH_AS(FastaReader{fa},
                       doctest::Contains("dup.fa:5: duplicate record name 'a': line 1 has it too"),
                       DataError);
  CHECK_FALSE(std::filesystem::exists(fa + ".fai"));
  // Names compare as htslib reads them: up to the first whitespace.
  const std::string loose = dir.write("loose.fa", ">c\nAC\n>  c desc\nGG\n");
  FastaOptions options;
  options.allow_loose_headers = true;
  CHECK_THROWS_WITH_AS(FastaReader(loose, options),
                       doctest::Contains("loose.fa:3: duplicate record name 'c': line 1"),
                       DataError);
}

TEST_CASE("htslib writes nothing to stderr, even where it would warn") {
  TempDir dir;
  const std::string fa = dir.write("dup.fa", ">a\nACGT\n>a\nCCCC\n");
  // build_fasta_index calls htslib directly (no content check): htslib drops the duplicate
  // and would log "[W::fai_insert_index] Ignoring duplicate sequence"; strand then finds the
  // index does not cover the file and refuses it.
  std::string error;
  const std::string written = captured_stderr(dir, [&] {
    try {
      build_fasta_index(fa, fa + ".fai", "");
    } catch (const DataError& e) {
      error = e.what();
    }
  });
  CHECK(written.empty());
  CHECK(error.find("the index htslib built does not match the file") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(fa + ".fai"));
}

TEST_CASE("warnings go to the installed handler and the default is restored") {
  std::vector<std::string> received;
  {
    const ScopedWarningHandler scoped(
        [&](std::string_view message) { received.emplace_back(message); });
    warn("first");
    warn("second");
  }
  CHECK(received == std::vector<std::string>{"first", "second"});
  TempDir dir;
  const std::string written = captured_stderr(dir, [] { warn("to stderr"); });
  CHECK(written == "strand: warning: to stderr\n");
}
