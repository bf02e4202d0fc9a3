// Umbrella header: explaining a trained model (namespace strand::explain): in-silico saturation
// mutagenesis, DeepLIFT/SHAP, gradients, marginalisation, logos, and the batched evaluation of
// base codes. Includes the training headers.
//   #include <strand/explain.h>
#pragma once

#include "explain/deep_lift_shap.h"
#include "explain/fast_ism.h"
#include "explain/gradient.h"
#include "explain/insertion_values.h"
#include "explain/ism.h"
#include "explain/logo.h"
#include "explain/marginalize.h"
#include "explain/references.h"
#include "explain/target.h"
#include "strand/alternates.h"
#include "strand/train.h"
