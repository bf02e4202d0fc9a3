// The target's values of background sequences and of the backgrounds with motifs written into
// them, for marginalisation (explain/marginalize.h). Where the alternates engine
// (alternates/alternate_forward.h) takes the model, the backgrounds run once as references and
// each set of insertions is an alternate of every background over the columns its motifs cover
// (a motif of 10 bases in a 2,114 bp BPNet input changes a small part of each layer); else
// (a model on a GPU, one the engine declines, or `alternates` off) every set runs whole. Both
// give the same values up to float rounding.
#pragma once

#include <cstdint>
#include <vector>

#include "explain/marginalize.h"
#include "layers/model.h"
#include "tensor/tensor.h"

namespace strand::explain {

/// The target's values of each background ((N, L) codes) and of each set of insertions written
/// into them (later ones over earlier ones): (N, T) each, T the output's tasks (target.task -1)
/// or 1.
struct InsertionValues {
  Tensor background;
  std::vector<Tensor> inserted;  ///< per set
};
InsertionValues insertion_values(Model& model, const Tensor& backgrounds,
                                 const std::vector<std::vector<Insertion>>& sets,
                                 const MarginalizeOptions& options);

/// The backgrounds with `insertions` written in, as a new (N, L) tensor. Throws when an
/// insertion does not fit inside the sequences.
Tensor with_insertions(const Tensor& backgrounds, const std::vector<Insertion>& insertions);

}  // namespace strand::explain
