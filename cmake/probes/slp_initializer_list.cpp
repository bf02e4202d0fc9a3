// GCC 12.2's SLP vectorizer with AVX-512 (-O2 -march=x86-64-v4 or a native AVX-512 machine)
// stores the initializer list {1, 1, 1, 0} as {1, 1, 1, 1}: this program then exits 1.
// cmake/check_slp_vectorizer.cmake runs it with strand's flags and turns the SLP vectorizer off
// where it miscompiles.
#include <vector>

__attribute__((noinline)) double last(const std::vector<double>& v) { return v[3]; }

int main() {
  std::vector<long> shape{2, 2};
  return last(std::vector<double>{1.0, 1.0, 1.0, 0.0}) == 0.0 && shape[0] == 2 ? 0 : 1;
}
