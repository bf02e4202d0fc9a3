// same_file: an output path that is an input under another name (a hard link, a symbolic link,
// "./x", "dir/../x") is the same file; distinct files, and a file not written yet, are told apart
// (issue 38: `strand variants --out genome.fa` overwrote the genome).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/same_file.h"

namespace strand::io {
namespace {

namespace fs = std::filesystem;

TEST_CASE("same_file: by filesystem identity when both exist, by resolved path otherwise") {
  const fs::path dir =
      fs::temp_directory_path() / ("strand_same_file_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "genome.fa") << ">c\nACGT\n";
  std::ofstream(dir / "other.fa") << ">c\nACGT\n";
  fs::create_hard_link(dir / "genome.fa", dir / "hard.fa");
  fs::create_symlink(dir / "genome.fa", dir / "soft.fa");
  CHECK(same_file(dir / "genome.fa", dir / "genome.fa"));
  CHECK(same_file(dir / "genome.fa", dir / "hard.fa"));  // another name, the same inode
  CHECK(same_file(dir / "soft.fa", dir / "genome.fa"));
  CHECK(same_file(dir / "sub" / ".." / "genome.fa", dir / "genome.fa"));
  CHECK_FALSE(same_file(dir / "genome.fa", dir / "other.fa"));  // equal contents, two files
  // A file not written yet: by its resolved path.
  CHECK(same_file(dir / "new.tsv", dir / "sub" / ".." / "new.tsv"));
  CHECK_FALSE(same_file(dir / "new.tsv", dir / "genome.fa"));
  const fs::path here = fs::current_path();
  fs::current_path(dir);
  CHECK(same_file("genome.fa", dir / "hard.fa"));
  CHECK(same_file("./new.tsv", "new.tsv"));
  fs::current_path(here);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace strand::io
