// Graph: a Model whose layers are wired by name, as Keras's functional API does: each node applies
// a layer to the outputs of earlier nodes or of the model's inputs ("sequence", "control"), so
// residual blocks (Add), concatenation (Concat) and several heads are plain node lists. A node's
// parameters are "<node>.weight", "<node>.bias", ... in checkpoints.
//
//   Graph g;
//   g.add("conv", Conv1D(4, 64, 21, {.padding = Padding::kSame}), {"sequence"});
//   g.add("relu", ReLU(), {"conv"});
//   g.add("body", Conv1D(64, 64, 3, {.dilation = 2, .padding = Padding::kSame}), {"relu"});
//   g.add("residual", Add(), {"relu", "body"});
//   g.add_output("profile", "...");  g.add_output("counts", "...");
//
// An output whose node is a Sigmoid, Softmax or Exp layer gives that node's input from
// forward_outputs() and names the activation in output_activation() (layers/model.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "layers/layer.h"

namespace strand {

class Graph : public Model {
 public:
  /// One node: a layer and the names of what it reads.
  struct Node {
    std::string name;
    std::shared_ptr<Layer> layer;
    std::vector<std::string> inputs;  ///< earlier nodes, or model inputs ("sequence", ...)
  };

  Graph() = default;

  /// Adds node `name`, `layer` applied to `inputs` (names of earlier nodes, or of the model's
  /// inputs: "sequence", a track such as "control"). Throws when the name is taken, is not a
  /// plain name (letters, digits, '_', '-'), or the input count does not suit the layer.
  template <typename L>
  std::shared_ptr<L> add(std::string name, L layer, std::vector<std::string> inputs) {
    auto shared = std::make_shared<L>(std::move(layer));
    add_node(std::move(name), shared, std::move(inputs));
    return shared;
  }
  /// add() for a layer already shared (e.g. built by the layer catalog).
  void add_node(std::string name, std::shared_ptr<Layer> layer, std::vector<std::string> inputs);

  /// Declares an output called `name` reading node `node`, in the order outputs are returned.
  void add_output(std::string name, std::string node);

  /// The nodes, in the order they run.
  const std::vector<Node>& nodes() const { return nodes_; }
  /// The node called `name`, or nullptr.
  const Node* find_node(const std::string& name) const;
  /// The node whose value forward_outputs() returns for output `index`: the output's node, or
  /// the input of the final activation (Sigmoid, Softmax, Exp) it ends in.
  const Node& output_value_node(size_t index) const;
  /// The model inputs the nodes read ("sequence" first), in order of first use.
  std::vector<std::string> input_names() const;

  /// Whether fusable runs (Conv1D -> ReLU -> GlobalMaxPool1D, each read by the next alone) run
  /// as one kernel (default on; the results are the same).
  void set_fusion(bool enabled) { fusion_ = enabled; }

  std::vector<std::string> output_names() const override;
  std::vector<Var> forward_outputs(const ModelInputs& inputs) override;
  Activation output_activation(size_t index) const override;
  /// From the layers' output_shape_of(), node by node (no forward pass); throws naming the
  /// first node whose inputs do not fit it.
  std::vector<Shape> output_shapes(const InputShapes& inputs) const override;
  /// Per node: name (type), output shape, parameters, and the nodes it reads; then the outputs.
  std::string summary(const InputShapes& inputs) const override;
  std::string type_name() const override { return "Graph"; }

  /// The per-sample shape of every node's output for `inputs`, in node order; throws naming the
  /// first node whose inputs do not fit its layer.
  std::vector<Shape> node_shapes(const InputShapes& inputs) const;

 private:
  // Where a node's input comes from: an earlier node (index >= 0) or a model input (name).
  struct Source {
    int64_t node = -1;
    std::string input;
  };
  struct Output {
    std::string name;
    int64_t node = 0;
  };
  // The plan forward_outputs() follows, made once the outputs are known: which nodes run, the
  // value each output returns, and the fused runs.
  struct Plan {
    std::vector<bool> runs;                 // per node
    std::vector<int64_t> output_values;     // per output: the node whose value it returns
    std::vector<int64_t> fused_run_length;  // per node: > 1 starts a fused run of that length
  };

  const Plan& plan() const;
  Shape source_shape(const Source& source, const InputShapes& inputs,
                     const std::vector<Shape>& shapes) const;

  std::vector<Node> nodes_;
  std::vector<std::vector<Source>> sources_;  // per node
  std::vector<Output> outputs_;
  bool fusion_ = true;
  mutable std::shared_ptr<const Plan> plan_;  // reset when nodes or outputs change
};

}  // namespace strand
