// Checks the documentation's links: every relative link in the repository's Markdown files
// (README.md, docs/, examples/, bench/, data/, ...) points at a file or folder that exists inside
// the repository (a user's clone has nothing beside it), and a link whose text is a name in
// backticks, [`name`](path), names something the file contains (for a qualified name such as
// `Adam::update`, every `::`-separated part). Links inside fenced code blocks are ignored, as
// are URLs (scheme://...) and in-page anchors (#...).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace {

namespace fs = std::filesystem;

struct Link {
  std::string text;    // as written between [ and ]
  std::string target;  // between ( and ), without a #fragment
  int line = 0;
};

// Markdown links [text](target) outside ``` fences; text and target on one line.
std::vector<Link> extract_links(const std::string& markdown) {
  std::vector<Link> links;
  std::istringstream lines(markdown);
  std::string line;
  bool in_fence = false;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.find("```") != std::string::npos && line.find_first_not_of(' ') == line.find("```")) {
      in_fence = !in_fence;
      continue;
    }
    if (in_fence) continue;
    for (size_t open = line.find('['); open != std::string::npos; open = line.find('[', open + 1)) {
      const size_t close = line.find("](", open);
      if (close == std::string::npos) break;
      if (line.find('[', open + 1) < close) continue;  // a nested '[': try the inner one
      const size_t end = line.find(')', close + 2);
      if (end == std::string::npos) break;
      Link link{line.substr(open + 1, close - open - 1), line.substr(close + 2, end - close - 2),
                number};
      if (const size_t hash = link.target.find('#'); hash != std::string::npos) {
        link.target.resize(hash);
      }
      links.push_back(link);
    }
  }
  return links;
}

bool is_external(const std::string& target) {
  return target.empty() || target.find("://") != std::string::npos ||
         target.rfind("mailto:", 0) == 0;
}

// `name` -> name; anything else -> "".
std::string code_name(const std::string& text) {
  if (text.size() < 3 || text.front() != '`' || text.back() != '`') return "";
  return text.substr(1, text.size() - 2);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every "::"-separated part of `name` occurs in `content`.
bool names_something_in(const std::string& name, const std::string& content) {
  size_t start = 0;
  while (true) {
    const size_t sep = name.find("::", start);
    const std::string part = name.substr(start, sep == std::string::npos ? sep : sep - start);
    if (!part.empty() && content.find(part) == std::string::npos) return false;
    if (sep == std::string::npos) return true;
    start = sep + 2;
  }
}

// Every Markdown file of the repository, skipping hidden folders and build trees.
std::vector<fs::path> documents() {
  const fs::path root = strand::test::source_dir();
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.starts_with(".") || name.starts_with("build"))) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".md") files.push_back(it->path());
  }
  return files;
}

// Whether `target` lies inside the repository `root`.
bool inside(const fs::path& target, const fs::path& root) {
  const fs::path relative = fs::weakly_canonical(target).lexically_relative(fs::canonical(root));
  return !relative.empty() && *relative.begin() != "..";
}

// Problems found in one document, one line each ("file:line: ...").
std::vector<std::string> check_document(const fs::path& document) {
  std::vector<std::string> problems;
  const fs::path root = strand::test::source_dir();
  const std::string where = fs::relative(document, root).string();
  for (const Link& link : extract_links(read_file(document))) {
    if (is_external(link.target)) continue;
    const fs::path target = document.parent_path() / link.target;
    const std::string at = where + ":" + std::to_string(link.line) + ": ";
    if (!inside(target, root)) {
      problems.push_back(at + "link leaves the repository: " + link.target);
      continue;
    }
    if (!fs::exists(target)) {
      problems.push_back(at + "link to a missing file: " + link.target);
      continue;
    }
    const std::string name = code_name(link.text);
    if (name.empty() || fs::is_directory(target)) continue;
    if (!names_something_in(name, read_file(target))) {
      problems.push_back(at + "`" + name + "` does not occur in " + link.target);
    }
  }
  return problems;
}

}  // namespace

TEST_CASE("link extraction skips code fences and strips anchors") {
  const std::string markdown =
      "See [`f`](a.cpp#L3) and [text](dir/).\n"
      "```python\nmodel[:-1](codes)\n```\n"
      "[x [`g`](b.h)] and [web](https://example.org).\n";
  const std::vector<Link> links = extract_links(markdown);
  REQUIRE(links.size() == 4);
  CHECK(links[0].text == "`f`");
  CHECK(links[0].target == "a.cpp");
  CHECK(links[1].target == "dir/");
  CHECK(links[2].text == "`g`");
  CHECK(links[2].line == 5);
  CHECK(is_external(links[3].target));
  CHECK(code_name("`Adam::update`") == "Adam::update");
  CHECK(code_name("plain") == "");
  CHECK(names_something_in("Adam::update", "void Adam::update(size_t i)"));
  CHECK_FALSE(names_something_in("Adam::step", "void Adam::update(size_t i)"));
}

TEST_CASE("a link that leaves the repository is reported") {
  const fs::path root = strand::test::source_dir();
  CHECK(inside(root / "docs" / "design.md", root));
  CHECK(inside(root / "docs" / ".." / "README.md", root));
  CHECK_FALSE(inside(root / ".." / "shared" / "design" / "ARCHITECTURE.md", root));
}

TEST_CASE("docs links point at existing files and name what those files contain") {
  const std::vector<fs::path> files = documents();
  REQUIRE_MESSAGE(fs::exists(fs::path(strand::test::source_dir()) / "docs" / "guided_tour.md"),
                  "docs/guided_tour.md is missing");
  int links_checked = 0;
  for (const fs::path& document : files) {
    links_checked += static_cast<int>(extract_links(read_file(document)).size());
    for (const std::string& problem : check_document(document)) FAIL_CHECK(problem);
  }
  CHECK(links_checked > 20);
}

// A clone has nothing beside it: no test, benchmark, example, script or document may read a
// path that climbs out of the repository into the developers' shared data folder (../ then
// "shared").
TEST_CASE("nothing in the repository reads the shared folder beside it") {
  const fs::path root = strand::test::source_dir();
  const std::string needle = std::string("../") + "shared";  // split so this file passes
  int files_checked = 0;
  for (const char* folder :
       {"tests", "bench", "examples", "scripts", "docs", "app", "cli", "python", "data"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h" && ext != ".md" && ext != ".sh" && ext != ".py" &&
          ext != ".txt" && ext != ".json") {
        continue;
      }
      ++files_checked;
      const std::string content = read_file(entry.path());
      if (content.find(needle) != std::string::npos) {
        const std::string problem = fs::relative(entry.path(), root).string() + " reads " + needle;
        FAIL_CHECK(problem);
      }
    }
  }
  CHECK(read_file(root / "README.md").find(needle) == std::string::npos);
  CHECK(files_checked > 100);
}
