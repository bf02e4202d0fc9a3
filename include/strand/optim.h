// Umbrella header: the optimizers (SGD, Adam, RMSprop).
//   #include <strand/optim.h>
#pragma once

#include "optim/adam.h"
#include "optim/clipping.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
