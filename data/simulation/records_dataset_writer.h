// Writes a simulated sequence-level dataset as FASTA records plus a label TSV per split, the
// records format `strand train --format records` reads.
#pragma once

#include <filesystem>

#include "data/simulation/sequence_simulations.h"

namespace strand::data {

/// Writes `dir`/{train,valid,test}.fa and matching {train,valid,test}.tsv (creating `dir`).
///
/// FASTA records are `>seq<id> motifs=<name>@<start><+|->,...` (`motifs=` lists the planted
/// instances, start 0-based; nothing when none) followed by the sequence on one line; <id> is
/// the zero-padded generation index. Each TSV starts with the header `name<TAB><task>...` (the
/// task names: the motifs of a multi-motif simulation, else the simulation's name), then one
/// line `seq<id><TAB><0|1>...` per record in FASTA order. Every file is written atomically.
void write_records_dataset(const std::filesystem::path& dir, const SequenceSplits& splits);

}  // namespace strand::data
