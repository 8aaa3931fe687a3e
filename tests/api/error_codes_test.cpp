// One list of error codes (protocol.md §3): the spec's list, the C++ names (engine/api/names.cpp)
// and the clients' lists (clients/js ERROR_CODES and its ErrorCode type, clients/python
// ERROR_CODES, clients/java ErrorCodes.ALL) hold the same codes in the same order. A code added in one place and forgotten in
// another fails here.
#include "engine/api/types.hpp"
#include "engine/core/enum_names.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace emote;

namespace {

const std::filesystem::path root(EMOTE_SIM_SOURCE_DIR);

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The text of `text` from the first `start` up to the first `end` after it.
std::string between(const std::string& text, const std::string& start, const std::string& end) {
  const auto a = text.find(start);
  REQUIRE_MESSAGE(a != std::string::npos, start);
  const auto b = text.find(end, a + start.size());
  REQUIRE_MESSAGE(b != std::string::npos, end);
  return text.substr(a + start.size(), b - a - start.size());
}

/// Every word between a pair of `quote` characters, in order.
std::vector<std::string> quoted(const std::string& text, char quote) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while ((i = text.find(quote, i)) != std::string::npos) {
    const auto j = text.find(quote, i + 1);
    REQUIRE(j != std::string::npos);
    out.push_back(text.substr(i + 1, j - i - 1));
    i = j + 1;
  }
  return out;
}

std::vector<std::string> cpp_names() {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < core::enumerator_count<api::error_code>(); ++i) {
    out.emplace_back(api::name(static_cast<api::error_code>(i)));
  }
  return out;
}

} // namespace

TEST_CASE("error codes: protocol.md, the C++ names and the three clients list the same codes") {
  const auto cpp = cpp_names();
  REQUIRE(cpp.size() > 20);
  const auto spec =
      quoted(between(read_text(root / "docs" / "spec" / "protocol.md"), "Error codes:", "\n\n"), '`');
  CHECK(spec == cpp);
  const std::string js = read_text(root / "clients/js/index.js");
  CHECK(quoted(between(js, "export const ERROR_CODES = Object.freeze([", "])"), '\'') == cpp);
  const std::string dts = read_text(root / "clients/js/index.d.ts");
  CHECK(quoted(between(dts, "export type ErrorCode =", "\n\n"), '\'') == cpp);
  const std::string py = read_text(root / "clients/python/emote_sim/_common.py");
  CHECK(quoted(between(py, "ERROR_CODES = (", ")"), '"') == cpp);
  const std::string java =
      read_text(root / "clients/java/src/main/java/emotesim/client/ErrorCodes.java");
  CHECK(quoted(between(java, "List<String> ALL = List.of(", ");"), '"') == cpp);
}
