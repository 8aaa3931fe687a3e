#include "engine/content/model.hpp"

#include <algorithm>
#include <array>
#include <tuple>

namespace emote::content {

std::string_view name(emote_kind v) noexcept {
  return emote_kind_names(v);
}
std::string_view name(playback_mode v) noexcept {
  return playback_mode_names(v);
}
std::string_view name(node_type v) noexcept {
  return node_type_names(v);
}
std::string_view name(item_display_context v) noexcept {
  return item_display_context_names(v);
}
std::string_view name(participant v) noexcept {
  return participant_names(v);
}
std::string_view name(skin_part v) noexcept {
  return skin_part_names(v);
}
std::string_view name(interpolation v) noexcept {
  return interpolation_names(v);
}
std::string_view name(event_source v) noexcept {
  return event_source_names(v);
}
std::string_view name(event_origin v) noexcept {
  return event_origin_names(v);
}

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
    : entries_(std::move(entries)), files_(std::move(files)), diagnostics_(std::move(diagnostics)) {
  std::sort(entries_.begin(), entries_.end(),
            [](const catalog_entry& a, const catalog_entry& b) { return a.id < b.id; });
}

const catalog_entry* catalog::find(std::string_view id) const noexcept {
  const auto it =
      std::lower_bound(entries_.begin(), entries_.end(), id,
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
  return static_cast<std::size_t>(
      std::count_if(entries_.begin(), entries_.end(),
                    [](const auto& e) { return e.kind == emote_kind::animation; }));
}

std::size_t catalog::sequence_count() const noexcept {
  return entries_.size() - animation_count();
}

std::size_t catalog::error_count() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(diagnostics_.begin(), diagnostics_.end(),
                    [](const auto& d) { return d.severity == core::severity::error; }));
}

std::size_t catalog::warning_count() const noexcept {
  return diagnostics_.size() - error_count();
}

} // namespace emote::content
