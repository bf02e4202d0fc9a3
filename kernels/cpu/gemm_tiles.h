// How strand runs oneDNN's GEMMs (float32 sgemm, kernels/cpu/gemm.cpp; bfloat16,
// kernels/cpu/gemm_bf16.cpp) so that their bits do not depend on the thread count. Left to
// itself oneDNN shares a product among the threads it finds and, on some ISAs (AVX2), splits the
// k reduction among them; and its bits depend on a call's (m, n). So strand calls it on one
// thread at a time (oneDNN reads the calling thread's OpenMP thread count) and shares the work
// itself, in tiles of C that depend on the product's shape alone: threads take whole tiles, and
// inside a parallel region the same tiles run in order on the calling thread.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>

namespace strand::kernels::cpu {

/// A product of at least this many multiply-adds is split into tiles for the threads.
inline constexpr int64_t kTiledGemmMinMultiplyAdds = int64_t{1} << 21;
/// The most tiles, and the fewest rows or columns in one (a multiple of every vector width).
inline constexpr int64_t kMaxGemmTiles = 24;
inline constexpr int64_t kMinGemmTileSide = 64;

/// One tile of C: rows [row, row + rows), columns [col, col + cols).
struct GemmTile {
  int64_t row, rows, col, cols;
};

/// How a product is split: `count` tiles of `side` rows (by_rows) or columns of C, the last one
/// shorter. A function of the shape only, so that every thread count gives the same tiles.
struct GemmTiles {
  bool by_rows = true;
  int64_t count = 1;
  int64_t side = 0;
  /// Tile `index` of an (m, n) C.
  GemmTile tile(int64_t index, int64_t m, int64_t n) const {
    const int64_t first = index * side;
    const int64_t length = std::min(side, (by_rows ? m : n) - first);
    return by_rows ? GemmTile{first, length, 0, n} : GemmTile{0, m, first, length};
  }
};

inline GemmTiles gemm_tiles(int64_t m, int64_t n, int64_t k) {
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  if (m * n * k < kTiledGemmMinMultiplyAdds || extent < 2 * kMinGemmTileSide) {
    return {by_rows, 1, extent};
  }
  const int64_t wanted = std::min(kMaxGemmTiles, extent / kMinGemmTileSide);
  // Sides rounded up to a multiple of 16 (a zmm of floats), then as few tiles as that needs.
  const int64_t side = ((extent + wanted - 1) / wanted + 15) / 16 * 16;
  return {by_rows, (extent + side - 1) / side, side};
}

/// Sets the calling thread's OpenMP thread count to 1 for its lifetime: a library GEMM called
/// meanwhile runs on this thread alone.
class OneThreadForOneDnn {
 public:
  OneThreadForOneDnn() : previous_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneThreadForOneDnn() { omp_set_num_threads(previous_); }
  OneThreadForOneDnn(const OneThreadForOneDnn&) = delete;
  OneThreadForOneDnn& operator=(const OneThreadForOneDnn&) = delete;

 private:
  int previous_;
};

/// Calls run_tile(GemmTile) for every tile of the (m, n, k) product (gemm_tiles), each on one
/// thread (OneThreadForOneDnn), the tiles shared among the threads outside a parallel region and
/// in order inside one. An exception of a tile is rethrown here.
template <typename RunTile>
void for_each_gemm_tile(int64_t m, int64_t n, int64_t k, RunTile&& run_tile) {
  const GemmTiles tiles = gemm_tiles(m, n, k);
  const auto run = [&](int64_t index) {
    const OneThreadForOneDnn one_thread;
    run_tile(tiles.tile(index, m, n));
  };
  if (tiles.count == 1 || omp_in_parallel()) {
    for (int64_t index = 0; index < tiles.count; ++index) run(index);
    return;
  }
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t index = 0; index < tiles.count; ++index) {
    try {
      run(index);
    } catch (...) {
#pragma omp critical(strand_gemm_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace strand::kernels::cpu
