// Umbrella header: Module, Layer, Sequential and the built-in layers and losses.
//   #include <strand/layers.h>
#pragma once

#include "layers/activations.h"
#include "layers/batch_norm.h"
#include "layers/channel_affine.h"
#include "layers/conv1d.h"
#include "layers/crop1d.h"
#include "layers/dense.h"
#include "layers/dropout.h"
#include "layers/fusion.h"
#include "layers/graph.h"
#include "layers/layer.h"
#include "layers/layer_catalog.h"
#include "layers/losses.h"
#include "layers/merge.h"
#include "layers/model.h"
#include "layers/module.h"
#include "layers/pooling.h"
#include "layers/sequential.h"
#include "strand/autograd.h"
