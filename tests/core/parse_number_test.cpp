// Whole-string number parsing: everything std::stoll/std::stod read in part is refused.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "core/device.h"
#include "core/error.h"
#include "core/parse_number.h"

namespace strand {
namespace {

TEST_CASE("parse_int64 takes whole integers only") {
  CHECK(parse_int64("0") == 0);
  CHECK(parse_int64("42") == 42);
  CHECK(parse_int64("-5") == -5);
  CHECK(parse_int64("9223372036854775807") == std::numeric_limits<int64_t>::max());
  for (const char* bad : {"", "1x", "x1", " 1", "1 ", "+1", "1.0", "1e3", "0x10",
                          "9223372036854775808", "-9223372036854775809", "-"}) {
    CHECK_MESSAGE(!parse_int64(bad), bad);
  }
}

TEST_CASE("parse_double takes whole numbers, infinities and nan") {
  CHECK(parse_double("0.25") == 0.25);
  CHECK(parse_double("-1e-3") == -1e-3);
  CHECK(parse_double("inf") == std::numeric_limits<double>::infinity());
  CHECK(parse_double("-inf") == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(*parse_double("nan")));
  // Shortest round-trip text (what fmt writes into checkpoints) reads back exactly.
  CHECK(parse_double("0.1") == 0.1);
  CHECK(parse_double("2.2250738585072014e-308") == 2.2250738585072014e-308);
  for (const char* bad : {"", "1x", " 1", "1 ", "+1", "1e400", "0.5.1", "--1"}) {
    CHECK_MESSAGE(!parse_double(bad), bad);
  }
}

TEST_CASE("Device::parse: an ordinal past int is an error naming the device, not 'stoi'") {
  CHECK(Device::parse("cuda:3") == Device::cuda(3));
  for (const char* bad : {"cuda:99999999999", "cuda:-1", "cuda:+1", "cuda:1x", "cuda:"}) {
    CHECK_THROWS_WITH_AS(Device::parse(bad),
                         doctest::Contains(("device '" + std::string(bad) + "'").c_str()), Error);
  }
}

}  // namespace
}  // namespace strand
