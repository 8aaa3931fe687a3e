#include "engine/playback/prepared.hpp"

#include "engine/math/matrix.hpp"
#include "engine/playback/channels.hpp"

#include <algorithm>

namespace emote::playback {

api::display_kind display_kind_of(content::node_type t) noexcept {
  switch (t) {
  case content::node_type::block_display:
    return api::display_kind::block;
  case content::node_type::text_display:
    return api::display_kind::text;
  default:
    return api::display_kind::item;
  }
}

namespace {

const content::node_tracks& empty_tracks() {
  static const content::node_tracks none;
  return none;
}

bool has_molang(const content::track_vector& v) {
  return v[0].is_expression() || v[1].is_expression() || v[2].is_expression();
}

bool channel_has_molang(const std::vector<content::vector_keyframe>& keys) {
  return std::any_of(keys.begin(), keys.end(),
                     [](const auto& k) { return has_molang(k.pre) || has_molang(k.post); });
}

/// World matrices of the default transforms along each node's parent chain.
std::vector<math::mat4f> default_worlds(std::span<const content::node> nodes) {
  std::vector<math::mat4f> world(nodes.size());
  std::vector<char> done(nodes.size(), 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    // Walk up to the first computed ancestor, then down again.
    std::vector<std::int32_t> chain;
    for (auto n = static_cast<std::int32_t>(i); n >= 0 && done[static_cast<std::size_t>(n)] == 0;
         n = nodes[static_cast<std::size_t>(n)].parent) {
      chain.push_back(n);
      if (chain.size() > nodes.size()) {
        break; // a cycle cannot pass validation; never loop forever
      }
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const auto n = static_cast<std::size_t>(*it);
      const math::mat4f local = default_local(nodes[n].transform);
      const std::int32_t p = nodes[n].parent;
      world[n] = p >= 0 ? math::affine_mul(world[static_cast<std::size_t>(p)], local) : local;
      done[n] = 1;
    }
  }
  return world;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// prepared_animation

prepared_animation::prepared_animation(std::shared_ptr<const content::animation> animation,
                                       const std::vector<content::node>* nodes,
                                       std::vector<std::int32_t> union_index,
                                       std::size_t bake_budget)
    : animation_(std::move(animation)), nodes_(nodes), union_index_(std::move(union_index)) {
  const std::size_t n = nodes_->size();
  prepared_.resize(n);
  if (union_index_.size() != n) {
    union_index_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      union_index_[i] = static_cast<std::int32_t>(i);
    }
  }
  has_molang_ = animation_->initialize != nullptr || animation_->tick != nullptr;
  for (std::size_t i = 0; i < n; ++i) {
    const content::node& node = (*nodes_)[i];
    prepared_node& p = prepared_[i];
    p.parent = node.parent;
    p.mirror_of = node.mirror_of;
    p.anchor = node.type == content::node_type::anchor;
    const content::node_tracks& tr = tracks(static_cast<std::int32_t>(i));
    p.has_vector_tracks = !tr.position.empty() || !tr.rotation.empty() || !tr.scale.empty();
    p.has_vector_molang = channel_has_molang(tr.position) || channel_has_molang(tr.rotation) ||
                          channel_has_molang(tr.scale);
    const bool other_molang =
        std::any_of(tr.visible.begin(), tr.visible.end(),
                    [](const auto& k) { return k.expression != nullptr; }) ||
        std::any_of(tr.nbt.begin(), tr.nbt.end(), [](const auto& k) { return k.is_select(); });
    has_molang_ = has_molang_ || p.has_vector_molang || other_molang;
    p.constant_local = default_local(node.transform);
  }
  // Evaluation order (playback.md §2.1): declaration order, parents first; partner copies mirror.
  std::vector<char> visited(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (prepared_[i].mirror_of >= 0) {
      mirrors_.push_back(static_cast<std::int32_t>(i));
      continue;
    }
    std::vector<std::int32_t> chain;
    for (auto k = static_cast<std::int32_t>(i); k >= 0 && visited[static_cast<std::size_t>(k)] == 0;
         k = prepared_[static_cast<std::size_t>(k)].parent) {
      chain.push_back(k);
      visited[static_cast<std::size_t>(k)] = 1;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      order_.push_back(*it);
    }
  }
  bake(bake_budget);
}

const content::node_tracks& prepared_animation::tracks(std::int32_t node) const noexcept {
  const auto i = static_cast<std::size_t>(node);
  return i < animation_->tracks.size() && prepared_[i].mirror_of < 0 ? animation_->tracks[i]
                                                                     : empty_tracks();
}

animation_timing prepared_animation::timing() const noexcept {
  animation_timing t;
  t.duration = animation_->duration.count();
  t.loop = animation_->settings.mode == content::playback_mode::loop;
  t.loop_delay = animation_->settings.loop_delay.count();
  return t;
}

void prepared_animation::bake(std::size_t budget) {
  const std::size_t n = prepared_.size();
  const auto ticks = static_cast<std::size_t>(duration()) + 1;
  // Classify along the evaluation order (parents first).
  std::vector<char> chain_constant(n, 0);
  std::vector<char> chain_free(n, 0);
  std::size_t per_tick_nodes = 0;
  for (const std::int32_t i : order_) {
    const prepared_node& p = prepared_[static_cast<std::size_t>(i)];
    const bool parent_constant = p.parent < 0 || chain_constant[static_cast<std::size_t>(p.parent)];
    const bool parent_free = p.parent < 0 || chain_free[static_cast<std::size_t>(p.parent)];
    chain_constant[static_cast<std::size_t>(i)] = parent_constant && !p.has_vector_tracks;
    chain_free[static_cast<std::size_t>(i)] = parent_free && !p.has_vector_molang;
    if (!chain_constant[static_cast<std::size_t>(i)] && chain_free[static_cast<std::size_t>(i)]) {
      ++per_tick_nodes;
    }
  }
  const std::size_t per_tick_bytes = per_tick_nodes * ticks * sizeof(math::mat4f);
  const bool bake_per_tick =
      per_tick_bytes <= budget && per_tick_bytes <= library::per_animation_bake_limit;

  // Constant chains: one world each (evaluation order, so parents are ready).
  for (const std::int32_t i : order_) {
    prepared_node& p = prepared_[static_cast<std::size_t>(i)];
    if (chain_constant[static_cast<std::size_t>(i)]) {
      p.pose = pose_source::table_constant;
      p.table = static_cast<std::uint32_t>(world_table_.size());
      const math::mat4f& local = p.constant_local;
      world_table_.push_back(
          p.parent >= 0
              ? math::affine_mul(world_table_[prepared_[static_cast<std::size_t>(p.parent)].table],
                                 local)
              : local);
    } else if (bake_per_tick && chain_free[static_cast<std::size_t>(i)]) {
      p.pose = pose_source::table_per_tick;
      p.table = static_cast<std::uint32_t>(world_table_.size());
      world_table_.resize(world_table_.size() + ticks);
    } else {
      p.pose = pose_source::runtime;
    }
  }
  if (!bake_per_tick || per_tick_nodes == 0) {
    return;
  }
  const content::animation& a = *animation_;
  for (std::size_t t = 0; t < ticks; ++t) {
    const auto tick = static_cast<std::int64_t>(t);
    for (const std::int32_t i : order_) {
      const prepared_node& p = prepared_[static_cast<std::size_t>(i)];
      if (p.pose != pose_source::table_per_tick) {
        continue;
      }
      const content::node& node = (*nodes_)[static_cast<std::size_t>(i)];
      const content::node_tracks& tr = a.tracks[static_cast<std::size_t>(i)];
      const auto pos = constant_vector(tr.position, node.transform.position, tick);
      const auto scale = constant_vector(tr.scale, node.transform.scale, tick);
      const math::quatf rot = constant_rotation(tr.rotation, node.transform.rotation, tick);
      const math::mat4f local = local_from(pos, rot, scale);
      math::mat4f world = local;
      if (p.parent >= 0) {
        const prepared_node& pp = prepared_[static_cast<std::size_t>(p.parent)];
        const std::size_t at = pp.pose == pose_source::table_constant ? pp.table : pp.table + t;
        world = math::affine_mul(world_table_[at], local);
      }
      world_table_[p.table + t] = world;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// prepared_emote

prepared_emote::prepared_emote(std::shared_ptr<const content::animation> animation,
                               std::size_t bake_budget)
    : id_(animation->id), animation_(std::move(animation)) {
  animations_.emplace_back(animation_, &animation_->nodes, std::vector<std::int32_t>{},
                           bake_budget);
  timings_.push_back(animations_.back().timing());
  init_union(animation_->nodes, animation_->skin);
  const std::vector<math::mat4f> world = default_worlds(animation_->nodes);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    nodes_[i].default_world = world[i];
  }
}

prepared_emote::prepared_emote(std::shared_ptr<const content::sequence> sequence,
                               std::size_t bake_budget)
    : id_(sequence->id), sequence_(std::move(sequence)) {
  std::size_t remaining = bake_budget;
  animations_.reserve(sequence_->animations.size());
  for (const content::sequence_animation& sa : sequence_->animations) {
    animations_.emplace_back(sa.animation, &sa.nodes, sa.union_index, remaining);
    remaining -= std::min(remaining, animations_.back().baked_bytes());
    timings_.push_back(animations_.back().timing());
  }
  init_union(sequence_->node_union, sequence_->skin);
  // Union default pose: the world of the default transforms in the defining Animation.
  std::vector<std::vector<math::mat4f>> worlds(sequence_->animations.size());
  for (std::size_t u = 0; u < nodes_.size() && u < sequence_->union_source.size(); ++u) {
    const auto [a, n] = sequence_->union_source[u];
    if (a < 0 || static_cast<std::size_t>(a) >= worlds.size()) {
      continue;
    }
    auto& w = worlds[static_cast<std::size_t>(a)];
    if (w.empty()) {
      w = default_worlds(sequence_->animations[static_cast<std::size_t>(a)].nodes);
    }
    if (n >= 0 && static_cast<std::size_t>(n) < w.size()) {
      nodes_[u].default_world = w[static_cast<std::size_t>(n)];
    }
  }
  if (sequence_->partner) {
    content::candidate c;
    c.id = sequence_->partner->offer_id;
    c.kind = content::candidate_kind::animation;
    c.animation = sequence_->partner->offer;
    c.animation_index = sequence_->partner->offer_index;
    content::step s;
    s.kind = content::step_kind::emote;
    s.candidates.push_back(std::move(c));
    s.repeat = 1;
    offer_.push_back(std::move(s));
  }
}

void prepared_emote::init_union(std::span<const content::node> nodes,
                                const content::skin_layout& skin) {
  nodes_.resize(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    union_node_info& u = nodes_[i];
    u.node = &nodes[i];
    u.space = nodes[i].space;
    u.kind = display_kind_of(nodes[i].type);
    u.anchor = nodes[i].type == content::node_type::anchor;
    if (!u.anchor) {
      display_nodes_.push_back(static_cast<std::int32_t>(i));
    }
  }
  for (const content::skin_region& r : skin) {
    if (r.node < 0 || static_cast<std::size_t>(r.node) >= nodes_.size()) {
      continue;
    }
    api::skin_binding b;
    b.participant = std::string(content::name(r.participant));
    b.part = std::string(content::name(r.part));
    b.order = r.order;
    b.rows[0] = r.start;
    b.rows[1] = r.end;
    nodes_[static_cast<std::size_t>(r.node)].skin = std::move(b);
  }
}

const content::player_settings& prepared_emote::player() const noexcept {
  return sequence_ ? sequence_->player : animation_->settings.player;
}

double prepared_emote::initial_deadzone() const noexcept {
  if (sequence_) {
    return sequence_->animations.empty() ? 50.0
                                         : sequence_->layout_anchor().settings.rotation_deadzone;
  }
  return animation_->settings.rotation_deadzone;
}

// ---------------------------------------------------------------------------------------------
// library

library::library(std::shared_ptr<const content::catalog> catalog, std::size_t bake_budget)
    : catalog_(std::move(catalog)) {
  std::size_t remaining = bake_budget;
  emotes_.reserve(catalog_->entries().size());
  for (const content::catalog_entry& e : catalog_->entries()) {
    std::shared_ptr<prepared_emote> p;
    if (e.kind == content::emote_kind::animation && e.animation) {
      p = std::make_shared<prepared_emote>(e.animation, remaining);
    } else if (e.kind == content::emote_kind::sequence && e.sequence) {
      p = std::make_shared<prepared_emote>(e.sequence, remaining);
    }
    if (p) {
      std::size_t bytes = 0;
      for (std::size_t i = 0; i < p->animation_count(); ++i) {
        bytes += p->animation_at(static_cast<std::int32_t>(i)).baked_bytes();
      }
      remaining -= std::min(remaining, bytes);
      baked_bytes_ += bytes;
    }
    emotes_.push_back(std::move(p));
  }
}

std::shared_ptr<const prepared_emote> library::find(std::string_view id) const noexcept {
  const auto& entries = catalog_->entries();
  const auto it = std::lower_bound(
      entries.begin(), entries.end(), id,
      [](const content::catalog_entry& e, std::string_view v) { return e.id < v; });
  if (it == entries.end() || it->id != id) {
    return nullptr;
  }
  return emotes_[static_cast<std::size_t>(it - entries.begin())];
}

} // namespace emote::playback
