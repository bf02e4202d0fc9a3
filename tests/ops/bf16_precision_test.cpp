// The float32 precision setting reaches the CPU ops (tensor/precision.h): under kBf16, matmul
// and the dense Conv1D passes (forward, both gradients, the one-pass backward) give the bits of
// the bfloat16 kernels; conv over base codes, float64 and, once the scope ends, fp32 are
// untouched.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kernels/cpu/conv1d.h"
#include "kernels/cpu/gemm_bf16.h"
#include "ops/conv1d.h"
#include "ops/matmul.h"
#include "tensor/precision.h"
#include "test_helpers.h"

namespace strand {
namespace {

using testing::random_tensor;
namespace cpu = kernels::cpu;
constexpr cpu::GemmPrecision kBf16 = cpu::GemmPrecision::kBfloat16;

std::vector<float> values(const Tensor& t) { return t.contiguous().to_vector<float>(); }

}  // namespace

TEST_CASE("under the bf16 precision, matmul and dense conv1d run on bfloat16 operands") {
  const std::string reason = cpu::bf16_gemm_unavailable_reason();
  if (!reason.empty()) STRAND_SKIP(reason.c_str());
  const Tensor a = random_tensor({48, 70}, 1, DType::kFloat32);
  const Tensor b = random_tensor({70, 33}, 2, DType::kFloat32);
  const Tensor x = random_tensor({3, 12, 40}, 3, DType::kFloat32);
  const Tensor w = random_tensor({10, 12, 5}, 4, DType::kFloat32);
  const Tensor bias = random_tensor({10}, 5, DType::kFloat32);
  const Conv1DParams params{1, 1, 2, 2};
  const auto g = conv_geometry(x.shape(), w.shape(), params);
  const Tensor grad_out = random_tensor({3, 10, g.out_length}, 6, DType::kFloat32);
  const std::vector<float> fp32_product = values(ops::matmul(a, b));

  // The kernels' bfloat16 results, called directly.
  std::vector<float> product(48 * 33), conv(static_cast<size_t>(grad_out.numel()));
  std::vector<float> grad_x(static_cast<size_t>(x.numel())), grad_w(static_cast<size_t>(w.numel()));
  cpu::gemm<float>(kBf16, 48, 33, 70, a.data<float>(), 70, 1, b.data<float>(), 33, 1, 0.0F,
                   product.data(), 33);
  cpu::conv1d_forward<float>(g, x.data<float>(), w.data<float>(), bias.data<float>(), conv.data(),
                             false, kBf16);
  cpu::conv1d_backward_input<float>(g, grad_out.data<float>(), w.data<float>(), grad_x.data(),
                                    kBf16);
  cpu::conv1d_backward_weight<float>(g, grad_out.data<float>(), x.data<float>(), grad_w.data(),
                                     kBf16);
  {
    const Float32PrecisionScope scope(Float32Precision::kBf16);
    CHECK(values(ops::matmul(a, b)) == product);
    // Transposed views are converted as they are stored (columns as columns).
    const Tensor bt = b.transpose(0, 1), at = a.transpose(0, 1);
    CHECK(testing::max_abs_difference(ops::matmul(bt, at),
                                      ops::matmul(bt.contiguous(), at.contiguous())) < 1e-5);
    CHECK(values(ops::conv1d(x, w, bias, params)) == conv);
    CHECK(values(ops::conv1d_backward_input(grad_out, w, x.shape(), params)) == grad_x);
    CHECK(values(ops::conv1d_backward_weight(grad_out, x, w.shape(), params)) == grad_w);
    // The one-pass backward sums its weight gradient per thread: bf16 operands, float32 sums.
    const auto [one_x, one_w, one_bias] =
        ops::conv1d_backward(grad_out, x, w, Tensor(), params, true, true);
    CHECK(values(one_x) == grad_x);
    CHECK(testing::max_abs_difference(one_w, Tensor::from_vector(grad_w, w.shape())) < 1e-4);
  }
  CHECK(float32_precision() == Float32Precision::kFp32);  // the scope restored it
  CHECK(values(ops::matmul(a, b)) == fp32_product);
  CHECK(fp32_product != product);  // the operands were rounded
}

TEST_CASE("under the bf16 precision, conv over base codes and float64 stay exact") {
  const Tensor codes = Tensor::from_vector<uint8_t>({0, 1, 2, 3, 4, 3, 2, 1, 0, 0, 1, 2}, {2, 6});
  const Tensor w = random_tensor({5, 4, 3}, 7, DType::kFloat32);
  const Tensor bias = random_tensor({5}, 8, DType::kFloat32);
  const Tensor a = random_tensor({40, 50}, 9), b = random_tensor({50, 30}, 10);  // float64
  const Conv1DParams params{1, 1, 0, 0};
  const std::vector<float> fp32 = values(ops::conv1d(codes, w, bias, params));
  const std::vector<double> fp64 = ops::matmul(a, b).to_vector<double>();
  const Float32PrecisionScope scope(Float32Precision::kBf16);
  CHECK(values(ops::conv1d(codes, w, bias, params)) == fp32);
  CHECK(ops::matmul(a, b).to_vector<double>() == fp64);
}

}  // namespace strand
