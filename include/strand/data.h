// Umbrella header: the data loader, its sources and the motif simulation (namespace
// strand::data).
//   #include <strand/data.h>
#pragma once

#include "data/array_source.h"
#include "data/batch.h"
#include "data/data_error.h"
#include "data/data_loader.h"
#include "data/encoding.h"
#include "data/interval_source.h"
#include "data/intervals.h"
#include "data/list_syntax.h"
#include "data/loader_config.h"
#include "data/meme.h"
#include "data/negatives.h"
#include "data/record_source.h"
#include "data/sampler.h"
#include "data/scoring_windows.h"
#include "data/sequence_source.h"
#include "data/simulation/motif_library.h"
#include "data/simulation/motif_simulation.h"
#include "data/split_sources.h"
#include "data/splits.h"
#include "data/subset_source.h"
