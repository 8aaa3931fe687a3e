// Display content per output version (render.md §5.4): item stacks with their data components
// and skin profiles, block states, profile names, and the warning list of one encode. Text
// components are in text_component.cpp, network NBT in nbt_network.cpp.
//
// Item stacks (Slot in minecraft-data's protocol.json): varint count; when positive, varint item
// id, varint number of added components, varint number of removed components (always 0), then
// each added component as varint type id and data, in ascending type id of the version. The
// shapes of the component data (SlotComponent) per version:
// * profile, 767..772: option(string name), option(UUID), varint count of properties
//   {string name, string value, option(string signature)}; >= 773 (ResolvableProfile): varint 0
//   (partial), the same three fields, then the skin patch's four options, all absent.
// * item_model (>= 768): string. custom_model_data: 767 varint; >= 769 four varint-counted
//   arrays: f32 floats, bool flags, string strings, i32 colors. dyed_color: 767..769 i32 color
//   and bool show_in_tooltip; >= 770 i32. enchantment_glint_override: bool.
// Strings are limited as vanilla's stream codecs read them (in UTF-16 code units): a profile name
// 16 (only ^[A-Za-z0-9_]{1,16}$ is written), a property name 64, value 32767, signature 1024, at
// most 16 properties; other strings 32767. What does not fit is dropped with a warning.
//
// Numbers in SNBT are read as vanilla's codecs read NBT numbers: any numeric tag, cast as Java
// casts (Number.intValue, floatValue; a boolean is byteValue != 0).

#include "render/content.hpp"
#include "engine/core/identifier.hpp"
#include "engine/core/snbt.hpp"
#include "engine/core/utf8.hpp"
#include "engine/math/scalar.hpp"
#include "render/content_detail.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace emote::render {

namespace detail {

void warning_sink::operator()(std::string message) {
  if (given_.size() > limit) {
    return;
  }
  if (std::find(given_.begin(), given_.end(), message) != given_.end()) {
    return;
  }
  if (given_.size() == limit) {
    message = "further warnings left out";
  }
  given_.push_back(message);
  out_.push_back(std::move(message));
}

std::string short_text(std::string_view s) {
  constexpr std::size_t max = 48;
  if (s.size() <= max) {
    return std::string(s);
  }
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return std::string(s.substr(0, cut)) + "...";
}

} // namespace detail

bool valid_profile_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > 16) {
    return false;
  }
  for (const char c : name) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) {
      return false;
    }
  }
  return true;
}

namespace {

using core::nbt_tag;
using core::nbt_type;
using detail::short_text;
using detail::warning_sink;

constexpr std::size_t max_string_units = 32767;
constexpr std::size_t max_properties = 16;
constexpr std::size_t max_property_name = 64;
constexpr std::size_t max_property_value = 32767;
constexpr std::size_t max_signature = 1024;

using core::is_numeric;
using math::java_d2i;

// Number.intValue of a numeric tag (a long keeps its low 32 bits).
std::int32_t java_int(const nbt_tag& t) noexcept {
  if (t.type == nbt_type::float_tag || t.type == nbt_type::double_tag) {
    return java_d2i(t.number);
  }
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(t.integer));
}

// Number.floatValue of a numeric tag.
float java_float(const nbt_tag& t) noexcept {
  if (t.type == nbt_type::float_tag || t.type == nbt_type::double_tag) {
    return static_cast<float>(t.number);
  }
  return static_cast<float>(t.integer);
}

// Codec.BOOL over NBT: byteValue() != 0.
bool java_bool(const nbt_tag& t) noexcept {
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(java_int(t))) != 0;
}

// A protocol string that vanilla's reader takes: well-formed UTF-8 (ill-formed sequences are
// replaced, with a warning) of at most `max_units` UTF-16 code units (else nullopt, warned).
std::optional<std::string> protocol_string(std::string_view s, std::size_t max_units,
                                           std::string_view what, warning_sink& warn) {
  std::string out;
  if (core::sanitize_utf8(s, out) != std::string::npos) {
    warn(std::string(what) + " has ill-formed UTF-8 (replaced by U+FFFD)");
  }
  if (core::utf16_length(out) > max_units) {
    warn(std::string(what) + " over " + std::to_string(max_units) + " characters, dropped");
    return std::nullopt;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Profiles

struct profile_property {
  std::string name;
  std::string value;
  std::optional<std::string> signature;
};

struct profile {
  std::optional<std::string> name;
  std::optional<api::uuid> id;
  std::vector<profile_property> properties;
};

void add_property(profile& p, std::string_view name, std::string_view value,
                  const std::string* signature, warning_sink& warn) {
  if (p.properties.size() == max_properties) {
    warn("profile over " + std::to_string(max_properties) + " properties, the rest dropped");
    return;
  }
  auto n = protocol_string(name, max_property_name, "profile property name", warn);
  auto v = protocol_string(value, max_property_value, "profile property value", warn);
  if (!n || !v) {
    return;
  }
  profile_property prop{std::move(*n), std::move(*v), std::nullopt};
  if (signature != nullptr) {
    prop.signature = protocol_string(*signature, max_signature, "profile signature", warn);
    if (!prop.signature) {
      return; // a property with a signature too long to send is no use unsigned
    }
  }
  p.properties.push_back(std::move(prop));
}

void set_name(profile& p, std::string_view name, warning_sink& warn) {
  if (valid_profile_name(name)) {
    p.name = std::string(name);
  } else {
    warn("profile name " + short_text(name) + " is not a valid player name, left out");
  }
}

// UUIDUtil's forms: an int array of 4 (most significant first) or the hyphenated string.
std::optional<api::uuid> uuid_of(const nbt_tag& t) {
  api::uuid u{};
  if (t.type == nbt_type::int_array && t.array.size() == 4) {
    for (std::size_t i = 0; i < 4; ++i) {
      const auto x = static_cast<std::uint32_t>(t.array[i]);
      for (std::size_t b = 0; b < 4; ++b) {
        u[i * 4 + b] = static_cast<std::uint8_t>(x >> (24 - 8 * b));
      }
    }
    return u;
  }
  if (t.type == nbt_type::string_tag && t.string.size() == 36) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < 36; ++i) {
      const char c = t.string[i];
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        if (c != '-') {
          return std::nullopt;
        }
        continue;
      }
      int d = 0;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return std::nullopt;
      }
      u[k / 2] = static_cast<std::uint8_t>(u[k / 2] | (k % 2 == 0 ? d << 4 : d));
      ++k;
    }
    return u;
  }
  return std::nullopt;
}

// The stack's own minecraft:profile (26.1: a name string, or {name, id, properties}).
profile profile_from_snbt(const nbt_tag& t, warning_sink& warn) {
  profile p;
  if (t.type == nbt_type::string_tag) {
    set_name(p, t.string, warn);
    return p;
  }
  if (t.type != nbt_type::compound_tag) {
    warn("profile is neither a name nor a compound");
    return p;
  }
  for (const auto& e : t.compound.entries) {
    if (e.key == "name") {
      if (e.value.type == nbt_type::string_tag) {
        set_name(p, e.value.string, warn);
      } else {
        warn("profile name is not a string, left out");
      }
    } else if (e.key == "id") {
      p.id = uuid_of(e.value);
      if (!p.id) {
        warn("profile id is not a UUID, left out");
      }
    } else if (e.key == "properties") {
      if (e.value.type != nbt_type::list_tag) {
        warn("profile properties are not a list, left out");
        continue;
      }
      for (const auto& prop : e.value.list) {
        const auto* n = prop.compound.find("name");
        const auto* v = prop.compound.find("value");
        const auto* s = prop.compound.find("signature");
        if (prop.type != nbt_type::compound_tag || n == nullptr ||
            n->type != nbt_type::string_tag || v == nullptr || v->type != nbt_type::string_tag ||
            (s != nullptr && s->type != nbt_type::string_tag)) {
          warn("profile property without string name and value, left out");
          continue;
        }
        add_property(p, n->string, v->string, s != nullptr ? &s->string : nullptr, warn);
      }
    } else if (e.key == "texture" || e.key == "cape" || e.key == "elytra" || e.key == "model") {
      warn("profile skin patch " + e.key + " dropped");
    } else {
      warn("profile key " + short_text(e.key) + " dropped");
    }
  }
  return p;
}

profile profile_from_skin(const skin_profile& skin, warning_sink& warn) {
  profile p;
  if (!skin.name.empty()) {
    set_name(p, skin.name, warn);
  }
  if (skin.uuid != nullptr) {
    p.id = *skin.uuid;
  }
  if (skin.textures != nullptr) {
    add_property(p, "textures", skin.textures->value,
                 skin.textures->signature ? &*skin.textures->signature : nullptr, warn);
  }
  return p;
}

void write_profile(byte_writer& w, const version_table& v, const profile& p) {
  if (v.profile == profile_layout::resolvable_partial) {
    w.varint(0); // partial
  }
  w.boolean(p.name.has_value());
  if (p.name) {
    w.string(*p.name);
  }
  w.boolean(p.id.has_value());
  if (p.id) {
    w.uuid(*p.id);
  }
  w.varint(static_cast<std::int32_t>(p.properties.size()));
  for (const auto& prop : p.properties) {
    w.string(prop.name);
    w.string(prop.value);
    w.boolean(prop.signature.has_value());
    if (prop.signature) {
      w.string(*prop.signature);
    }
  }
  if (v.profile == profile_layout::resolvable_partial) {
    for (int i = 0; i < 4; ++i) {
      w.boolean(false); // skin patch: body, cape, elytra, model absent
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Other components

constexpr std::array<std::string_view, data_component_count> component_names = {
    "profile",     "item_model", "custom_model_data", "dyed_color", "enchantment_glint_override",
    "enchantments"};

std::string component_label(data_component c) {
  return "component minecraft:" + std::string(component_names[static_cast<std::size_t>(c)]);
}

// A list of numbers: a list of numeric tags or a numeric array (as long tags).
std::optional<std::vector<nbt_tag>> numeric_list(const nbt_tag& t) {
  std::vector<nbt_tag> out;
  if (t.type == nbt_type::list_tag) {
    for (const auto& e : t.list) {
      if (!is_numeric(e)) {
        return std::nullopt;
      }
      out.push_back(e);
    }
    return out;
  }
  if (t.type == nbt_type::byte_array || t.type == nbt_type::int_array ||
      t.type == nbt_type::long_array) {
    out.resize(t.array.size());
    for (std::size_t i = 0; i < t.array.size(); ++i) {
      out[i].type = nbt_type::long_tag;
      out[i].integer = t.array[i];
    }
    return out;
  }
  return std::nullopt;
}

// custom_model_data (>= 769): the four lists; false (warned) when the value is unusable.
bool write_custom_model_data_lists(byte_writer& w, const nbt_tag& t, warning_sink& warn) {
  if (t.type != nbt_type::compound_tag) {
    warn("component minecraft:custom_model_data is not a compound, dropped");
    return false;
  }
  for (const auto& e : t.compound.entries) {
    if (e.key != "floats" && e.key != "flags" && e.key != "strings" && e.key != "colors") {
      warn("custom_model_data key " + short_text(e.key) + " dropped");
    }
  }
  auto numbers = [&](std::string_view key) -> std::vector<nbt_tag> {
    const auto* f = t.compound.find(key);
    if (f == nullptr) {
      return {};
    }
    auto list = numeric_list(*f);
    if (!list) {
      warn("custom_model_data " + std::string(key) + " is not a list of numbers, left empty");
      return {};
    }
    return std::move(*list);
  };
  const auto floats = numbers("floats");
  w.varint(static_cast<std::int32_t>(floats.size()));
  for (const auto& f : floats) {
    w.f32(java_float(f));
  }
  const auto flags = numbers("flags");
  w.varint(static_cast<std::int32_t>(flags.size()));
  for (const auto& f : flags) {
    w.boolean(java_bool(f));
  }
  std::vector<std::string> strings;
  if (const auto* s = t.compound.find("strings")) {
    const bool ok = s->type == nbt_type::list_tag &&
                    (s->list.empty() || s->list.front().type == nbt_type::string_tag);
    if (!ok) {
      warn("custom_model_data strings is not a list of strings, left empty");
    } else {
      for (const auto& e : s->list) {
        if (auto str =
                protocol_string(e.string, max_string_units, "custom_model_data string", warn)) {
          strings.push_back(std::move(*str));
        }
      }
    }
  }
  w.varint(static_cast<std::int32_t>(strings.size()));
  for (const auto& s : strings) {
    w.string(s);
  }
  const auto colors = numbers("colors");
  w.varint(static_cast<std::int32_t>(colors.size()));
  for (const auto& c : colors) {
    w.i32(java_int(c));
  }
  return true;
}

// custom_model_data on 767: (int) floats[0].
bool write_custom_model_data_varint(byte_writer& w, const nbt_tag& t, warning_sink& warn) {
  const nbt_tag* floats = t.type == nbt_type::compound_tag ? t.compound.find("floats") : nullptr;
  const auto list = floats != nullptr ? numeric_list(*floats) : std::nullopt;
  if (!list || list->empty()) {
    warn("component minecraft:custom_model_data without floats dropped");
    return false;
  }
  w.varint(java_d2i(static_cast<double>(java_float(list->front()))));
  return true;
}

struct encoded_component {
  std::int32_t type;
  std::string data;
};

// Encodes the supported component `c` (its value `t`) into `out`; false when dropped (warned).
bool encode_component(const version_table& v, data_component c, const nbt_tag& t, std::string& out,
                      warning_sink& warn) {
  byte_writer w(out);
  switch (c) {
  case data_component::item_model: {
    std::optional<std::string> id;
    if (t.type == nbt_type::string_tag) {
      id = core::parse_resource_location(t.string);
    }
    if (!id) {
      warn("component minecraft:item_model is not a resource location, dropped");
      return false;
    }
    auto s = protocol_string(*id, max_string_units, "item_model", warn);
    if (!s) {
      return false;
    }
    w.string(*s);
    return true;
  }
  case data_component::custom_model_data:
    switch (v.custom_model_data) {
    case custom_model_data_layout::varint:
      return write_custom_model_data_varint(w, t, warn);
    case custom_model_data_layout::dropped:
      warn("component minecraft:custom_model_data dropped on protocol " +
           std::to_string(v.protocol) + " (render.md 5.4)");
      return false;
    case custom_model_data_layout::lists:
      return write_custom_model_data_lists(w, t, warn);
    }
    return false;
  case data_component::dyed_color:
    if (!is_numeric(t)) {
      warn("component minecraft:dyed_color is not a number, dropped");
      return false;
    }
    w.i32(java_int(t));
    if (v.dyed_color == dyed_color_layout::with_tooltip) {
      w.boolean(true);
    }
    return true;
  case data_component::enchantment_glint_override:
    w.boolean(java_bool(t));
    return true;
  case data_component::profile:
  case data_component::enchantments:
    break; // written by the caller
  }
  return false;
}

std::optional<data_component> supported_component(std::string_view path) {
  for (std::size_t i = 0; i < component_names.size(); ++i) {
    if (path == component_names[i]) {
      return static_cast<data_component>(i);
    }
  }
  return std::nullopt;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Item stacks

void write_item_stack(byte_writer& w, const version_table& v, std::string_view snbt,
                      const skin_profile* skin, warnings& warn_out) {
  warning_sink warn(warn_out);
  auto empty = [&] { w.varint(0); };
  if (snbt.empty()) {
    empty();
    return;
  }
  auto parsed = core::parse_compound_snbt(snbt);
  if (!parsed.ok()) {
    warn("invalid item SNBT (empty stack): " + parsed.error());
    empty();
    return;
  }
  const core::nbt_compound& stack = parsed.value();
  std::string id;
  if (auto problem = core::check_item_stack(stack, &id); !problem.empty()) {
    warn(problem + " (empty stack)");
    empty();
    return;
  }
  const auto item = item_id(v, id);
  if (!item) {
    warn("unknown item " + short_text(id) + " (empty stack)");
    empty();
    return;
  }
  std::int32_t count = 1;
  if (const auto* c = stack.find("count")) {
    if (is_numeric(*c)) {
      count = java_int(*c);
    } else {
      warn("item count is not a number, 1 used");
    }
  }
  if (count <= 0) {
    empty();
    return;
  }
  for (const auto& e : stack.entries) {
    if (e.key != "id" && e.key != "count" && e.key != "components") {
      warn("item key " + short_text(e.key) + " ignored");
    }
  }

  // The supported components present, by kind; everything else is dropped here.
  std::array<const nbt_tag*, data_component_count> given{};
  if (const auto* comps = stack.find("components")) {
    if (comps->type != nbt_type::compound_tag) {
      warn("item components are not a compound, ignored");
    } else {
      for (const auto& e : comps->compound.entries) {
        if (!e.key.empty() && e.key.front() == '!') {
          warn("component removal " + short_text(e.key) + " dropped");
          continue;
        }
        const auto rl = core::parse_resource_location(e.key);
        constexpr std::string_view ns = "minecraft:";
        const auto kind = rl && rl->starts_with(ns)
                              ? supported_component(std::string_view(*rl).substr(ns.size()))
                              : std::nullopt;
        if (!kind) {
          warn("component " + short_text(rl ? *rl : e.key) + " dropped");
          continue;
        }
        auto& slot = given[static_cast<std::size_t>(*kind)];
        if (slot != nullptr) {
          warn(component_label(*kind) + " given twice, the second dropped");
          continue;
        }
        slot = &e.value;
      }
    }
  }

  std::vector<encoded_component> added;
  auto add = [&](data_component c, auto&& encode) {
    const std::int32_t type = v.component_ids[static_cast<std::size_t>(c)];
    if (type < 0) {
      warn(component_label(c) + " dropped: not in protocol " + std::to_string(v.protocol));
      return;
    }
    encoded_component e{type, {}};
    if (encode(e.data)) {
      added.push_back(std::move(e));
    }
  };

  // minecraft:profile: the skin's, else the stack's own.
  const auto* own_profile = given[static_cast<std::size_t>(data_component::profile)];
  if (skin != nullptr || own_profile != nullptr) {
    add(data_component::profile, [&](std::string& out) {
      const profile p =
          skin != nullptr ? profile_from_skin(*skin, warn) : profile_from_snbt(*own_profile, warn);
      if (!p.name && !p.id && p.properties.empty()) {
        warn("component minecraft:profile without textures, uuid or valid name dropped");
        return false;
      }
      byte_writer pw(out);
      write_profile(pw, v, p);
      return true;
    });
  }
  for (const auto c : {data_component::item_model, data_component::custom_model_data,
                       data_component::dyed_color}) {
    if (const auto* t = given[static_cast<std::size_t>(c)]) {
      add(c, [&](std::string& out) { return encode_component(v, c, *t, out, warn); });
    }
  }
  // The glint: the stack's override, else true for at least one enchantment (render.md §5.4).
  const auto* glint = given[static_cast<std::size_t>(data_component::enchantment_glint_override)];
  if (glint != nullptr && !is_numeric(*glint)) {
    warn("component minecraft:enchantment_glint_override is not a boolean, dropped");
    glint = nullptr;
  }
  bool enchanted = false;
  if (const auto* ench = given[static_cast<std::size_t>(data_component::enchantments)]) {
    if (ench->type == nbt_type::compound_tag) {
      enchanted = !ench->compound.empty();
    } else {
      warn("component minecraft:enchantments is not a compound, dropped");
    }
  }
  if (glint != nullptr) {
    add(data_component::enchantment_glint_override, [&](std::string& out) {
      return encode_component(v, data_component::enchantment_glint_override, *glint, out, warn);
    });
  } else if (enchanted) {
    add(data_component::enchantment_glint_override, [&](std::string& out) {
      byte_writer(out).boolean(true);
      return true;
    });
  }

  std::sort(added.begin(), added.end(),
            [](const encoded_component& a, const encoded_component& b) { return a.type < b.type; });
  w.varint(count);
  w.varint(*item);
  w.varint(static_cast<std::int32_t>(added.size()));
  w.varint(0);
  for (const auto& c : added) {
    w.varint(c.type);
    w.bytes(c.data);
  }
}

// ---------------------------------------------------------------------------------------------
// Block states

std::int32_t block_state_id(const version_table& v, std::string_view snbt, warnings& warn_out) {
  warning_sink warn(warn_out);
  if (snbt.empty()) {
    return 0;
  }
  auto parsed = core::parse_compound_snbt(snbt);
  if (!parsed.ok()) {
    warn("invalid block state SNBT (air): " + parsed.error());
    return 0;
  }
  const core::nbt_compound& state = parsed.value();
  if (auto problem = core::check_block_state(state); !problem.empty()) {
    warn(problem + " (air)");
    return 0;
  }
  const std::string& name = state.find("Name")->string;
  const block_entry* block = find_block(v, name);
  if (block == nullptr) {
    warn("unknown block " + short_text(name) + " (air)");
    return 0;
  }
  // Absent properties keep the default state's values (tables.hpp has the state arithmetic).
  const auto props = block_properties(v, *block);
  std::vector<std::uint32_t> index(props.size());
  for (std::size_t i = 0; i < props.size(); ++i) {
    index[i] = state_value_index(v, *block, block->default_state, i).value_or(0);
  }
  if (const auto* given = state.find("Properties")) {
    for (const auto& e : given->compound.entries) {
      const auto p = std::find_if(props.begin(), props.end(),
                                  [&](const block_property& bp) { return bp.name == e.key; });
      if (p == props.end()) {
        warn("block " + short_text(name) + " has no property " + short_text(e.key) + ", ignored");
        continue;
      }
      const auto at = property_value_index(v, *p, e.value.string);
      if (!at) {
        warn("unknown value " + short_text(e.value.string) + " of " + short_text(e.key) +
             " for block " + short_text(name) + " (air)");
        return 0;
      }
      index[static_cast<std::size_t>(p - props.begin())] = *at;
    }
  }
  const auto id = render::block_state_id(v, *block, index);
  if (!id) {
    warn("block " + short_text(name) + " has no such state (air)");
    return 0;
  }
  return *id;
}

std::int32_t write_display_content(byte_writer& w, const version_table& v, api::display_kind kind,
                                   std::string_view source, const skin_profile* skin,
                                   warnings& warn) {
  switch (kind) {
  case api::display_kind::item:
    write_item_stack(w, v, source, skin, warn);
    return 0;
  case api::display_kind::block:
    return block_state_id(v, source, warn);
  case api::display_kind::text:
    write_text_component(w, v, source, warn);
    return 0;
  }
  return 0;
}

} // namespace emote::render
