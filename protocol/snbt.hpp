#pragma once
// Compound SNBT as formats.md §2.5 defines it, read far enough to type every value: the protocol
// needs it for the item stacks clients report (protocol.md §5: the stack's `id` and whether it
// holds charged projectiles). Nesting is bounded, so no input can exhaust the stack.

#include "engine/api/types.hpp"
#include "engine/core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace emote::protocol::snbt {

enum class tag : std::uint8_t {
  byte_tag,
  short_tag,
  int_tag,
  long_tag,
  float_tag,
  double_tag,
  string_tag,
  list_tag,
  compound_tag,
  byte_array,
  int_array,
  long_array,
};

struct value {
  snbt::tag type = tag::compound_tag;
  std::string text;                                   ///< string contents or the number's text
  std::vector<value> items;                           ///< list and array elements
  std::vector<std::pair<std::string, value>> members; ///< compound members (duplicates: last wins)

  /// The member named `key`, or nullptr.
  [[nodiscard]] const value* find(std::string_view key) const noexcept;
};

inline constexpr int max_depth = 512;

/// Parse a string holding exactly one compound. Errors read "invalid compound SNBT: <detail>".
core::result<value, std::string> parse_compound(std::string_view text);

/// formats.md §2.2 resource location: "minecraft:" is added when there is no namespace.
/// nullopt when the characters are not allowed.
std::optional<std::string> resource_location(std::string_view id);

/// An item as a client reports it (protocol.md §5): an SNBT compound with a string `id`
/// (`{id:"minecraft:bow",count:1}`), or a bare item id (`minecraft:bow`, `bow`) standing for
/// `{id:"minecraft:bow",count:1}`, or "" for an empty hand. `minecraft:air` is empty too.
core::result<api::item_stack, std::string> parse_item(std::string_view text);

} // namespace emote::protocol::snbt
