// The example's own test: the custom swish op is registered, matches the composed
// x * sigmoid(x), and its backward kernel passes strand's gradcheck. Non-zero on failure.
#include <strand/autograd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "swish.h"

using namespace strand;

namespace {

int failures = 0;

void expect(bool condition, const char* what) {
  std::printf("%s: %s\n", condition ? "ok  " : "FAIL", what);
  if (!condition) ++failures;
}

}  // namespace

int main() {
  const auto kernels = registered_kernels();
  expect(std::any_of(kernels.begin(), kernels.end(),
                     [](const RegisteredKernel& k) {
                       return k.op_name == "my_ops.swish" && k.device_type == DeviceType::kCPU;
                     }),
         "my_ops.swish has a CPU kernel in strand's registry");

  Generator generator(5);
  const Var x(Tensor::normal({3, 7}, 0.0, 2.0, generator));
  const auto got = my_ops::swish(x).value().to_vector<float>();
  const auto want = (x * sigmoid(x)).value().to_vector<float>();
  double max_diff = 0.0;
  for (size_t i = 0; i < got.size(); ++i)
    max_diff = std::max(max_diff, static_cast<double>(std::fabs(got[i] - want[i])));
  expect(max_diff < 1e-6, "forward matches x * sigmoid(x)");

  // A non-contiguous (transposed) float64 input, used twice so gradients accumulate.
  const Var leaf(Tensor::normal({4, 5}, 0.0, 2.0, generator, DType::kFloat64), true);
  const auto fn = [](const std::vector<Var>& v) {
    const Var t = transpose(v[0], 0, 1);
    return my_ops::swish(t) * t;
  };
  const GradcheckResult result = gradcheck(fn, {leaf});
  if (!result.ok) std::printf("  %s\n", result.message.c_str());
  expect(result.ok, "gradcheck of swish(x^T) * x^T in float64");

  // Without grad mode the op records nothing.
  {
    NoGradGuard no_grad;
    expect(my_ops::swish(leaf).is_leaf(), "no graph under NoGradGuard");
  }
  return failures == 0 ? 0 : 1;
}
