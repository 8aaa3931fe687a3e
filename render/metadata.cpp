#include "render/metadata.hpp"

#include "render/content.hpp"

#include "engine/math/scalar.hpp"

#include <bit>
#include <cmath>
#include <string_view>

namespace emote::render {

bool same_bits(const entry_value& a, const entry_value& b) noexcept {
  if (a.i != b.i) {
    return false;
  }
  for (std::size_t k = 0; k < a.f.size(); ++k) {
    if (std::bit_cast<std::uint32_t>(a.f[k]) != std::bit_cast<std::uint32_t>(b.f[k])) {
      return false;
    }
  }
  return true;
}

entity_kind to_entity_kind(api::display_kind k) noexcept {
  switch (k) {
  case api::display_kind::item:
    return entity_kind::item_display;
  case api::display_kind::block:
    return entity_kind::block_display;
  case api::display_kind::text:
    return entity_kind::text_display;
  }
  return entity_kind::item_display;
}

empty_content empty_contents(const version_table& v) {
  empty_content out;
  warnings none;
  byte_writer wi(out.item);
  write_item_stack(wi, v, "", nullptr, none);
  byte_writer wt(out.text);
  write_text_component(wt, v, "", none);
  return out;
}

void set_content_entry(metadata_entry& e, const metadata_slot& s, api::display_kind kind,
                       bool visible, std::string_view raw, std::int32_t state,
                       const empty_content& empty) noexcept {
  e = metadata_entry{};
  e.index = s.index;
  e.kind = s.kind;
  if (kind == api::display_kind::block) {
    e.i = visible ? state : s.int_default;
  } else if (visible) {
    e.raw = raw;
  } else {
    e.raw = kind == api::display_kind::item ? empty.item : empty.text;
  }
}

bool entry_differs_from_default(const metadata_slot& s, const metadata_entry& e,
                                const empty_content& empty) noexcept {
  switch (e.kind) {
  case serializer::item_stack:
    return e.raw != empty.item;
  case serializer::component:
    return e.raw != empty.text;
  default:
    return differs_from_default(s, e);
  }
}

bool differs_from_default(const metadata_slot& s, const metadata_entry& e) noexcept {
  entry_value val;
  val.i = e.i;
  val.f = e.f;
  entry_value def = default_value(s);
  if (e.kind == serializer::byte) {
    // A byte entry is compared as the byte it is written as.
    val.i = static_cast<std::int8_t>(val.i);
    def.i = static_cast<std::int8_t>(def.i);
  }
  return !same_bits(val, def);
}

std::uint32_t update_transform(display_values& values, const api::transform_record& t,
                               std::int32_t interpolation_duration) noexcept {
  return update_transform(
      std::span<entry_value, motion_fields>(
          values.data() + static_cast<std::size_t>(field::interpolation_duration), motion_fields),
      t, interpolation_duration);
}

std::uint32_t update_transform(std::span<entry_value, motion_fields> motion,
                               const api::transform_record& t,
                               std::int32_t interpolation_duration) noexcept {
  constexpr auto first = static_cast<unsigned>(field::interpolation_duration);
  static_assert(static_cast<unsigned>(field::teleport_duration) == first + 1 &&
                static_cast<unsigned>(field::translation) == first + 2 &&
                static_cast<unsigned>(field::scale) == first + 3 &&
                static_cast<unsigned>(field::left_rotation) == first + 4 &&
                static_cast<unsigned>(field::right_rotation) == first + 5);
  std::uint32_t dirty = 0;
  if (motion[0].i != interpolation_duration) {
    motion[0].i = interpolation_duration;
    dirty |= field_bit(field::interpolation_duration);
  }
  // The entries 11-14 as set_transform writes them.
  const std::array<float, 4> next[4] = {{t.translation[0], t.translation[1], t.translation[2], 0},
                                        {t.scale[0], t.scale[1], t.scale[2], 0},
                                        t.left_rotation,
                                        t.right_rotation};
  for (std::uint8_t k = 0; k < 4; ++k) {
    entry_value& cur = motion[2 + k];
    const entry_value n{cur.i, next[k]};
    if (!same_bits(n, cur)) {
      cur = n;
      dirty |= std::uint32_t{1} << (first + 2 + k);
    }
  }
  return dirty;
}

std::uint32_t changed_entries(const display_values& a, const display_values& b) noexcept {
  std::uint32_t dirty = 0;
  for (std::size_t k = 0; k < display_field_count; ++k) {
    if (!same_bits(a[k], b[k])) {
      dirty |= std::uint32_t{1} << k;
    }
  }
  return dirty;
}

entry_value default_value(const metadata_slot& s) noexcept {
  entry_value e;
  switch (s.kind) {
  case serializer::float_:
  case serializer::vector3:
  case serializer::quaternion:
    e.f = s.float_default;
    break;
  default:
    e.i = s.int_default;
    break;
  }
  return e;
}

display_values default_values(const version_table& v, entity_kind kind) {
  display_values out{};
  for (const metadata_slot& s : layout(v, kind).slots) {
    at(out, s.field) = default_value(s);
  }
  return out;
}

void set_transform(display_values& out, const api::transform_record& t) noexcept {
  at(out, field::translation).f = {t.translation[0], t.translation[1], t.translation[2], 0};
  at(out, field::scale).f = {t.scale[0], t.scale[1], t.scale[2], 0};
  at(out, field::left_rotation).f = t.left_rotation;
  at(out, field::right_rotation).f = t.right_rotation;
}

namespace {

using core::nbt_tag;
using core::nbt_type;

using core::is_integral;
using core::is_numeric;

// Vanilla's NumericTag casts: an integer tag keeps its low 32 bits; a float or double tag is
// Mth.floor'ed (Java's saturating conversion, NaN 0).
std::int32_t as_int(const nbt_tag& t) noexcept {
  if (is_integral(t)) {
    return static_cast<std::int32_t>(
        static_cast<std::uint32_t>(static_cast<std::uint64_t>(t.integer)));
  }
  return math::java_d2i(std::floor(t.number));
}

std::int32_t as_byte(const nbt_tag& t) noexcept {
  return static_cast<std::int8_t>(
      static_cast<std::uint8_t>(static_cast<std::uint32_t>(as_int(t)) & 0xFFu));
}

float as_float(const nbt_tag& t) noexcept {
  if (is_integral(t)) {
    return static_cast<float>(t.integer);
  }
  return static_cast<float>(t.number);
}

struct reader {
  display_values& out;
  const version_table& v;
  entity_kind kind;
  std::vector<std::string>& warn;

  void reset(field f) {
    if (const metadata_slot* s = layout(v, kind).find(f)) {
      at(out, f) = default_value(*s);
    }
  }
  void bad(std::string_view key, std::string_view why) {
    warn.push_back("NBT " + std::string(key) + " " + std::string(why) + "; the default is used");
  }
  /// A numeric value for `key`; nullptr (with a warning) when the tag is not a number.
  const nbt_tag* number(std::string_view key, const nbt_tag& t) {
    if (is_numeric(t)) {
      return &t;
    }
    bad(key, "is not a number");
    return nullptr;
  }
};

constexpr std::array<std::string_view, 4> billboards{"fixed", "vertical", "horizontal", "center"};

// Keys the animation drives (render.md §5.3), and item_display, which comes from the frame:
// never entries of their own, and not worth a warning.
constexpr std::array<std::string_view, 5> frame_keys{"transformation", "interpolation_duration",
                                                     "start_interpolation", "teleport_duration",
                                                     "item_display"};

} // namespace

void apply_nbt(display_values& out, const core::nbt_compound& effective, const version_table& v,
               entity_kind kind, std::vector<std::string>& warn) {
  reader r{out, v, kind, warn};
  // Every NBT-derived entry starts at its default: a key absent from the effective NBT reverts.
  at(out, field::shared_flags).i = 0;
  for (field f : {field::billboard, field::brightness, field::view_range, field::shadow_radius,
                  field::shadow_strength, field::width, field::height, field::glow_color}) {
    r.reset(f);
  }
  const bool text = kind == entity_kind::text_display;
  std::int32_t style = 0;
  if (text) {
    for (field f : {field::line_width, field::background, field::text_opacity, field::text_style}) {
      r.reset(f);
    }
    style = at(out, field::text_style).i;
  }
  auto set_style = [&](std::int32_t bit, bool on) { style = on ? (style | bit) : (style & ~bit); };

  for (const core::nbt_entry& e : effective.entries) {
    const std::string& k = e.key;
    const nbt_tag& t = e.value;
    if (k == "Glowing") {
      if (const nbt_tag* n = r.number(k, t)) {
        at(out, field::shared_flags).i = as_byte(*n) != 0 ? glowing_flag : 0;
      }
    } else if (k == "billboard") {
      bool found = false;
      if (t.type == nbt_type::string_tag) {
        for (std::size_t b = 0; b < billboards.size(); ++b) {
          if (t.string == billboards[b]) {
            at(out, field::billboard).i = static_cast<std::int32_t>(b);
            found = true;
          }
        }
      }
      if (!found) {
        r.bad(k, "is not one of fixed, vertical, horizontal, center");
      }
    } else if (k == "brightness") {
      const nbt_tag* block = t.type == nbt_type::compound_tag ? t.compound.find("block") : nullptr;
      const nbt_tag* sky = t.type == nbt_type::compound_tag ? t.compound.find("sky") : nullptr;
      if (block && sky && is_numeric(*block) && is_numeric(*sky) && as_int(*block) >= 0 &&
          as_int(*block) <= 15 && as_int(*sky) >= 0 && as_int(*sky) <= 15) {
        at(out, field::brightness).i = as_int(*block) << 4 | as_int(*sky) << 20;
      } else {
        r.bad(k, "is not {block, sky} with both in 0..15");
      }
    } else if (k == "view_range" || k == "shadow_radius" || k == "shadow_strength" ||
               k == "width" || k == "height") {
      const field f = k == "view_range"        ? field::view_range
                      : k == "shadow_radius"   ? field::shadow_radius
                      : k == "shadow_strength" ? field::shadow_strength
                      : k == "width"           ? field::width
                                               : field::height;
      if (const nbt_tag* n = r.number(k, t)) {
        at(out, f).f = {as_float(*n), 0, 0, 0};
      }
    } else if (k == "glow_color_override") {
      if (const nbt_tag* n = r.number(k, t)) {
        at(out, field::glow_color).i = as_int(*n);
      }
    } else if (text && (k == "line_width" || k == "background")) {
      if (const nbt_tag* n = r.number(k, t)) {
        at(out, k == "line_width" ? field::line_width : field::background).i = as_int(*n);
      }
    } else if (text && k == "text_opacity") {
      if (const nbt_tag* n = r.number(k, t)) {
        at(out, field::text_opacity).i = as_byte(*n);
      }
    } else if (text && (k == "shadow" || k == "see_through" || k == "default_background")) {
      if (const nbt_tag* n = r.number(k, t)) {
        // render.md §5.3: shadow 0x01, see-through 0x02, default background 0x04.
        set_style(k == "shadow" ? 0x01 : k == "see_through" ? 0x02 : 0x04, as_byte(*n) != 0);
      }
    } else if (text && k == "alignment") {
      if (t.type == nbt_type::string_tag &&
          (t.string == "center" || t.string == "left" || t.string == "right")) {
        // align left 0x08, align right 0x10; center sets neither.
        set_style(0x08, t.string == "left");
        set_style(0x10, t.string == "right");
      } else {
        r.bad(k, "is not one of center, left, right");
      }
    } else {
      bool frame_key = false;
      for (std::string_view f : frame_keys) {
        frame_key = frame_key || k == f;
      }
      if (!frame_key) {
        warn.push_back("NBT key " + k + " is not rendered; it is ignored");
      }
    }
  }
  if (text) {
    at(out, field::text_style).i = style;
  }
}

} // namespace emote::render
