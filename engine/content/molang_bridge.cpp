#include "engine/content/molang_bridge.hpp"

#include "engine/molang/molang.hpp"

namespace emote::content::detail {

molang_compiler::molang_compiler(bool warnings)
    : symbols_(std::make_shared<molang::symbol_table>()), warnings_(warnings) {}

molang_compiler::~molang_compiler() = default;

molang_result molang_compiler::compile(std::string_view source, molang_kind kind,
                                       int select_options) {
  molang::compile_options options;
  options.select_options = select_options;
  options.warnings = warnings_;
  auto out = molang::compile(source,
                             kind == molang_kind::program ? molang::program_kind::program
                                                          : molang::program_kind::track,
                             *symbols_, options);
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

} // namespace emote::content::detail
