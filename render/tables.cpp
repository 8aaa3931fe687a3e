// Lookups over the generated per-version tables (render.md §1): the data is in
// render/tables/generated/ (scripts/regen-tables), this file only searches it.
#include "render/tables.hpp"

#include "render/tables/generated/data.hpp"

#include <algorithm>

namespace emote::render {

namespace {

/// "minecraft:x", ":x" (an empty namespace is minecraft's, as for resource locations) and "x" name
/// the path "x"; any other namespace names nothing.
std::optional<std::string_view> minecraft_path(std::string_view name) noexcept {
  const auto colon = name.find(':');
  if (colon == std::string_view::npos) {
    return name;
  }
  const auto ns = name.substr(0, colon);
  if (!ns.empty() && ns != "minecraft") {
    return std::nullopt;
  }
  return name.substr(colon + 1);
}

/// The entry named `name` in `entries` (ascending name), or nullptr.
template <class Entry>
const Entry* find_named(std::span<const Entry> entries, std::string_view name) noexcept {
  const auto it = std::lower_bound(entries.begin(), entries.end(), name,
                                   [](const Entry& e, std::string_view n) { return e.name < n; });
  if (it == entries.end() || it->name != name) {
    return nullptr;
  }
  return &*it;
}

/// The number of states of `b`: the product of its properties' value counts.
std::int64_t state_count(std::span<const block_property> props) noexcept {
  std::int64_t n = 1;
  for (const auto& p : props) {
    n *= p.value_count;
  }
  return n;
}

} // namespace

std::span<const version_table* const> versions() noexcept {
  return generated::all_versions;
}

const version_table* find_version(std::int64_t protocol) noexcept {
  return find_version(generated::all_versions, protocol);
}

const version_table* find_version(std::span<const version_table* const> all,
                                  std::int64_t protocol) noexcept {
  const auto it =
      std::lower_bound(all.begin(), all.end(), protocol,
                       [](const version_table* v, std::int64_t p) { return v->protocol < p; });
  if (it == all.end() || (*it)->protocol != protocol) {
    return nullptr;
  }
  return *it;
}

std::string_view supported_protocols_text() noexcept {
  return generated::supported_protocols;
}

std::optional<std::int32_t> item_id(const version_table& v, std::string_view name) noexcept {
  const auto path = minecraft_path(name);
  if (!path) {
    return std::nullopt;
  }
  const auto* e = find_named(v.items, *path);
  if (e == nullptr) {
    return std::nullopt;
  }
  return e->id;
}

const block_entry* find_block(const version_table& v, std::string_view name) noexcept {
  const auto path = minecraft_path(name);
  return path ? find_named(v.blocks, *path) : nullptr;
}

std::optional<std::int8_t> item_display_mode(const version_table& v,
                                             std::string_view name) noexcept {
  const auto& modes = v.item_display_modes;
  const auto it = std::find(modes.begin(), modes.end(), name);
  if (it == modes.end()) {
    return std::nullopt;
  }
  return static_cast<std::int8_t>(it - modes.begin());
}

std::span<const block_property> block_properties(const version_table& v,
                                                 const block_entry& b) noexcept {
  if (b.first_property > v.properties.size() ||
      b.property_count > v.properties.size() - b.first_property) {
    return {};
  }
  return v.properties.subspan(b.first_property, b.property_count);
}

std::span<const std::string_view> property_values(const version_table& v,
                                                  const block_property& p) noexcept {
  if (p.first_value > v.property_values.size() ||
      p.value_count > v.property_values.size() - p.first_value) {
    return {};
  }
  return v.property_values.subspan(p.first_value, p.value_count);
}

std::optional<std::uint32_t> property_value_index(const version_table& v, const block_property& p,
                                                  std::string_view value) noexcept {
  const auto values = property_values(v, p);
  const auto it = std::find(values.begin(), values.end(), value);
  if (it == values.end()) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(it - values.begin());
}

std::optional<std::uint32_t> state_value_index(const version_table& v, const block_entry& b,
                                               std::int32_t state, std::size_t property) noexcept {
  const auto props = block_properties(v, b);
  if (property >= props.size()) {
    return std::nullopt;
  }
  const std::int64_t offset = std::int64_t{state} - b.min_state;
  if (offset < 0 || offset >= state_count(props)) {
    return std::nullopt;
  }
  // Digits after `property` are less significant: divide them away.
  std::int64_t rest = offset;
  for (std::size_t i = props.size(); i-- > property + 1;) {
    rest /= props[i].value_count;
  }
  return static_cast<std::uint32_t>(rest % props[property].value_count);
}

std::optional<std::int32_t> block_state_id(const version_table& v, const block_entry& b,
                                           std::span<const std::uint32_t> value_indices) noexcept {
  const auto props = block_properties(v, b);
  if (value_indices.size() != props.size()) {
    return std::nullopt;
  }
  std::int64_t n = 0;
  for (std::size_t i = 0; i < props.size(); ++i) {
    if (value_indices[i] >= props[i].value_count) {
      return std::nullopt;
    }
    n = n * props[i].value_count + value_indices[i];
  }
  return static_cast<std::int32_t>(b.min_state + n);
}

} // namespace emote::render
