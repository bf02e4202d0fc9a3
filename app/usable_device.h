// The device and float32 precision a run or command asks for, checked usable before anything is
// written: a CUDA device without the CUDA module or a GPU, or bf16 on a CPU without AVX-512 BF16
// or AMX, is a ConfigError naming the key or flag, never a silent fallback.
#pragma once

#include <string>

#include "core/device.h"
#include "tensor/precision.h"

namespace strand::app {

/// The device `text` names ("cpu", "cuda[:N]"), checked usable; else ConfigError naming `name`
/// (the key or flag) and the reason (a CUDA device is never replaced by the CPU silently).
Device usable_device(const std::string& text, const std::string& name);
/// The float32 precision named by `text` (fp32, tf32, bf16) when `device` can run it; else
/// ConfigError naming `name` (the key or flag) and why ("bf16 on cpu: this CPU has no AVX-512
/// BF16 or AMX; the CPU runs in fp32 (the default)").
Float32Precision usable_precision(const std::string& text, const Device& device,
                                  const std::string& name);

}  // namespace strand::app
