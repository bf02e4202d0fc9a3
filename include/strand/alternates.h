// Umbrella header: the one engine for alternate sequences (namespace strand::alternates): a
// model's outputs for sequences that differ from reference sequences in a few positions (ISM's
// mutants, variants' alt alleles), computed from the references' activations; its windowed and
// fused strategies, the counts readout and the units of work it runs in.
//   #include <strand/alternates.h>
#pragma once

#include "alternates/alternate_batch.h"
#include "alternates/alternate_forward.h"
#include "alternates/change_step.h"
#include "alternates/change_windows.h"
#include "alternates/fused_sequential.h"
#include "alternates/parallel_units.h"
#include "alternates/relu_readout.h"
#include "alternates/windowed_changes.h"
#include "strand/layers.h"
