# Sourced by the quality scripts: STRAND names a strand program, built (CPU, Release, the program
# only) into build-quality/ when the one named is missing. A directory of its own: configuring
# build/ with these options would turn off the tests and CUDA of a developer's build there.
if [[ ! -x "${STRAND}" ]]; then
  cmake -S . -B build-quality -DSTRAND_CUDA=OFF -DCMAKE_BUILD_TYPE=Release \
    -DSTRAND_BUILD_BENCH=OFF -DSTRAND_BUILD_EXAMPLES=OFF -DSTRAND_BUILD_TESTS=OFF >/dev/null
  cmake --build build-quality -j2 --target strand_exe >/dev/null
  STRAND=build-quality/cli/strand
fi
