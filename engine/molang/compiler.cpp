#include "engine/molang/compiler.hpp"

#include "engine/core/utf8.hpp"
#include "engine/molang/checks.hpp"
#include "engine/molang/cost.hpp"
#include "engine/molang/lexer.hpp"
#include "engine/molang/lowering.hpp"
#include "engine/molang/parser.hpp"
#include "engine/molang/text.hpp"
#include "engine/molang/warnings.hpp"

namespace emote::molang {

compile_output compile(std::string_view source, program_kind kind, symbol_table& symbols) {
  return compile(source, kind, symbols, compile_options{});
}

compile_output compile(std::string_view source, program_kind kind, symbol_table& symbols,
                       const compile_options& options) {
  compile_output out;
  if (core::utf16_length(source) > max_source_units) {
    out.error = "invalid Molang program: expression exceeds 16384 characters";
    return out;
  }
  const lex_result tokens = lex(source);
  parse_output parsed = parse(tokens, source, symbols);
  if (!parsed.error.empty()) {
    out.error = "invalid Molang program: " + parsed.error;
    return out;
  }
  if (parsed.too_deep) {
    out.error = "invalid Molang program: expression nests too deeply";
    return out;
  }
  normalize(parsed.tree, parsed.warnings);
  if (auto e = check_query_uses(parsed.tree, symbols, options.host_queries); !e.empty()) {
    out.error = std::move(e);
    return out;
  }
  if (kind == program_kind::track && has_persistent_write(parsed.tree, symbols)) {
    out.error = "must not assign persistent variables";
    return out;
  }
  if (options.warnings) {
    out.warnings = collect_warnings(parsed, tokens, kind, symbols, options);
  }
  out.program = lower(parsed.tree, kind, symbols, operation_bound(parsed.tree, symbols));
  return out;
}

} // namespace emote::molang
