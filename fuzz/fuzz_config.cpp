// libFuzzer target: a JSON run config read with load_config_file(), then validated.
//
// Expected: ConfigError. Findings: crashes, sanitizer reports (e.g. signed overflow in a range
// check), std::bad_alloc, any other exception type (a raw nlohmann or filesystem error escapes
// without naming the key), and for an accepted file: a duplicated key (JSON's last-wins would
// hide the first value), JSON nested deeper than io::kMaxJsonNesting (copying such a value
// overflows the stack), a NUL byte (nlohmann stops there, dropping the rest unread), a resolved
// config (to_json) that does not parse back to itself (a run's config.json must reload for
// --resume), or a validated config that resolves to fewer than one thread.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "app/run_config.h"
#include "fuzz/fuzz_support.h"
#include "io/json_limits.h"

namespace {

using nlohmann::json;

// True when some object of `text` (valid JSON) repeats a key.
bool has_duplicate_key(std::string_view text) {
  std::vector<std::set<std::string>> open;  // keys seen, per enclosing object
  bool duplicate = false;
  (void)json::parse(
      text,
      [&](int /*depth*/, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::object_start) open.emplace_back();
        if (event == json::parse_event_t::object_end) open.pop_back();
        if (event == json::parse_event_t::key &&
            !open.back().insert(parsed.get<std::string>()).second) {
          duplicate = true;
        }
        return true;
      },
      /*allow_exceptions=*/false);
  return duplicate;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strand;
  const std::string_view text = fuzz::as_text(data, size);
  const auto& dir = fuzz::ScratchDir::get().fresh();
  const auto path = dir / "config.json";
  fuzz::write_file(path, text);

  app::RunConfig config;
  if (!fuzz::parses<app::ConfigError>("load_config_file",
                                      [&] { config = app::load_config_file(path); })) {
    return 0;
  }
  if (has_duplicate_key(text)) fuzz::finding("load_config_file: a duplicated key was accepted");
  if (io::nul_byte(text)) {
    fuzz::finding(
        "load_config_file: a NUL byte was accepted (nlohmann stops there, dropping "
        "the rest unread)");
  }
  if (fuzz::json_nesting(text) > io::kMaxJsonNesting) {
    fuzz::finding("load_config_file: JSON nested " + std::to_string(fuzz::json_nesting(text)) +
                  " deep was accepted (the limit is " + std::to_string(io::kMaxJsonNesting) + ")");
  }
  fuzz::must_succeed("the resolved config (to_json) must parse back to itself", [&] {
    const json resolved = app::to_json(config);
    const json again = app::to_json(app::parse_config(resolved));
    if (resolved != again) {
      fuzz::finding("to_json(parse_config(to_json(c))) differs from to_json(c): " +
                    resolved.dump() + " vs " + again.dump());
    }
  });
  if (fuzz::parses<app::ConfigError>("validate_config", [&] { app::validate_config(config); })) {
    if (app::resolved_threads(config) < 1) {
      fuzz::finding("validate_config accepted threads " + std::to_string(config.threads) +
                    " which resolves to " + std::to_string(app::resolved_threads(config)));
    }
  }
  return 0;
}
