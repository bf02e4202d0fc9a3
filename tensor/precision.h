// The float32 precision of matrix math on a GPU: exact float32 (the default), or TensorFloat-32,
// which NVIDIA's tensor cores (A100, H100) run several times faster with a 10-bit mantissa in
// the products (sums stay float32): about 1e-3 relative error per product. An opt-in: results
// then no longer follow the CPU to float32 rounding. cuBLAS's matmuls and cuDNN's convolutions
// take it; strand's own kernels always compute in float32 or float64. PyTorch allows TF32 in
// cuDNN convolutions by default, so a comparison with it states which mode each side ran.
//
// Off by default; the CLI's config key "precision" (fp32 or tf32) and set_float32_precision()
// change it at run time, for every later op (process-wide).
#pragma once

namespace strand {

enum class Float32Precision { kFp32, kTf32 };

/// The precision float32 matrix math runs at now.
Float32Precision float32_precision();
/// Changes it for every later op (cuBLAS handles and cuDNN plans follow on their next use).
void set_float32_precision(Float32Precision precision);

}  // namespace strand
