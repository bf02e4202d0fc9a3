// Graph: nodes wired by name, their plan (which nodes run, fused runs, final activations), shapes
// and summary.
#include "layers/graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "layers/activations.h"
#include "layers/fusion.h"

namespace strand {
namespace {

bool is_plain_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

}  // namespace

void Graph::add_node(std::string name, std::shared_ptr<Layer> layer,
                     std::vector<std::string> inputs) {
  STRAND_CHECK(layer != nullptr, "Graph: node '{}' has no layer", name);
  STRAND_CHECK(is_plain_name(name),
               "Graph: node name '{}' must be letters, digits, '_' or '-' (it names the node's "
               "parameters, '{}.weight')",
               name, name);
  STRAND_CHECK(name != kSequenceInput && find_node(name) == nullptr,
               "Graph: the name '{}' is taken (by a node or the sequence input)", name);
  std::vector<Source> sources;
  for (const std::string& input : inputs) {
    Source source;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].name == input) source.node = static_cast<int64_t>(i);
    }
    if (source.node < 0) {
      // Not an earlier node: a model input, resolved when the model runs.
      STRAND_CHECK(is_plain_name(input), "Graph: node '{}' reads '{}', which is no name", name,
                   input);
      source.input = input;
    }
    sources.push_back(std::move(source));
  }
  const int count = layer->input_count();
  STRAND_CHECK(
      count == kTwoOrMoreInputs ? inputs.size() >= 2 : inputs.size() == static_cast<size_t>(count),
      "Graph: node '{}' ({}) takes {} input(s), but {} are listed", name, layer->type_name(),
      count == kTwoOrMoreInputs ? "two or more" : std::to_string(count), inputs.size());
  register_module(name, layer);
  nodes_.push_back(Node{std::move(name), std::move(layer), std::move(inputs)});
  sources_.push_back(std::move(sources));
  plan_.reset();
}

void Graph::add_output(std::string name, std::string node) {
  const Node* found = find_node(node);
  STRAND_CHECK(found != nullptr, "Graph: output '{}' reads '{}', which is no node", name, node);
  for (const Output& output : outputs_) {
    STRAND_CHECK(output.name != name, "Graph: there is already an output called '{}'", name);
  }
  outputs_.push_back(Output{std::move(name), found - nodes_.data()});
  plan_.reset();
}

const Graph::Node* Graph::find_node(const std::string& name) const {
  for (const Node& node : nodes_) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

std::vector<std::string> Graph::input_names() const {
  std::vector<std::string> names = {kSequenceInput};
  for (const auto& sources : sources_) {
    for (const Source& source : sources) {
      if (source.node < 0 && std::find(names.begin(), names.end(), source.input) == names.end()) {
        names.push_back(source.input);
      }
    }
  }
  return names;
}

std::vector<std::string> Graph::output_names() const {
  std::vector<std::string> names;
  for (const Output& output : outputs_) names.push_back(output.name);
  return names;
}

Activation Graph::output_activation(size_t index) const {
  STRAND_CHECK(index < outputs_.size(), "Graph: no output {}", index);
  const Plan& p = plan();
  const int64_t node = outputs_[index].node;
  return p.output_values[index] == node ? Activation::kIdentity
                                        : final_activation_of(*nodes_[node].layer);
}

const Graph::Node& Graph::output_value_node(size_t index) const {
  STRAND_CHECK(index < outputs_.size(), "Graph: no output {}", index);
  return nodes_[static_cast<size_t>(plan().output_values[index])];
}

const Graph::Plan& Graph::plan() const {
  if (plan_) return *plan_;
  STRAND_CHECK(!outputs_.empty(), "Graph: no outputs declared (add_output)");
  auto made = std::make_shared<Plan>();
  const size_t n = nodes_.size();
  // An output node that is a final activation of one earlier node returns that node's value.
  for (const Output& output : outputs_) {
    const Node& node = nodes_[output.node];
    const Source& first = sources_[output.node][0];
    const bool strip = final_activation_of(*node.layer) != Activation::kIdentity &&
                       node.inputs.size() == 1 && first.node >= 0;
    made->output_values.push_back(strip ? first.node : output.node);
  }
  // The nodes that must run: everything the returned values depend on.
  made->runs.assign(n, false);
  std::vector<int64_t> stack(made->output_values.begin(), made->output_values.end());
  while (!stack.empty()) {
    const int64_t i = stack.back();
    stack.pop_back();
    if (made->runs[i]) continue;
    made->runs[i] = true;
    for (const Source& source : sources_[i]) {
      if (source.node >= 0) stack.push_back(source.node);
    }
  }
  // Who reads each node's value (running nodes and returned outputs): a run fuses only
  // through nodes whose value nothing else reads.
  std::vector<int64_t> readers(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!made->runs[i]) continue;
    for (const Source& source : sources_[i]) {
      if (source.node >= 0) ++readers[source.node];
    }
  }
  for (const int64_t value : made->output_values) ++readers[value];
  made->fused_run_length.assign(n, 1);
  if (fusion_) {
    for (size_t i = 0; i < n; ++i) {
      if (!made->runs[i] || sources_[i].size() != 1) continue;
      // The chain from node i: each next node is the only reader of the one before.
      std::vector<Layer*> chain = {nodes_[i].layer.get()};
      size_t at = i;
      while (readers[at] == 1) {
        size_t next = at + 1;
        while (next < n && !(made->runs[next] && sources_[next].size() == 1 &&
                             sources_[next][0].node == static_cast<int64_t>(at))) {
          ++next;
        }
        if (next == n) break;
        chain.push_back(nodes_[next].layer.get());
        at = next;
      }
      made->fused_run_length[i] = static_cast<int64_t>(fused_run_length(chain));
    }
  }
  plan_ = made;
  return *plan_;
}

std::vector<Var> Graph::forward_outputs(const ModelInputs& inputs) {
  const Plan& p = plan();
  const size_t n = nodes_.size();
  std::vector<Var> values(n);
  std::vector<bool> done(n, false);
  std::vector<Var> arguments;
  for (size_t i = 0; i < n; ++i) {
    if (!p.runs[i] || done[i]) continue;
    arguments.clear();
    for (const Source& source : sources_[i]) {
      arguments.push_back(source.node >= 0 ? values[source.node] : inputs.get(source.input));
    }
    if (p.fused_run_length[i] > 1) {
      // The run's nodes follow each other through single readers: find them again.
      std::vector<Layer*> run = {nodes_[i].layer.get()};
      std::vector<size_t> members = {i};
      for (size_t next = i + 1; next < n && run.size() < static_cast<size_t>(p.fused_run_length[i]);
           ++next) {
        if (p.runs[next] && sources_[next].size() == 1 &&
            sources_[next][0].node == static_cast<int64_t>(members.back())) {
          run.push_back(nodes_[next].layer.get());
          members.push_back(next);
        }
      }
      values[members.back()] = forward_fused_run(run, run.size(), arguments[0]);
      for (const size_t member : members) done[member] = true;
      continue;
    }
    try {
      values[i] = nodes_[i].layer->forward_inputs(arguments);
    } catch (const Error& error) {
      throw Error(fmt::format("node '{}' ({}): {}", nodes_[i].name, nodes_[i].layer->type_name(),
                              error.what()));
    }
    done[i] = true;
  }
  std::vector<Var> outputs;
  for (const int64_t value : p.output_values) outputs.push_back(values[value]);
  return outputs;
}

Shape Graph::source_shape(const Source& source, const InputShapes& inputs,
                          const std::vector<Shape>& shapes) const {
  return source.node >= 0 ? shapes[source.node] : inputs.get(source.input);
}

std::vector<Shape> Graph::node_shapes(const InputShapes& inputs) const {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    std::vector<Shape> in;
    try {
      for (const Source& source : sources_[i]) in.push_back(source_shape(source, inputs, shapes));
      shapes.push_back(nodes_[i].layer->output_shape_of(in));
    } catch (const Error& error) {
      throw Error(fmt::format("node '{}' ({}): {}", nodes_[i].name, nodes_[i].layer->type_name(),
                              error.what()));
    }
  }
  return shapes;
}

std::vector<Shape> Graph::output_shapes(const InputShapes& inputs) const {
  const std::vector<Shape> shapes = node_shapes(inputs);
  std::vector<Shape> out;
  for (const int64_t value : plan().output_values) out.push_back(shapes[value]);
  return out;
}

std::string Graph::summary(const InputShapes& inputs) const {
  const std::vector<Shape> shapes = node_shapes(inputs);
  std::string text = fmt::format("{:<32}{:<22}{:>10}  {}\n", "Layer (type)", "Output shape",
                                 "Param #", "Connected to");
  text += std::string(90, '=') + "\n";
  for (const std::string& input : input_names()) {
    text += fmt::format("{:<32}{:<22}{:>10}\n", fmt::format("{} (Input)", input),
                        batched_shape_text(inputs.get(input)), 0);
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& node = nodes_[i];
    text += fmt::format(
        "{:<32}{:<22}{:>10}  {}\n", fmt::format("{} ({})", node.name, node.layer->type_name()),
        batched_shape_text(shapes[i]), node.layer->parameter_count(), fmt::join(node.inputs, ", "));
  }
  text += std::string(90, '=') + "\n";
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Activation activation = output_activation(i);
    text += fmt::format("output '{}': node '{}' {}{}\n", outputs_[i].name,
                        nodes_[outputs_[i].node].name, batched_shape_text(shapes[outputs_[i].node]),
                        activation == Activation::kIdentity
                            ? ""
                            : fmt::format(" (trained before its {})", activation_name(activation)));
  }
  text += parameter_totals(*this);
  return text;
}

}  // namespace strand
