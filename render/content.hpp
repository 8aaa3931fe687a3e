#pragma once
// Display content per output version (render.md §5.4): item stacks with their data components
// and skin profiles, block states, text components as network NBT. Input is the mod's 26.1
// dialect (SNBT, text JSON). Nothing here throws or aborts on bad input: what cannot be encoded
// is dropped or replaced as §5.4 says, with one warning message per problem appended to `warn`.

#include "engine/api/types.hpp"
#include "engine/core/snbt.hpp"
#include "render/tables.hpp"
#include "render/wire.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace emote::render {

using warnings = std::vector<std::string>;

/// Who a skin-bound player head shows (render.md §5.4): the textures property, the player's
/// uuid and name. `name` is used only when it matches ^[A-Za-z0-9_]{1,16}$.
struct skin_profile {
  const api::skin_texture* textures = nullptr;
  const api::uuid* uuid = nullptr;
  std::string_view name;
};

/// True when `name` may go into a profile (^[A-Za-z0-9_]{1,16}$).
bool valid_profile_name(std::string_view name) noexcept;

/// Write a Slot (item_stack serializer) for the stack SNBT `{id, count, components}`; an empty
/// `snbt` writes the empty stack. With `skin`, the stack's minecraft:profile is that profile.
void write_item_stack(byte_writer& w, const version_table& v, std::string_view snbt,
                      const skin_profile* skin, warnings& warn);

/// The global block state id of `{Name, Properties}` SNBT; air (0) with a warning when the block
/// or a property value is unknown.
std::int32_t block_state_id(const version_table& v, std::string_view snbt, warnings& warn);

/// Write a text component (JSON) as anonymous network NBT in the canonical subset of
/// render.md §5.4. An
/// empty `json` writes the empty text (the string tag "").
void write_text_component(byte_writer& w, const version_table& v, std::string_view json,
                          warnings& warn);

/// A display's content by kind (render.md §5.4): an item's stack (with `skin`'s profile when a
/// skin-bound head) or a text's component written to `w`, or a block's state id returned (0 for
/// the others).
std::int32_t write_display_content(byte_writer& w, const version_table& v, api::display_kind kind,
                                   std::string_view source, const skin_profile* skin,
                                   warnings& warn);

/// Anonymous network NBT (1.20.2+): the type byte, then the payload, no root name.
void write_network_nbt(byte_writer& w, const core::nbt_tag& t);

} // namespace emote::render
