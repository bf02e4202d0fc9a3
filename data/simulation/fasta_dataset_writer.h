// Writes a simulated dataset as FASTA files plus label tables.
#pragma once

#include <filesystem>

#include "data/simulation/motif_simulation.h"

namespace strand::data {

/// Writes `dir`/{train,valid,test}.fa and matching {train,valid,test}.tsv (creating `dir`).
///
/// FASTA records are `>seq<id> label=<0|1> motif=<name> start=<s> strand=<+|->` (start/strand
/// only for positives; <id> is the zero-padded generation index) followed by the sequence on one
/// line. The TSV files have no header line; each line is `seq<id><TAB><label>` in FASTA order.
/// Every file is written atomically (temp file, fsync, rename).
void write_fasta_dataset(const std::filesystem::path& dir, const SimulatedDataset& dataset);

}  // namespace strand::data
