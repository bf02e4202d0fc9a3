// The plan file's JSON form and the device check (conv_plan_table.h).
#include "tensor/conv_plan_table.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace strand {
namespace {

constexpr const char* kFormat = "strand-cuda-plans";
constexpr int64_t kVersion = 1;
// The file nests 3 deep (the table, a list, a record); anything deeper is not a plan file, and
// refusing it while parsing keeps a hostile file from recursing nlohmann's copies.
constexpr int kMaxNesting = 8;

using nlohmann::json;

// A field of `object` of JSON type `kind`, or an error naming the file and the field.
const json& field(const json& object, const char* name, json::value_t kind, const char* expected,
                  const std::string& where, const std::string& context) {
  const auto it = object.find(name);
  STRAND_CHECK(it != object.end(), "{}: {} has no '{}' ({} expected)", where, context, name,
               expected);
  const bool number = kind == json::value_t::number_float;
  const bool matches = number                                  ? it->is_number()
                       : kind == json::value_t::number_integer ? it->is_number_integer()
                                                               : it->type() == kind;
  STRAND_CHECK(matches, "{}: {}'s '{}' is {}, expected {}", where, context, name, it->dump(),
               expected);
  return *it;
}

const json& list_field(const json& table, const char* name, const std::string& where) {
  return field(table, name, json::value_t::array, "a list", where, "the plan table");
}

}  // namespace

std::string conv_plans_to_json(const ConvPlanTable& table) {
  json choices = json::array();
  for (const ConvChoiceRecord& c : table.choices) {
    choices.push_back(
        {{"key", c.key}, {"chosen", c.chosen}, {"own_ms", c.own_ms}, {"cudnn_ms", c.cudnn_ms}});
  }
  json algorithms = json::array();
  for (const ConvAlgorithmRecord& a : table.algorithms) {
    algorithms.push_back({{"key", a.key}, {"algorithm", a.algorithm}});
  }
  const json out = {{"format", kFormat},           {"version", kVersion},
                    {"device", table.device_name}, {"cudnn_version", table.cudnn_version},
                    {"choices", choices},          {"algorithms", algorithms}};
  return out.dump(1) + "\n";
}

ConvPlanTable conv_plans_from_json(std::string_view text, const std::string& where) {
  json root;
  try {
    root = json::parse(text, [](int depth, json::parse_event_t event, json&) {
      const bool opens =
          event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
      if (opens && depth >= kMaxNesting) throw Error("nested deeper than a plan file");
      return true;
    });
  } catch (const json::exception& error) {
    throw Error(fmt::format("{}: not a JSON plan file ({})", where, error.what()));
  } catch (const Error& error) {
    throw Error(fmt::format("{}: not a plan file ({})", where, error.what()));
  }
  STRAND_CHECK(root.is_object(), "{}: expected a JSON object, got {}", where, root.type_name());
  const std::string table = "the plan table";
  const json& format = field(root, "format", json::value_t::string, "a string", where, table);
  STRAND_CHECK(format.get<std::string>() == kFormat, "{}: format is '{}', expected '{}'", where,
               format.get<std::string>(), kFormat);
  const json& version =
      field(root, "version", json::value_t::number_integer, "an integer", where, table);
  STRAND_CHECK(version.get<int64_t>() == kVersion,
               "{}: plan file version {}, this strand reads version {}", where,
               version.get<int64_t>(), kVersion);
  ConvPlanTable out;
  out.device_name =
      field(root, "device", json::value_t::string, "a string", where, table).get<std::string>();
  out.cudnn_version =
      field(root, "cudnn_version", json::value_t::number_integer, "an integer", where, table)
          .get<int64_t>();
  const json& choices = list_field(root, "choices", where);
  for (size_t i = 0; i < choices.size(); ++i) {
    const json& c = choices[i];
    const std::string context = fmt::format("choice {}", i + 1);
    STRAND_CHECK(c.is_object(), "{}: {} is {}, expected an object", where, context, c.dump());
    ConvChoiceRecord record;
    record.key =
        field(c, "key", json::value_t::string, "a string", where, context).get<std::string>();
    record.chosen =
        field(c, "chosen", json::value_t::string, "a string", where, context).get<std::string>();
    STRAND_CHECK(record.chosen == "own" || record.chosen == "cudnn",
                 "{}: {}'s 'chosen' is '{}', expected 'own' or 'cudnn'", where, context,
                 record.chosen);
    record.own_ms =
        field(c, "own_ms", json::value_t::number_float, "a number", where, context).get<double>();
    record.cudnn_ms =
        field(c, "cudnn_ms", json::value_t::number_float, "a number", where, context).get<double>();
    out.choices.push_back(std::move(record));
  }
  const json& algorithms = list_field(root, "algorithms", where);
  for (size_t i = 0; i < algorithms.size(); ++i) {
    const json& a = algorithms[i];
    const std::string context = fmt::format("algorithm {}", i + 1);
    STRAND_CHECK(a.is_object(), "{}: {} is {}, expected an object", where, context, a.dump());
    ConvAlgorithmRecord record;
    record.key =
        field(a, "key", json::value_t::string, "a string", where, context).get<std::string>();
    record.algorithm =
        field(a, "algorithm", json::value_t::number_integer, "an integer", where, context)
            .get<int64_t>();
    STRAND_CHECK(record.algorithm >= 0 && record.algorithm < 64,
                 "{}: {}'s 'algorithm' is {}, expected a cuDNN algorithm number (0-63)", where,
                 context, record.algorithm);
    out.algorithms.push_back(std::move(record));
  }
  return out;
}

std::string conv_plans_foreign_reason(const ConvPlanTable& table, std::string_view device_name,
                                      int64_t cudnn_version) {
  if (table.device_name != device_name) {
    return fmt::format("they were made on a '{}', this device is a '{}'", table.device_name,
                       device_name);
  }
  if (table.cudnn_version != cudnn_version) {
    return fmt::format("they were made with cuDNN {}, this process has cuDNN {}",
                       table.cudnn_version, cudnn_version);
  }
  return "";
}

}  // namespace strand
