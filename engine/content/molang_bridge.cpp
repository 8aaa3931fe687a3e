#include "engine/content/molang_bridge.hpp"

#if __has_include("engine/molang/molang.hpp")
#include "engine/molang/molang.hpp"
#define EMOTE_CONTENT_HAS_MOLANG 1
#endif

namespace emote::content::detail {

#ifdef EMOTE_CONTENT_HAS_MOLANG

molang_compiler::molang_compiler() : symbols_(std::make_shared<molang::symbol_table>()) {}
molang_compiler::~molang_compiler() = default;

molang_result molang_compiler::compile(std::string_view source, molang_kind kind) {
  auto out = molang::compile(source,
                             kind == molang_kind::program ? molang::program_kind::program
                                                          : molang::program_kind::track,
                             *symbols_);
  molang_result r;
  if (!out.ok()) {
    r.error = std::move(out.error);
    return r;
  }
  r.program = std::move(out.program);
  for (auto& w : out.warnings) {
    r.warnings.push_back(std::move(w.message));
  }
  return r;
}

std::shared_ptr<const molang::symbol_table> molang_compiler::symbols() const { return symbols_; }

#else

// Until the Molang compiler is part of the build, strings are accepted uncompiled.
molang_compiler::molang_compiler() = default;
molang_compiler::~molang_compiler() = default;
molang_result molang_compiler::compile(std::string_view, molang_kind) { return {}; }
std::shared_ptr<const molang::symbol_table> molang_compiler::symbols() const { return nullptr; }

#endif

} // namespace emote::content::detail
