// Umbrella header: the training loop (fit, evaluate, predict), callbacks, metrics and
// checkpoints (namespace strand::train). Includes the layers, optimizers and data headers.
//   #include <strand/train.h>
#pragma once

#include "strand/data.h"
#include "strand/io.h"
#include "strand/layers.h"
#include "strand/optim.h"
#include "train/callback.h"
#include "train/callbacks.h"
#include "train/checkpoint.h"
#include "train/code_inference.h"
#include "train/csv_logger.h"
#include "train/evaluation.h"
#include "train/fit.h"
#include "train/graph_step.h"
#include "train/lr_callbacks.h"
#include "train/metric_names.h"
#include "train/metrics.h"
#include "train/objective.h"
#include "train/partial_epoch.h"
#include "train/progress_bar.h"
#include "train/regression_metrics.h"
#include "train/reverse_complement_average.h"
#include "train/tensorboard.h"
#include "train/training_accuracy.h"
#include "train/training_batch.h"
