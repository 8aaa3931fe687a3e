#pragma once
// Interned member names and string literals shared by all Molang of one Animation (molang.md §6
// "Slots"). Names are stored lower-cased (member names are ASCII case-insensitive); each name's
// meaning as a `math` member and as a catalog query is resolved once, at interning. Strings keep
// their exact code units; equal strings get equal ids, so string equality is id equality.

#include "engine/molang/math_functions.hpp"
#include "engine/molang/queries.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace emote::molang {

using name_id = std::uint32_t;
using string_id = std::uint32_t;

/// What a name means as the root of a path (molang.md §3.2): `math`, `v`/`variable`, `q`/`query`,
/// `t`/`temp`, or anything else (0).
enum class root_kind : std::uint8_t { other, math, variable, query, temp };

class symbol_table {
public:
  symbol_table();

  /// Intern a member name; `name` is lower-cased (ASCII) first.
  name_id intern_name(std::string_view name);
  /// Intern a string literal's contents. The empty string is always id 0.
  string_id intern_string(std::string_view text);

  [[nodiscard]] std::size_t name_count() const noexcept { return names_.size(); }
  [[nodiscard]] std::size_t string_count() const noexcept { return strings_.size(); }
  [[nodiscard]] std::string_view name(name_id id) const noexcept { return names_[id].text; }
  [[nodiscard]] std::string_view string(string_id id) const noexcept { return strings_[id].text; }

  /// The `math` member this name denotes, if any.
  [[nodiscard]] std::optional<math_member> math(name_id id) const noexcept {
    return names_[id].math;
  }
  /// The query catalog index (query_catalog()) this name denotes, or -1.
  [[nodiscard]] int query(name_id id) const noexcept { return names_[id].query; }
  /// The name's meaning as a path root.
  [[nodiscard]] root_kind root(name_id id) const noexcept { return names_[id].root; }
  /// slot(s) of a string argument (molang.md §5.3).
  [[nodiscard]] molang::slot slot(string_id id) const noexcept { return strings_[id].slot; }

private:
  struct name_entry {
    std::string text;
    std::optional<math_member> math;
    int query = -1;
    root_kind root = root_kind::other;
  };
  struct string_entry {
    std::string text;
    molang::slot slot = slot::none;
  };
  std::vector<name_entry> names_;
  std::vector<string_entry> strings_;
  std::unordered_map<std::string, name_id> name_ids_;
  std::unordered_map<std::string, string_id> string_ids_;
};

} // namespace emote::molang
