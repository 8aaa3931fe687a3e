#pragma once
// Compiling the Molang strings of one Animation through the Molang compiler (molang.md), with one
// symbol table shared by all of them.

#include "engine/content/model.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace emote::content::detail {

enum class molang_kind { program, track };

struct molang_result {
  program_ptr program;               ///< null on failure
  std::string error;                 ///< the complete message, when compilation failed
  std::vector<std::string> warnings; ///< quirk warnings "<gist>: at <line>:<col>"
  [[nodiscard]] bool ok() const noexcept { return error.empty(); }
};

class molang_compiler {
public:
  explicit molang_compiler(bool warnings);
  ~molang_compiler();
  molang_compiler(const molang_compiler&) = delete;
  molang_compiler& operator=(const molang_compiler&) = delete;

  /// `select_options`: for NBT selectors, the number of options (-1 otherwise).
  molang_result compile(std::string_view source, molang_kind kind, int select_options = -1);
  [[nodiscard]] std::shared_ptr<const molang::symbol_table> symbols() const;

private:
  std::shared_ptr<molang::symbol_table> symbols_;
  bool warnings_;
};

} // namespace emote::content::detail
