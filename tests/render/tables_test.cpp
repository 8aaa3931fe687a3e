// The generated per-version tables (render.md §1) and their lookups. Expected values were read
// from minecraft-data 3.119.0 (protocol.json packet mappings, items.json) and, for block states,
// from prismarine-block 1.23.0 (as mineflayer 4.39.0 installs it) — see each case.
#include "render/tables.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

using namespace emote::render;

namespace {

const version_table& table(std::int64_t protocol) {
  const auto* v = find_version(protocol);
  REQUIRE_MESSAGE(v != nullptr, protocol);
  return *v;
}

std::int32_t packet(std::int64_t protocol, packet_kind k) {
  return table(protocol).packet_ids[static_cast<std::size_t>(k)];
}

std::int32_t component(std::int64_t protocol, data_component c) {
  return table(protocol).component_ids[static_cast<std::size_t>(c)];
}

/// The state id of `block` with the named property values, through the tables (properties not
/// named keep the block's default).
std::optional<std::int32_t>
state_of(const version_table& v, std::string_view block,
         std::vector<std::pair<std::string_view, std::string_view>> set) {
  const auto* b = find_block(v, block);
  REQUIRE(b != nullptr);
  const auto props = block_properties(v, *b);
  std::vector<std::uint32_t> indices;
  for (std::size_t i = 0; i < props.size(); ++i) {
    const auto d = state_value_index(v, *b, b->default_state, i);
    REQUIRE(d.has_value());
    indices.push_back(*d);
  }
  for (const auto& [name, value] : set) {
    std::size_t i = 0;
    while (i < props.size() && props[i].name != name) {
      ++i;
    }
    REQUIRE_MESSAGE(i < props.size(), std::string(name));
    const auto index = property_value_index(v, props[i], value);
    if (!index) {
      return std::nullopt;
    }
    indices[i] = *index;
  }
  return block_state_id(v, *b, indices);
}

constexpr std::array<std::int64_t, 9> required{767, 768, 769, 770, 771, 772, 773, 774, 775};

} // namespace

TEST_CASE("tables: every required protocol and nothing else (render.md §1, K22)") {
  const auto all = versions();
  REQUIRE(all.size() == required.size());
  for (std::size_t i = 0; i < required.size(); ++i) {
    CHECK(all[i]->protocol == required[i]);
    CHECK(find_version(required[i]) == all[i]);
  }
  CHECK(find_version(766) == nullptr);
  CHECK(find_version(776) == nullptr);
  CHECK(find_version(0) == nullptr);
  CHECK(find_version(-767) == nullptr);
  CHECK(find_version(std::int64_t{1} << 40) == nullptr);
  CHECK(find_version((std::int64_t{1} << 40) + 767) == nullptr);
  CHECK(supported_protocols_text() == "767, 768, 769, 770, 771, 772, 773, 774, 775");
  CHECK(table(769).minecraft == "1.21.4");
  CHECK(table(775).minecraft == "26.1");
}

TEST_CASE("tables: K11 minecraft:stone is state 1 on every required protocol (render.md §10)") {
  for (const auto p : required) {
    const auto& v = table(p);
    const auto* stone = find_block(v, "minecraft:stone");
    REQUIRE(stone != nullptr);
    CHECK(stone->default_state == 1);
    CHECK(stone->min_state == 1);
    CHECK(block_properties(v, *stone).empty());
    CHECK(find_block(v, "stone") == stone);
    CHECK(find_block(v, ":stone") == stone);
    CHECK(find_block(v, "other:stone") == nullptr);
    CHECK(find_block(v, "minecraft:") == nullptr);
    CHECK(find_block(v, "") == nullptr);
    CHECK(find_block(v, "minecraft:stonf") == nullptr);
    const auto* air = find_block(v, "air");
    REQUIRE(air != nullptr);
    CHECK(air->default_state == 0);
  }
}

TEST_CASE("tables: packet ids as minecraft-data 3.119.0 maps them (play, clientbound)") {
  // 1.21.1 (767): protocol.json play.toClient packet mapping.
  CHECK(packet(767, packet_kind::bundle_delimiter) == 0x00);
  CHECK(packet(767, packet_kind::spawn_entity) == 0x01);
  CHECK(packet(767, packet_kind::entity_metadata) == 0x58);
  CHECK(packet(767, packet_kind::entity_destroy) == 0x42);
  CHECK(packet(767, packet_kind::entity_teleport) == 0x70);
  CHECK(packet(767, packet_kind::sync_entity_position) == -1);
  CHECK(packet(767, packet_kind::entity_look) == 0x30);
  CHECK(packet(767, packet_kind::entity_equipment) == 0x5b);
  // 1.21.4 (769).
  CHECK(packet(769, packet_kind::entity_metadata) == 0x5d);
  CHECK(packet(769, packet_kind::sync_entity_position) == 0x20);
  CHECK(packet(769, packet_kind::entity_teleport) == -1); // another packet from 768 on
  CHECK(packet(769, packet_kind::entity_destroy) == 0x47);
  CHECK(packet(769, packet_kind::entity_look) == 0x32);
  CHECK(packet(769, packet_kind::entity_equipment) == 0x60);
  // 1.21.9 (773).
  CHECK(packet(773, packet_kind::entity_metadata) == 0x61);
  CHECK(packet(773, packet_kind::sync_entity_position) == 0x23);
  // 26.1 (775).
  CHECK(packet(775, packet_kind::entity_metadata) == 0x63);
  CHECK(packet(775, packet_kind::entity_destroy) == 0x4d);
  CHECK(packet(775, packet_kind::sync_entity_position) == 0x23);
  CHECK(packet(775, packet_kind::entity_look) == 0x38);
  CHECK(packet(775, packet_kind::entity_equipment) == 0x66);
  for (const auto p : required) {
    CHECK(packet(p, packet_kind::bundle_delimiter) == 0x00);
    CHECK(packet(p, packet_kind::spawn_entity) == 0x01);
  }
}

TEST_CASE("tables: entity types, serializers and components (minecraft-data 3.119.0)") {
  // entities.json.
  CHECK(table(767).entity_types == std::array<std::int32_t, 3>{59, 9, 105});
  CHECK(table(769).entity_types == std::array<std::int32_t, 3>{69, 15, 124});
  CHECK(table(775).entity_types == std::array<std::int32_t, 3>{72, 15, 131});
  // entityMetadataEntry type mapping: byte, int, float, vector3, quaternion, item_stack,
  // block_state, component. 1.21.5 added variant serializers before vector3.
  CHECK(table(767).serializer_ids == std::array<std::int32_t, 8>{0, 1, 3, 29, 30, 7, 14, 5});
  CHECK(table(769).serializer_ids == std::array<std::int32_t, 8>{0, 1, 3, 29, 30, 7, 14, 5});
  CHECK(table(770).serializer_ids[static_cast<std::size_t>(serializer::vector3)] == 33);
  CHECK(table(770).serializer_ids[static_cast<std::size_t>(serializer::quaternion)] == 34);
  // SlotComponentType mapping.
  CHECK(component(767, data_component::profile) == 47);
  CHECK(component(767, data_component::item_model) == -1); // added in 1.21.2
  CHECK(component(767, data_component::custom_model_data) == 13);
  CHECK(component(767, data_component::dyed_color) == 24);
  CHECK(component(767, data_component::enchantment_glint_override) == 18);
  CHECK(component(767, data_component::enchantments) == 9);
  CHECK(component(769, data_component::item_model) == 7);
  CHECK(component(769, data_component::profile) == 57);
  for (const auto p : required) {
    for (std::size_t c = 0; c < data_component_count; ++c) {
      if (p >= 768 || c != static_cast<std::size_t>(data_component::item_model)) {
        CHECK(table(p).component_ids[c] >= 0);
      }
    }
  }
}

TEST_CASE("tables: layouts per version (protocol.json shapes, overrides)") {
  CHECK(table(767).spawn == spawn_layout::velocity_last);
  CHECK(table(767).move == move_layout::teleport_angles);
  for (const auto p : required) {
    const auto& v = table(p);
    CAPTURE(p);
    CHECK(v.spawn ==
          (p >= 773 ? spawn_layout::velocity_after_position : spawn_layout::velocity_last));
    CHECK(v.move == (p >= 768 ? move_layout::sync_entity_position : move_layout::teleport_angles));
    CHECK(v.profile ==
          (p >= 773 ? profile_layout::resolvable_partial : profile_layout::game_profile));
    CHECK(v.dyed_color == (p >= 770 ? dyed_color_layout::plain : dyed_color_layout::with_tooltip));
    CHECK(v.text_shadow_color == (p >= 769));
  }
  // render.md §5.4: a varint on 767, dropped on 768 (the override), the lists from 769 on.
  CHECK(table(767).custom_model_data == custom_model_data_layout::varint);
  CHECK(table(768).custom_model_data == custom_model_data_layout::dropped);
  for (std::int64_t p = 769; p <= 775; ++p) {
    CHECK(table(p).custom_model_data == custom_model_data_layout::lists);
  }
}

TEST_CASE("tables: block states with properties match prismarine-block") {
  // Expected ids: prismarine-block 1.23.0 Block.fromProperties over minecraft-data 3.119.0, e.g.
  // fromProperties('oak_stairs', {facing:'east', half:'bottom', shape:'outer_right',
  // waterlogged:'true'}).stateId.
  struct expected {
    std::int64_t protocol;
    std::int32_t stairs, wire, note, stairs_default;
  };
  constexpr std::array<expected, 9> cases{{
      {767, 2952, 3762, 1265, 2885},
      {768, 3004, 3814, 1308, 2937},
      {769, 3007, 3817, 1308, 2940},
      {770, 3016, 3826, 1308, 2949},
      {771, 3016, 3826, 1308, 2949},
      {772, 3016, 3826, 1308, 2949},
      {773, 3784, 4594, 1308, 3717},
      {774, 3784, 4594, 1308, 3717},
      {775, 3985, 4795, 1308, 3918},
  }};
  for (const auto& c : cases) {
    const auto& v = table(c.protocol);
    CAPTURE(c.protocol);
    CHECK(state_of(v, "minecraft:oak_stairs",
                   {{"facing", "east"},
                    {"half", "bottom"},
                    {"shape", "outer_right"},
                    {"waterlogged", "true"}}) == c.stairs);
    CHECK(state_of(v, "redstone_wire",
                   {{"east", "side"},
                    {"north", "none"},
                    {"power", "7"},
                    {"south", "up"},
                    {"west", "side"}}) == c.wire);
    CHECK(state_of(v, "note_block",
                   {{"instrument", "banjo"}, {"note", "13"}, {"powered", "false"}}) == c.note);
    // The default state (prismarine-block: facing north, half bottom, shape straight, not
    // waterlogged) decomposes and recomposes to itself.
    const auto* stairs = find_block(v, "oak_stairs");
    REQUIRE(stairs != nullptr);
    CHECK(stairs->default_state == c.stairs_default);
    CHECK(state_of(v, "oak_stairs", {}) == c.stairs_default);
    CHECK(state_of(v, "oak_stairs",
                   {{"facing", "north"},
                    {"half", "bottom"},
                    {"shape", "straight"},
                    {"waterlogged", "false"}}) == c.stairs_default);
    // Unknown values.
    CHECK(state_of(v, "oak_stairs", {{"facing", "up"}}) == std::nullopt);
    CHECK(state_of(v, "redstone_wire", {{"power", "16"}}) == std::nullopt);
  }
}

TEST_CASE("tables: block property order and value lists (minecraft-data order, bool true first)") {
  const auto& v = table(769);
  const auto* stairs = find_block(v, "oak_stairs");
  REQUIRE(stairs != nullptr);
  const auto props = block_properties(v, *stairs);
  REQUIRE(props.size() == 4);
  CHECK(props[0].name == "facing");
  CHECK(props[1].name == "half");
  CHECK(props[2].name == "shape");
  CHECK(props[3].name == "waterlogged");
  const auto bools = property_values(v, props[3]);
  REQUIRE(bools.size() == 2);
  CHECK(bools[0] == "true");
  CHECK(bools[1] == "false");
  const auto facing = property_values(v, props[0]);
  REQUIRE(facing.size() == 4);
  CHECK(facing[0] == "north");
  CHECK(facing[3] == "east");
  // The last property varies fastest: min_state + 1 is the same stairs, not waterlogged.
  CHECK(state_value_index(v, *stairs, stairs->min_state, 3) == 0u);
  CHECK(state_value_index(v, *stairs, stairs->min_state + 1, 3) == 1u);
  CHECK(state_value_index(v, *stairs, stairs->min_state + 1, 0) == 0u);
  // 2 (half) x 5 (shape) x 2 (waterlogged) = 20 states per facing.
  CHECK(state_value_index(v, *stairs, stairs->min_state + 19, 0) == 0u);
  CHECK(state_value_index(v, *stairs, stairs->min_state + 20, 0) == 1u);
  CHECK(state_value_index(v, *stairs, stairs->min_state + 40, 0) == 2u);
  CHECK(state_value_index(v, *stairs, stairs->min_state + 79, 0) == 3u);
  CHECK(state_value_index(v, *stairs, stairs->min_state - 1, 0) == std::nullopt);
  CHECK(state_value_index(v, *stairs, stairs->min_state + 80, 0) == std::nullopt);
  CHECK(state_value_index(v, *stairs, stairs->min_state, 4) == std::nullopt);
  const std::array<std::uint32_t, 3> too_few{0, 0, 0};
  CHECK(block_state_id(v, *stairs, too_few) == std::nullopt);
  const std::array<std::uint32_t, 4> out_of_range{0, 0, 5, 0};
  CHECK(block_state_id(v, *stairs, out_of_range) == std::nullopt);
  // int properties list their values as decimal text, from their minimum.
  const auto* cake = find_block(v, "cake");
  REQUIRE(cake != nullptr);
  const auto bites = block_properties(v, *cake);
  REQUIRE(bites.size() == 1);
  CHECK(property_value_index(v, bites[0], "0") == 0u);
  CHECK(property_value_index(v, bites[0], "6") == 6u);
  CHECK(property_value_index(v, bites[0], "7") == std::nullopt);
}

TEST_CASE("tables: every table is sorted by name and consistent") {
  for (const auto* v : versions()) {
    CAPTURE(v->protocol);
    for (std::size_t i = 1; i < v->items.size(); ++i) {
      CHECK(v->items[i - 1].name < v->items[i].name);
    }
    for (std::size_t i = 1; i < v->blocks.size(); ++i) {
      CHECK(v->blocks[i - 1].name < v->blocks[i].name);
    }
    for (const auto& b : v->blocks) {
      const auto props = block_properties(*v, b);
      REQUIRE(props.size() == b.property_count);
      for (const auto& p : props) {
        CHECK(property_values(*v, p).size() == p.value_count);
      }
      // The default state is one of the block's states.
      for (std::size_t i = 0; i < props.size(); ++i) {
        CHECK(state_value_index(*v, b, b.default_state, i).has_value());
      }
    }
    // Every item resolves through the lookup.
    for (const auto& it : v->items) {
      CHECK(item_id(*v, it.name) == it.id);
    }
  }
}

TEST_CASE("tables: item ids (minecraft-data 3.119.0 items.json)") {
  CHECK(item_id(table(767), "minecraft:air") == 0);
  CHECK(item_id(table(767), "minecraft:stone") == 1);
  CHECK(item_id(table(767), "minecraft:diamond_sword") == 838);
  CHECK(item_id(table(767), "player_head") == 1105);
  CHECK(item_id(table(769), "minecraft:diamond_sword") == 869);
  CHECK(item_id(table(769), "minecraft:player_head") == 1156);
  CHECK(item_id(table(769), "minecraft:leather_helmet") == 887);
  CHECK(item_id(table(774), "minecraft:player_head") == 1235);
  CHECK(item_id(table(775), "minecraft:player_head") == 1236);
  CHECK(item_id(table(775), "minecraft:leather_helmet") == 955);
  CHECK(item_id(table(769), "other:stone") == std::nullopt);
  CHECK(item_id(table(769), "minecraft:no_such_item") == std::nullopt);
  CHECK(item_id(table(769), "") == std::nullopt);
  CHECK(item_id(table(769), "minecraft:") == std::nullopt);
  CHECK(item_id(table(769), "Minecraft:stone") == std::nullopt);
  // pale_oak_planks came with 1.21.2 (768).
  CHECK(item_id(table(767), "pale_oak_planks") == std::nullopt);
  CHECK(item_id(table(768), "pale_oak_planks").has_value());
}

TEST_CASE("tables: item_display modes (render.md §5.3)") {
  for (const auto p : required) {
    const auto& v = table(p);
    CAPTURE(p);
    CHECK(item_display_mode(v, "none") == 0);
    CHECK(item_display_mode(v, "thirdperson_lefthand") == 1);
    CHECK(item_display_mode(v, "head") == 5);
    CHECK(item_display_mode(v, "gui") == 6);
    CHECK(item_display_mode(v, "fixed") == 8);
    if (p >= 773) {
      CHECK(item_display_mode(v, "on_shelf") == 9);
    } else {
      CHECK(item_display_mode(v, "on_shelf") == std::nullopt);
    }
    CHECK(item_display_mode(v, "FIXED") == std::nullopt);
    CHECK(item_display_mode(v, "") == std::nullopt);
  }
}

TEST_CASE("tables: display metadata by field, per version (render.md §5.3)") {
  // The indexes are minecraft-data's metadataKeys positions; on every supported version they are
  // those of render.md §5.3.
  for (const auto* v : versions()) {
    CAPTURE(v->protocol);
    const auto index_of = [&](entity_kind k, display_field f) -> int {
      const metadata_slot* s = v->display_layout[static_cast<std::size_t>(k)]->find(f);
      return s == nullptr ? -1 : s->index;
    };
    for (const entity_kind k :
         {entity_kind::item_display, entity_kind::block_display, entity_kind::text_display}) {
      CAPTURE(static_cast<int>(k));
      const metadata_layout& l = *v->display_layout[static_cast<std::size_t>(k)];
      // Slots ascend by index and each names its own slot.
      for (std::size_t i = 0; i < l.slots.size(); ++i) {
        if (i > 0) {
          CHECK(l.slots[i - 1].index < l.slots[i].index);
        }
        CHECK(l.find(l.slots[i].field) == &l.slots[i]);
      }
      CHECK(index_of(k, display_field::shared_flags) == 0);
      CHECK(index_of(k, display_field::interpolation_start) == 8);
      CHECK(index_of(k, display_field::interpolation_duration) == 9);
      CHECK(index_of(k, display_field::teleport_duration) == 10);
      CHECK(index_of(k, display_field::translation) == 11);
      CHECK(index_of(k, display_field::scale) == 12);
      CHECK(index_of(k, display_field::left_rotation) == 13);
      CHECK(index_of(k, display_field::right_rotation) == 14);
      CHECK(index_of(k, display_field::billboard) == 15);
      CHECK(index_of(k, display_field::glow_color) == 22);
      CHECK(index_of(k, display_field::content) == 23);
      const metadata_slot& scale = *l.find(display_field::scale);
      CHECK(scale.kind == serializer::vector3);
      CHECK(scale.float_default == std::array<float, 4>{1, 1, 1, 0});
      const metadata_slot& left = *l.find(display_field::left_rotation);
      CHECK(left.kind == serializer::quaternion);
      CHECK(left.float_default == std::array<float, 4>{0, 0, 0, 1});
      CHECK(l.find(display_field::billboard)->kind == serializer::byte);
      CHECK(l.find(display_field::brightness)->int_default == -1);
      CHECK(l.find(display_field::view_range)->kind == serializer::float_);
      CHECK(l.find(display_field::view_range)->float_default[0] == 1.0f);
      CHECK(l.find(display_field::glow_color)->int_default == -1);
    }
    using enum entity_kind;
    CHECK(v->display_layout[0]->find(display_field::content)->kind == serializer::item_stack);
    CHECK(index_of(item_display, display_field::item_display_mode) == 24);
    CHECK(index_of(item_display, display_field::line_width) == -1);
    CHECK(v->display_layout[1]->find(display_field::content)->kind == serializer::block_state);
    CHECK(v->display_layout[1]->find(display_field::content)->int_default == 0);
    CHECK(v->display_layout[1]->slots.size() == 17);
    const metadata_layout& text = *v->display_layout[2];
    CHECK(text.find(display_field::content)->kind == serializer::component);
    CHECK(index_of(text_display, display_field::item_display_mode) == -1);
    CHECK(text.find(display_field::line_width)->index == 24);
    CHECK(text.find(display_field::line_width)->int_default == 200);
    CHECK(text.find(display_field::background)->int_default == 0x40000000);
    CHECK(text.find(display_field::text_opacity)->int_default == -1);
    CHECK(text.find(display_field::text_style)->index == 27);
    // The player's shared flags (render.md §5.5).
    CHECK(v->player_flags_index == 0);
  }
}
