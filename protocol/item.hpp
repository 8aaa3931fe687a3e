#pragma once
// Item stacks as clients report them (protocol.md §5), read with the compound SNBT of
// engine/core (formats.md §2.5).

#include "engine/api/types.hpp"
#include "engine/core/result.hpp"

#include <string>
#include <string_view>

namespace emote::protocol {

/// An SNBT compound with a string `id` (`{id:"minecraft:bow",count:1}`, kept verbatim), or a bare
/// item id (`minecraft:bow`, `bow`) standing for `{id:"minecraft:bow",count:1}`, or "" for an
/// empty slot; `minecraft:air` is empty too. `charged` = components."minecraft:charged_projectiles"
/// is a non-empty list. Errors are messages for a bad_request.
core::result<api::item_stack, std::string> parse_item(std::string_view text);

} // namespace emote::protocol
