// Shared helpers of the libFuzzer targets: a per-process scratch directory, writing the input
// to a file, and the rule that separates an expected parser error from a finding.
//
// A finding is reported by printing "strand-fuzz finding: ..." and calling abort(), so libFuzzer
// saves the input as crash-<sha1> and stops (or carries on, with -fork and -ignore_crashes).
#pragma once

#include <cxxabi.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

namespace strand::fuzz {

/// Prints the finding and aborts: libFuzzer keeps the input that caused it.
[[noreturn]] inline void finding(const std::string& what) {
  // Messages may quote the input; 600 characters are enough to recognise a finding.
  const std::string shown = what.size() > 600 ? what.substr(0, 600) + "..." : what;
  std::fprintf(stderr, "\nstrand-fuzz finding: %s\n", shown.c_str());
  std::fflush(stderr);
  std::abort();
}

/// The demangled dynamic type of an exception, for findings.
inline std::string type_name(const std::exception& e) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(typeid(e).name());
}

/// Runs `body`. An exception of type Expected (the parser's documented error) is the expected
/// answer to bad input and returns false, its message in `*error` when given; a normal return
/// gives true. Anything else is a finding: std::bad_alloc (an absurd size reached the
/// allocator), another std::exception type (an error that escaped without naming the file and
/// line), or a non-standard exception.
template <typename Expected, typename Body>
bool parses(const char* what, Body&& body, std::string* error = nullptr) {
  try {
    body();
    return true;
  } catch (const Expected& e) {
    if (error != nullptr) *error = e.what();
    return false;
  } catch (const std::bad_alloc&) {
    finding(std::string(what) + ": std::bad_alloc (a size from the input reached the allocator)");
  } catch (const std::exception& e) {
    finding(std::string(what) + ": unexpected exception " + type_name(e) + ": " + e.what());
  } catch (...) {
    finding(std::string(what) + ": unexpected non-standard exception");
  }
}

/// Runs `body`, which must not throw: any exception is a finding.
template <typename Body>
void must_succeed(const char* what, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    finding(std::string(what) + ": " + type_name(e) + ": " + e.what());
  } catch (...) {
    finding(std::string(what) + ": non-standard exception");
  }
}

/// The per-process scratch directory ($TMPDIR or /tmp, strand-fuzz-XXXXXX), removed at exit.
/// Each process (libFuzzer -fork/-jobs workers too) gets its own, so workers never share files.
class ScratchDir {
 public:
  static ScratchDir& get() {
    static ScratchDir dir;
    return dir;
  }
  /// The directory, emptied: each input starts without files left by the previous one (an old
  /// .fai could otherwise look current to the staleness check).
  const std::filesystem::path& fresh() {
    std::error_code ec;
    std::filesystem::remove_all(work_, ec);
    std::filesystem::create_directories(work_, ec);
    if (ec) finding("cannot recreate the scratch directory " + work_.string());
    return work_;
  }
  /// A directory that fresh() leaves alone (inputs shared by every run, e.g. a fixed FASTA).
  const std::filesystem::path& fixed() const { return fixed_; }

  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

 private:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/strand-fuzz-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) finding("cannot create a scratch directory " + tmpl);
    root_ = tmpl;
    work_ = root_ / "work";
    fixed_ = root_ / "fixed";
    std::filesystem::create_directories(fixed_);
  }
  std::filesystem::path root_, work_, fixed_;
};

/// The deepest nesting of objects and arrays in JSON `text` (the top-level value is depth 1),
/// counting brackets outside strings; meaningful for text a JSON parser accepted.
inline int json_nesting(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

/// Writes `bytes` to `path` (truncating).
inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) finding("cannot write " + path.string());
}

/// The input as text.
inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Splits `text` at the first occurrence of `separator` (a line such as "\n@@fai@@\n");
/// without it the second part is empty and `found` is false.
inline std::pair<std::string_view, std::string_view> split_once(std::string_view text,
                                                                std::string_view separator,
                                                                bool* found = nullptr) {
  const size_t at = text.find(separator);
  if (found != nullptr) *found = at != std::string_view::npos;
  if (at == std::string_view::npos) return {text, {}};
  return {text.substr(0, at), text.substr(at + separator.size())};
}

/// Fails when a file whose name contains ".tmp." is left in `dir`: strand writes to a
/// temporary and renames it, and a failed write must remove the temporary.
inline void expect_no_temporaries(const std::filesystem::path& dir, const char* what) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp.") != std::string::npos) {
      finding(std::string(what) + ": temporary file '" + name + "' left behind");
    }
  }
}

}  // namespace strand::fuzz
