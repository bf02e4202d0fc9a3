// Kernel efficiency of strand's convolution and GEMM kernels on the layers of the benchmark
// models, as GFLOP/s and as a share of the machine's FMA peak measured in the same run
// (bench/fma_peak.h): issue 13's ">= 50% of peak in the conv and GEMM kernels" is read here.
//
//   kernel_efficiency [--threads N] [--seconds S] [--batch B] [--only TEXT] [--precision bf16]
//
// --precision bf16 runs the dense layers' GEMMs with bfloat16 operands (kernels/cpu/gemm_bf16.h;
// the one-hot layers stay float32, as in training); the peak stays the float32 FMA peak.
//
// --only keeps the layers whose model or name contains TEXT (e.g. "basset", "conv3").
// For every Conv1D layer of Basset, the generic 3-conv network and a BPNet-like network
// (kernels/cpu/conv1d.h, conv1d_onehot.h), one line per pass: forward, backward-data and
// backward-weight, and "backward (all)" = conv1d_backward, the one-pass kernel training runs
// (all gradients, bias included). One-hot layers (base codes) count the FLOPs of the equivalent
// dense convolution over one-hot input (the gather does a quarter of them, without
// multiplications); they have no backward-data pass. Dense layers are (B, in) @ (in, out) GEMMs
// (kernels/cpu/gemm.h) and their two gradient products. FLOPs = 2 * multiply-adds; the time is
// the best of repeated calls within the budget (at least 3), so it reads the kernel, not the
// noise of a shared machine.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/fma_peak.h"
#include "kernels/cpu/conv1d.h"
#include "kernels/cpu/conv1d_onehot.h"
#include "kernels/cpu/gemm_bf16.h"

namespace {

using strand::kernels::Conv1DGeometry;
namespace cpu = strand::kernels::cpu;

cpu::GemmPrecision precision = cpu::GemmPrecision::kFloat32;  // --precision

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Best time of `run` within `budget` seconds (at least 3 calls after a warm-up).
double best_seconds(const std::function<void()>& run, double budget) {
  run();
  double best = 1e30;
  const auto begin = std::chrono::steady_clock::now();
  for (int call = 0; call < 3 || seconds_since(begin) < budget; ++call) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

std::vector<float> values(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t state = seed * 2654435761u + 1u;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) - 0.5f;
  }
  return v;
}

struct ConvLayer {
  const char* model;
  const char* name;
  int64_t in_channels, out_channels, kernel_size, length, stride, dilation, pad_left, pad_right;
  bool codes;  // one-hot input from base codes
};

Conv1DGeometry geometry(const ConvLayer& c, int64_t batch) {
  Conv1DGeometry g;
  g.batch = batch;
  g.in_channels = c.in_channels;
  g.length = c.length;
  g.out_channels = c.out_channels;
  g.kernel_size = c.kernel_size;
  g.stride = c.stride;
  g.dilation = c.dilation;
  g.pad_left = c.pad_left;
  g.out_length =
      (c.length + c.pad_left + c.pad_right - c.dilation * (c.kernel_size - 1) - 1) / c.stride + 1;
  return g;
}

void print_row(const std::string& model, const std::string& layer, const char* pass, double flops,
               double seconds, double peak) {
  const double gflops = flops / seconds * 1e-9;
  std::printf("%-13s %-44s %-16s %8.3f %9.1f %7.1f%%\n", model.c_str(), layer.c_str(), pass,
              seconds * 1e3, gflops, 100.0 * gflops / peak);
}

void time_conv(const ConvLayer& c, int64_t batch, double budget, double peak) {
  const Conv1DGeometry g = geometry(c, batch);
  const double flops = 2.0 * static_cast<double>(g.batch * g.out_channels * g.out_length *
                                                 g.in_channels * g.kernel_size);
  const auto x = values(g.batch * g.in_channels * g.length, 1);
  const auto w = values(g.out_channels * g.in_channels * g.kernel_size, 2);
  const auto bias = values(g.out_channels, 3);
  const auto grad_out = values(g.batch * g.out_channels * g.out_length, 4);
  std::vector<uint8_t> codes(static_cast<size_t>(g.batch * g.length));
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint8_t>((i * 7 + i / 3) % 4);
  std::vector<float> out(grad_out.size()), grad_x(x.size()), grad_w(w.size()), grad_b(bias.size());
  const std::string layer = std::string(c.name) + " (" + std::to_string(c.in_channels) + "->" +
                            std::to_string(c.out_channels) + ", k" + std::to_string(c.kernel_size) +
                            ", L_out " + std::to_string(g.out_length) + ")";
  if (c.codes) {
    print_row(
        c.model, layer, "forward", flops,
        best_seconds(
            [&] { cpu::conv1d_onehot_forward(g, codes.data(), w.data(), bias.data(), out.data()); },
            budget),
        peak);
    print_row(c.model, layer, "backward-weight", flops,
              best_seconds(
                  [&] {
                    cpu::conv1d_onehot_backward_weight(g, grad_out.data(), codes.data(),
                                                       grad_w.data());
                  },
                  budget),
              peak);
    print_row(c.model, layer, "backward (all)", flops,
              best_seconds(
                  [&] {
                    cpu::conv1d_backward<float>(g, grad_out.data(), nullptr, codes.data(), w.data(),
                                                nullptr, nullptr, grad_w.data(), grad_b.data());
                  },
                  budget),
              peak);
    return;
  }
  print_row(c.model, layer, "forward", flops,
            best_seconds(
                [&] {
                  cpu::conv1d_forward(g, x.data(), w.data(), bias.data(), out.data(), false,
                                      precision);
                },
                budget),
            peak);
  print_row(c.model, layer, "backward-data", flops,
            best_seconds(
                [&] {
                  cpu::conv1d_backward_input(g, grad_out.data(), w.data(), grad_x.data(),
                                             precision);
                },
                budget),
            peak);
  print_row(c.model, layer, "backward-weight", flops,
            best_seconds(
                [&] {
                  cpu::conv1d_backward_weight(g, grad_out.data(), x.data(), grad_w.data(),
                                              precision);
                },
                budget),
            peak);
  print_row(c.model, layer, "backward (all)", 2.0 * flops,
            best_seconds(
                [&] {
                  cpu::conv1d_backward<float>(g, grad_out.data(), x.data(), nullptr, w.data(),
                                              nullptr, grad_x.data(), grad_w.data(), grad_b.data(),
                                              precision);
                },
                budget),
            peak);
}

struct DenseLayer {
  const char* model;
  int64_t in_features, out_features;
};

void time_dense(const DenseLayer& d, int64_t batch, double budget, double peak) {
  const int64_t m = batch, k = d.in_features, n = d.out_features;
  const double flops = 2.0 * static_cast<double>(m * n * k);
  const auto x = values(m * k, 5), w = values(k * n, 6), grad_out = values(m * n, 7);
  std::vector<float> out(static_cast<size_t>(m * n)), grad_x(x.size()), grad_w(w.size());
  const std::string layer = "dense (" + std::to_string(k) + "->" + std::to_string(n) + ", batch " +
                            std::to_string(m) + ")";
  // out (B, out) = x (B, in) @ w (in, out)
  print_row(d.model, layer, "forward", flops,
            best_seconds(
                [&] {
                  cpu::gemm<float>(precision, m, n, k, x.data(), k, 1, w.data(), n, 1, 0.0f,
                                   out.data(), n);
                },
                budget),
            peak);
  // grad_x (B, in) = grad_out (B, out) @ w^T
  print_row(d.model, layer, "backward-data", flops,
            best_seconds(
                [&] {
                  cpu::gemm<float>(precision, m, k, n, grad_out.data(), n, 1, w.data(), 1, n, 0.0f,
                                   grad_x.data(), k);
                },
                budget),
            peak);
  // grad_w (in, out) = x^T @ grad_out
  print_row(d.model, layer, "backward-weight", flops,
            best_seconds(
                [&] {
                  cpu::gemm<float>(precision, k, n, m, x.data(), 1, k, grad_out.data(), n, 1, 0.0f,
                                   grad_w.data(), n);
                },
                budget),
            peak);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  double budget = 0.5;
  int64_t batch = 64;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--seconds") == 0) budget = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--batch") == 0) batch = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--precision") == 0 && std::strcmp(argv[i + 1], "bf16") == 0) {
      precision = cpu::GemmPrecision::kBfloat16;
    }
  }
  omp_set_num_threads(threads);
  const double peak = strand::bench::fma_peak(1.0);
  std::printf("FMA peak, %d threads: %.1f GFLOP/s; batch %lld; GEMM library: %s; operands: %s\n\n",
              threads, peak, static_cast<long long>(batch), cpu::gemm_library(),
              precision == cpu::GemmPrecision::kBfloat16 ? "bfloat16" : "float32");
  std::printf("%-13s %-44s %-16s %8s %9s %8s\n", "model", "layer", "pass", "ms", "GFLOP/s",
              "% peak");
  // Basset (600 bp): Conv -> BatchNorm -> ReLU -> MaxPool(3, 4, 4), then Dense 2000 -> 1000.
  // generic_conv (500 bp): Conv 'same' on codes, then two strided convs; Dense 896 -> 64.
  // BPNet-like (2114 bp): Conv on codes, dilated 3-tap convs with 'same' padding, the width-75
  // profile head ('same').
  std::vector<ConvLayer> convs = {
      {"basset", "conv1 (codes)", 4, 300, 19, 600, 1, 1, 0, 0, true},
      {"basset", "conv2", 300, 200, 11, 194, 1, 1, 0, 0, false},
      {"basset", "conv3", 200, 200, 7, 46, 1, 1, 0, 0, false},
      {"generic_conv", "conv1 (codes, same)", 4, 32, 19, 500, 1, 1, 9, 9, true},
      {"generic_conv", "conv2 (stride 4)", 32, 32, 11, 500, 4, 1, 0, 0, false},
      {"generic_conv", "conv3 (stride 4, dilation 2)", 32, 32, 7, 123, 4, 2, 0, 0, false},
      {"bpnet", "conv1 (codes, same)", 4, 64, 21, 2114, 1, 1, 10, 10, true},
  };
  for (int64_t dilation = 2; dilation <= 256; dilation *= 2) {
    static std::vector<std::string> names;  // stable storage for the layer names
    names.push_back("dilated (dilation " + std::to_string(dilation) + ", same)");
    convs.push_back(
        {"bpnet", names.back().c_str(), 64, 64, 3, 2114, 1, dilation, dilation, dilation, false});
  }
  convs.push_back({"bpnet", "profile head (k75, same)", 64, 2, 75, 2114, 1, 1, 37, 37, false});
  const auto wanted = [&](const std::string& model, const std::string& name) {
    return only.empty() || model.find(only) != std::string::npos ||
           name.find(only) != std::string::npos;
  };
  for (const ConvLayer& c : convs) {
    if (wanted(c.model, c.name)) time_conv(c, batch, budget, peak);
  }
  for (const DenseLayer& d :
       {DenseLayer{"basset", 2000, 1000}, DenseLayer{"basset", 1000, 1000},
        DenseLayer{"basset", 1000, 164}, DenseLayer{"generic_conv", 896, 64}}) {
    if (wanted(d.model, "dense")) time_dense(d, batch, budget, peak);
  }
  return 0;
}
