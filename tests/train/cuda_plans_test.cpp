// The CUDA plan file of a run directory (train/cuda_plans.h), the paths that need no GPU: a
// missing file is no warning, and a file that is not a plan file is ignored with a warning
// naming it (never an error: plans only save time). Adopting and saving real plans is
// tests/cuda/cuda_conv_plans_test.cpp.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "train/cuda_plans.h"

namespace strand::train {
namespace {

std::filesystem::path scratch_file(const std::string& name, const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "strand_cuda_plans_test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST_CASE("cuda plans: a missing file is no warning, a corrupt one a warning naming it") {
  const std::filesystem::path missing =
      std::filesystem::temp_directory_path() / "strand_cuda_plans_test" / "none.json";
  std::filesystem::remove(missing);
  CHECK(load_cuda_plans(missing, Device::cuda()).empty());

  const std::filesystem::path truncated =
      scratch_file("truncated.json", "{\"format\": \"strand-cu");
  const std::string warning = load_cuda_plans(truncated, Device::cuda());
  CHECK(warning.find("warning: CUDA plans ignored: " + truncated.string() +
                     ": not a JSON plan file") == 0);
  CHECK(warning.find("choosing anew") != std::string::npos);

  const std::filesystem::path other =
      scratch_file("other.json", "{\"format\": \"strand-run-report\", \"version\": 1}");
  CHECK(load_cuda_plans(other, Device::cuda()).find("expected 'strand-cuda-plans'") !=
        std::string::npos);

  const std::filesystem::path empty = scratch_file("empty.json", "");
  CHECK(load_cuda_plans(empty, Device::cuda()).find(empty.string()) != std::string::npos);
}

}  // namespace
}  // namespace strand::train
