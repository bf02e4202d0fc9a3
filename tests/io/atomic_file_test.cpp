// Orphaned temporary files of atomic writes: removed when their writer is gone (killed
// mid-write), kept while a writer holds them, and only strand's "<target>.tmp.XXXXXX" names.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/atomic_file.h"

namespace strand::io {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() /
             ("strand_atomic_file_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void touch(const fs::path& path) { std::ofstream(path) << "partial"; }

// Temporary files beside `target` ("<target>.tmp.*").
int64_t temp_files(const fs::path& target) {
  int64_t n = 0;
  for (const auto& entry : fs::directory_iterator(target.parent_path())) {
    n += entry.path().filename().string().rfind(target.filename().string() + ".tmp.", 0) == 0;
  }
  return n;
}

TEST_CASE("remove_orphan_temp_files: a writer killed mid-write leaves a file that is removed") {
  const fs::path dir = fresh_dir("killed");
  const fs::path target = dir / "last.safetensors";
  // A child process opens a writer, writes part of the file and dies without committing.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    AtomicFileWriter writer(target);
    writer.write(std::string_view("half a checkpoint"));
    ::_exit(0);  // no destructor runs, as under kill -9
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(temp_files(target) == 1);
  CHECK(remove_orphan_temp_files(target) == 1);
  CHECK(temp_files(target) == 0);
  CHECK_FALSE(fs::exists(target));
  fs::remove_all(dir);
}

TEST_CASE("remove_orphan_temp_files: only unlocked files with strand's temporary names") {
  const fs::path dir = fresh_dir("names");
  const fs::path target = dir / "last.safetensors";
  touch(dir / "last.safetensors.tmp.Ab3dE9");  // orphan: removed
  touch(dir / "last.safetensors.tmp.abc");     // not mkstemp's six characters
  touch(dir / "last.safetensors.tmp.Ab3dE!");  // not letters and digits
  touch(dir / "last.safetensors.tmp.Ab3dE9x");
  touch(dir / "best.safetensors.tmp.Ab3dE9");  // another target's
  touch(dir / "last.safetensors");             // the published file itself
  fs::create_directory(dir / "last.safetensors.tmp.DIRECT");
  fs::create_symlink(dir / "last.safetensors", dir / "last.safetensors.tmp.LiNK00");
  // A live writer's temporary file is locked, so it stays.
  AtomicFileWriter live(target);
  live.write(std::string_view("in progress"));
  CHECK(remove_orphan_temp_files(target) == 1);
  CHECK_FALSE(fs::exists(dir / "last.safetensors.tmp.Ab3dE9"));
  for (const char* kept :
       {"last.safetensors.tmp.abc", "last.safetensors.tmp.Ab3dE!", "last.safetensors.tmp.Ab3dE9x",
        "best.safetensors.tmp.Ab3dE9", "last.safetensors", "last.safetensors.tmp.DIRECT"}) {
    CHECK_MESSAGE(fs::exists(dir / kept), kept);
  }
  CHECK(fs::is_symlink(dir / "last.safetensors.tmp.LiNK00"));
  CHECK(temp_files(target) == 6);  // the five kept names and the live writer's file
  live.commit();
  CHECK(temp_files(target) == 5);
  CHECK(remove_orphan_temp_files(target) == 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace strand::io
