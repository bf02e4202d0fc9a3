// Umbrella header: scoring genetic variants with a trained model (namespace strand::variants):
// the VCF/BCF/TSV reader, chrombpnet's allele windows, the scores and their files.
//   #include <strand/variants.h>
#pragma once

#include "strand/alternates.h"
#include "strand/train.h"
#include "variants/allele_window_source.h"
#include "variants/allele_windows.h"
#include "variants/contig_names.h"
#include "variants/pair_forward.h"
#include "variants/score_files.h"
#include "variants/variant_attributions.h"
#include "variants/variant_reader.h"
#include "variants/variant_scorer.h"
#include "variants/variant_scores.h"
