// A fixed partition of a GEMM's output into tiles, for library GEMMs whose own threading may
// split the reduction (k) by the thread count: each tile runs as one single-threaded library call
// over the whole of k, so every output element is summed the same way whatever the thread count.
// The tiles depend on (m, n) only; threads take whole tiles.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace strand::kernels::cpu {

/// Tiles are at most this many rows and columns of the output (evenly split: m = 300 makes 3
/// tiles of 100 rows, not 128 + 128 + 44), large enough that a library call's packing of its
/// operands stays a small part of the tile's work.
inline constexpr int64_t kGemmTileRows = 128;
inline constexpr int64_t kGemmTileCols = 256;

/// One tile: output rows [row, row + rows), columns [col, col + cols).
struct GemmTile {
  int64_t row, rows, col, cols;
};

/// Splits `extent` into ceil(extent / most) near-equal parts; part i starts at first(i).
struct EvenSplit {
  int64_t extent, parts;
  EvenSplit(int64_t extent_, int64_t most)
      : extent(extent_), parts(std::max<int64_t>(1, (extent_ + most - 1) / most)) {}
  int64_t first(int64_t i) const { return extent * i / parts; }
};

/// Calls tile(GemmTile) for every tile of an (m, n) output, with OpenMP's nthreads set to 1
/// inside (a library GEMM then runs single-threaded). Outside a parallel region the tiles are
/// spread over the threads when `multiply_adds` is worth it; inside one, the calling thread runs
/// them in order. The result is the same either way.
template <typename Tile>
void for_each_gemm_tile(int64_t m, int64_t n, int64_t multiply_adds, Tile&& tile) {
  const EvenSplit rows(m, kGemmTileRows), cols(n, kGemmTileCols);
  const int64_t tiles = rows.parts * cols.parts;
  constexpr int64_t kParallelMultiplyAdds = int64_t{1} << 20;
  const int team = omp_in_parallel() || multiply_adds < kParallelMultiplyAdds
                       ? 1
                       : static_cast<int>(std::min<int64_t>(omp_get_max_threads(), tiles));
#pragma omp parallel num_threads(team)
  {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);  // this thread's nested regions (the library's) run on one thread
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t r = t / cols.parts, c = t % cols.parts;
      tile(GemmTile{rows.first(r), rows.first(r + 1) - rows.first(r), cols.first(c),
                    cols.first(c + 1) - cols.first(c)});
    }
    omp_set_num_threads(saved);
  }
}

}  // namespace strand::kernels::cpu
