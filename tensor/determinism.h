// Deterministic mode: when on, every op picks an implementation whose result does not depend
// on timing or scheduling, so two runs with the same seed and data are bit-identical on the
// same device. strand's own CPU and CUDA kernels reduce in a fixed order (no atomics) and are
// always deterministic; the switch matters where a choice is made at run time: the CUDA Conv1D
// selection (timed strand-vs-cuDNN choices are skipped) and cuDNN's algorithms (only those
// cuDNN reports as deterministic).
//
// Off by default. STRAND_DETERMINISTIC=1 turns it on at start-up; the CLI's config key
// "deterministic" and set_deterministic() change it at run time.
#pragma once

namespace strand {

/// Whether deterministic mode is on.
bool deterministic();
/// Turns deterministic mode on or off for every later op (process-wide).
void set_deterministic(bool on);

}  // namespace strand
