// splitmix64: pinned outputs of the generator step (reference C code of Vigna's splitmix64.c),
// and the hash as the first step of a copy, so the one definition serves every caller.
#include "core/splitmix64.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>

#include "data/counter_rng.h"
#include "tensor/generator.h"

TEST_CASE("splitmix64_next reproduces the reference generator") {
  std::uint64_t state = 1234567;
  CHECK(strand::splitmix64_next(state) == 6457827717110365317ull);
  CHECK(strand::splitmix64_next(state) == 3203168211198807973ull);
  CHECK(strand::splitmix64_next(state) == 9817491932198370423ull);
  CHECK(state == 1234567 + 3 * strand::kSplitmix64Gamma);
}

TEST_CASE("splitmix64_hash is the first output of a generator started at its argument") {
  for (std::uint64_t x : {0ull, 1ull, 1234567ull, ~0ull}) {
    std::uint64_t state = x;
    CHECK(strand::splitmix64_hash(x) == strand::splitmix64_next(state));
  }
  static_assert(strand::splitmix64_hash(1234567) == 6457827717110365317ull);
}

TEST_CASE("the loader's and the tensor generator's draws are pinned across the refactor") {
  // Values before splitmix64 had one home (data/counter_rng.h and tensor/generator.h each had a
  // copy): any change to the draws would change every seeded run.
  strand::data::CounterRng rng(strand::data::mix_key(42, 1, 2, 3));
  const std::uint64_t first = rng.next();
  strand::Generator generator(42);
  const std::uint64_t tensor_first = generator.next_u64();
  CHECK(first == 4063374377524604240ull);
  CHECK(tensor_first == 6332618229526065668ull);
}
