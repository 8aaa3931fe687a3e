#include "engine/content/model.hpp"

#include <algorithm>
#include <array>
#include <tuple>

namespace emote::content {

std::string_view name(emote_kind v) noexcept {
  return v == emote_kind::animation ? "animation" : "sequence";
}

std::string_view name(playback_mode v) noexcept {
  constexpr std::array<std::string_view, 4> n{"once", "hold", "loop", "server_sync"};
  return n[static_cast<std::size_t>(v)];
}

std::string_view name(node_type v) noexcept {
  constexpr std::array<std::string_view, 4> n{"anchor", "item_display", "block_display",
                                              "text_display"};
  return n[static_cast<std::size_t>(v)];
}

std::string_view name(node_space v) noexcept {
  constexpr std::array<std::string_view, 3> n{"scene", "initiator", "partner"};
  return n[static_cast<std::size_t>(v)];
}

std::string_view name(physical_arm v) noexcept { return v == physical_arm::left ? "left" : "right"; }

std::string_view name(item_display_context v) noexcept {
  constexpr std::array<std::string_view, 10> n{
      "none", "thirdperson_lefthand", "thirdperson_righthand", "firstperson_lefthand",
      "firstperson_righthand", "head", "gui", "ground", "fixed", "on_shelf"};
  return n[static_cast<std::size_t>(v)];
}

std::string_view name(participant v) noexcept {
  return v == participant::initiator ? "initiator" : "partner";
}

std::string_view name(skin_part v) noexcept {
  constexpr std::array<std::string_view, 6> n{"head", "body", "left_arm",
                                              "right_arm", "left_leg", "right_leg"};
  return n[static_cast<std::size_t>(v)];
}

std::string_view name(interpolation v) noexcept {
  return v == interpolation::linear ? "linear" : "step";
}

std::string_view name(easing v) noexcept {
  constexpr std::array<std::string_view, 31> n{
      "linear",
      "ease_in_sine",    "ease_out_sine",    "ease_in_out_sine",
      "ease_in_quad",    "ease_out_quad",    "ease_in_out_quad",
      "ease_in_cubic",   "ease_out_cubic",   "ease_in_out_cubic",
      "ease_in_quart",   "ease_out_quart",   "ease_in_out_quart",
      "ease_in_quint",   "ease_out_quint",   "ease_in_out_quint",
      "ease_in_expo",    "ease_out_expo",    "ease_in_out_expo",
      "ease_in_circ",    "ease_out_circ",    "ease_in_out_circ",
      "ease_in_back",    "ease_out_back",    "ease_in_out_back",
      "ease_in_elastic", "ease_out_elastic", "ease_in_out_elastic",
      "ease_in_bounce",  "ease_out_bounce",  "ease_in_out_bounce"};
  return n[static_cast<std::size_t>(v)];
}

std::string_view name(event_source v) noexcept {
  constexpr std::array<std::string_view, 3> n{"player", "server", "node"};
  return n[static_cast<std::size_t>(v)];
}

std::string_view name(event_origin v) noexcept { return v == event_origin::root ? "root" : "node"; }

bool same_layout(const skin_layout& a, const skin_layout& b) {
  if (a.size() != b.size()) {
    return false;
  }
  using key = std::tuple<std::string_view, participant, skin_part, std::int32_t, std::int32_t>;
  auto keys = [](const skin_layout& l) {
    std::vector<key> k;
    k.reserve(l.size());
    for (const auto& r : l) {
      k.emplace_back(r.node_id, r.participant, r.part, r.start, r.end);
    }
    std::sort(k.begin(), k.end());
    return k;
  };
  return keys(a) == keys(b);
}

std::int32_t animation::find_node(std::string_view node_id) const noexcept {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].id == node_id) {
      return static_cast<std::int32_t>(i);
    }
  }
  return -1;
}

std::int32_t sequence::find_animation(std::string_view animation_id) const noexcept {
  for (std::size_t i = 0; i < animations.size(); ++i) {
    if (animations[i].animation->id == animation_id) {
      return static_cast<std::int32_t>(i);
    }
  }
  return -1;
}

bool catalog_entry::standalone() const noexcept {
  return kind == emote_kind::sequence || animation->settings.standalone;
}

bool catalog_entry::two_player() const noexcept {
  return kind == emote_kind::sequence && sequence->two_player();
}

std::int64_t catalog_entry::duration() const noexcept {
  return kind == emote_kind::animation ? animation->duration.count() : sequence->duration;
}

ticks catalog_entry::cooldown() const noexcept {
  return kind == emote_kind::animation ? animation->settings.cooldown : sequence->cooldown;
}

const content::metadata& catalog_entry::meta() const noexcept {
  return kind == emote_kind::animation ? animation->metadata : sequence->metadata;
}

const player_settings& catalog_entry::player() const noexcept {
  return kind == emote_kind::animation ? animation->settings.player : sequence->player;
}

catalog::catalog(std::vector<catalog_entry> entries, std::vector<source_file> files,
                 core::diagnostics diagnostics)
    : entries_(std::move(entries)), files_(std::move(files)),
      diagnostics_(std::move(diagnostics)) {
  std::sort(entries_.begin(), entries_.end(),
            [](const catalog_entry& a, const catalog_entry& b) { return a.id < b.id; });
}

const catalog_entry* catalog::find(std::string_view id) const noexcept {
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                                   [](const catalog_entry& e, std::string_view k) { return e.id < k; });
  return it != entries_.end() && it->id == id ? &*it : nullptr;
}

std::shared_ptr<const content::animation> catalog::find_animation(std::string_view id) const {
  const auto* e = find(id);
  return e != nullptr && e->kind == emote_kind::animation ? e->animation : nullptr;
}

std::shared_ptr<const content::sequence> catalog::find_sequence(std::string_view id) const {
  const auto* e = find(id);
  return e != nullptr && e->kind == emote_kind::sequence ? e->sequence : nullptr;
}

std::size_t catalog::animation_count() const noexcept {
  return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const auto& e) {
    return e.kind == emote_kind::animation;
  }));
}

std::size_t catalog::sequence_count() const noexcept { return entries_.size() - animation_count(); }

std::size_t catalog::error_count() const noexcept {
  return static_cast<std::size_t>(std::count_if(diagnostics_.begin(), diagnostics_.end(),
                                                [](const auto& d) {
                                                  return d.severity == core::severity::error;
                                                }));
}

std::size_t catalog::warning_count() const noexcept {
  return diagnostics_.size() - error_count();
}

} // namespace emote::content
