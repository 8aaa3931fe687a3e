#pragma once
// compile(): length check, lexing, parsing, nesting limit, normalisation, load-time checks
// (molang.md §1 "Load time", §5.4), quirk warnings (§3.8) and lowering to a program (§6).

#include "engine/molang/program.hpp"
#include "engine/molang/symbol_table.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace emote::molang {

inline constexpr std::size_t max_source_units = 16384;

/// A molang.md §3.8 quirk: `message` is "<gist>: at <line>:<col>" (position within the source
/// string).
struct quirk_warning {
  std::string message;
  std::string_view gist; ///< the gist alone (a static string)
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

struct compile_output {
  std::shared_ptr<const molang::program> program;
  /// The exact formats.md/molang.md message without the path; empty on success.
  std::string error;
  std::vector<quirk_warning> warnings;
  [[nodiscard]] bool ok() const noexcept { return program != nullptr; }
};

struct compile_options {
  /// NBT selectors: the number of options (enables "selector may fail"); -1 otherwise.
  int select_options = -1;
  /// Collect quirk warnings (only `check` needs them).
  bool warnings = true;
  /// Extra scalar query names a host sets with session::set_query (not part of the catalog).
  std::vector<std::string> host_queries;
};

compile_output compile(std::string_view source, program_kind kind, symbol_table& symbols);
compile_output compile(std::string_view source, program_kind kind, symbol_table& symbols,
                       const compile_options& options);

} // namespace emote::molang
