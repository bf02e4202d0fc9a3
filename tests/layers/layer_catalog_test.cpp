// The layer catalog (layers/layer_catalog.h): every type is fully declared, completes its
// defaults, builds for a fitting input and refuses a missing required option by name.
#include "layers/layer_catalog.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "core/error.h"
#include "test_helpers.h"

namespace strand {
namespace {

// A model entry for `type` with every required integer option at 2.
LayerOptions with_required(const LayerType& type) {
  LayerOptions options;
  for (const LayerOption& option : type.options) {
    if (!option.required) continue;
    if (option.kind == LayerOption::Kind::kReal) {
      options[option.name] = 0.5 * (option.real_min + option.real_max);
    } else {
      options[option.name] = int64_t{2};
    }
  }
  return type.complete(options);
}

TEST_CASE("layer catalog: every option is declared whole") {
  std::set<std::string> names;
  for (const LayerType& type : layer_types()) {
    CAPTURE(type.name);
    CHECK(names.insert(type.name).second);
    CHECK_FALSE(type.help.empty());
    CHECK(type.build);
    CHECK(find_layer_type(type.name) == &type);
    for (const LayerOption& option : type.options) {
      CAPTURE(option.name);
      CHECK_FALSE(option.help.empty());
      switch (option.kind) {
        case LayerOption::Kind::kInt:
          CHECK(option.min <= option.max);
          if (!option.required) {
            const int64_t value = std::get<int64_t>(option.default_value);
            CHECK((value >= option.min && value <= option.max));
          } else {
            CHECK(option.min <= 2);
          }
          break;
        case LayerOption::Kind::kBool:
          CHECK(std::holds_alternative<bool>(option.default_value));
          break;
        case LayerOption::Kind::kChoice: {
          const std::string& value = std::get<std::string>(option.default_value);
          CHECK(std::find(option.choices.begin(), option.choices.end(), value) !=
                option.choices.end());
          break;
        }
        case LayerOption::Kind::kReal:
          CHECK(option.real_min < option.real_max);
          if (!option.required) {
            const double value = std::get<double>(option.default_value);
            CHECK(value >= option.real_min);
            CHECK((option.real_max_open ? value < option.real_max : value <= option.real_max));
          }
          break;
      }
    }
  }
  CHECK(find_layer_type("Conv2D") == nullptr);
}

TEST_CASE("layer catalog: every type completes its defaults and builds for a fitting input") {
  for (const LayerType& type : layer_types()) {
    CAPTURE(type.name);
    const LayerOptions options = with_required(type);
    CHECK(options.size() == type.options.size());
    const Shape input = type.name == "Dense" ? Shape{8} : Shape{4, 20};
    const auto layer = type.build(options, input);
    REQUIRE(layer != nullptr);
    CHECK(layer->type_name() == type.name);
    if (type.inputs == kTwoOrMoreInputs) {
      // Merges (Add, Concat) take several inputs and refuse one.
      CHECK(layer->input_count() == kTwoOrMoreInputs);
      const std::vector<Shape> inputs = {input, input};
      CHECK_FALSE(layer->output_shape_of(inputs).empty());
      CHECK_THROWS_AS(layer->output_shape(input), Error);
    } else {
      CHECK_FALSE(layer->output_shape(input).empty());
    }
  }
  // Given options win over defaults.
  const LayerType& conv = *find_layer_type("Conv1D");
  LayerOptions given = {
      {"filters", int64_t{3}}, {"kernel_size", int64_t{5}}, {"padding", std::string("same")}};
  const LayerOptions complete = conv.complete(given);
  CHECK(std::get<std::string>(complete.at("padding")) == "same");
  CHECK(std::get<int64_t>(complete.at("stride")) == 1);
  CHECK(conv.build(complete, {20})->output_shape({20}) == Shape{3, 20});
}

TEST_CASE("layer catalog: a missing required option is named with every required one") {
  CHECK_THROWS_WITH_AS(find_layer_type("Conv1D")->complete({{"filters", int64_t{4}}}),
                       "Conv1D needs 'filters' and 'kernel_size'", Error);
  CHECK_THROWS_WITH_AS(find_layer_type("Dense")->complete({}), "Dense needs 'units'", Error);
  CHECK_THROWS_WITH_AS(find_layer_type("Dense")->build(
                           find_layer_type("Dense")->complete({{"units", int64_t{1}}}), {4, 20}),
                       doctest::Contains("expects a flat input (features), got (4, 20)"), Error);
}

TEST_CASE("layer catalog: docs/layers.md holds the catalog's table") {
  std::ifstream in(testing::source_dir() + "/docs/layers.md");
  REQUIRE(in);
  const std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  INFO("regenerate the table with `strand layers`");
  CHECK(docs.find(layer_catalog_markdown()) != std::string::npos);
}

}  // namespace
}  // namespace strand
