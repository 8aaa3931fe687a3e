#include "engine/playback/playback.hpp"

#include "engine/core/memo.hpp"
#include "engine/math/decompose.hpp"
#include "engine/math/matrix.hpp"
#include "engine/math/scalar.hpp"
#include "engine/math/view.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

namespace emote::playback {

std::string_view name(session_phase p) noexcept {
  switch (p) {
  case session_phase::solo:
    return "SOLO";
  case session_phase::offering:
    return "OFFERING";
  case session_phase::waiting:
    return "WAITING";
  case session_phase::matched:
    return "MATCHED";
  case session_phase::timeout:
    return "TIMEOUT";
  }
  return "SOLO";
}

// emit() walks both tables of every playback every tick, and at thousands of playbacks they do
// not stay in cache: they hold what every tick reads (48 and 88 bytes), the rest (NBT states,
// hand items, worlds evaluated at run time) is kept beside them and read only on a change.
struct playback::node_rt {
  /// The node's world matrix as last applied: a baked pose (an entry of a prepared animation's
  /// table or a union node's default world, both as long-lived as emote_) or own_worlds_[u],
  /// where a pose evaluated at run time is copied. Never null once started.
  const math::mat4f* world = nullptr;
  std::uint32_t world_version = 0; ///< changes whenever `*world` changes (bit for bit)
  std::int32_t interp = 0;         ///< interpolation_duration of the last application
  bool requested = true;           ///< requested visibility of the last application
  bool set_hidden = false;         ///< hidden by a segment's hidden set or hideAllAt0
  std::uint64_t nbt_version = 0;   ///< changes whenever node_nbt_[u] changes
  const evaluator* nbt_source = nullptr;
  std::uint64_t nbt_source_version = 0;
};

struct playback::handle_rt {
  std::int32_t node = -1;         ///< union index
  std::uint32_t seen_world = 0;   ///< the node's world_version the emitted matrix came from
  bool hand = false;              ///< participant_hand item node
  bool transform_changed = false; ///< emit(): `emitted` changed in this call
  bool emitted_visible = false;
  std::uint64_t seen_nbt_version = 0;
  math::mat4f emitted; ///< last emitted display matrix
};

/// What a handle last emitted besides its matrix and visibility.
struct playback::handle_emitted {
  core::nbt_compound nbt;
  std::string item;
};

namespace {

constexpr std::size_t idx(api::space s) noexcept {
  return static_cast<std::size_t>(s);
}

std::string item_snbt(const api::item_stack& s) {
  return s.empty() ? std::string("{}") : s.snbt;
}

// Many playbacks show the same matrices (the same Animation at the same tick and root yaw), so
// the decomposition, a pure function of the 16 floats, is memoised per thread (slots of 64 + 56
// bytes, so that more of them stay in cache).
using decomposition_memo = core::direct_memo<math::mat4f, math::decomposition>;

decomposition_memo& decompositions() {
  thread_local decomposition_memo memo;
  return memo;
}

/// The decomposition of `m` through the memo as `caches` says (`check`: a hit must equal the
/// fresh decomposition bit for bit, or core::cache_mismatch names the session and handle).
/// `hash`: the matrix's memo hash when the caller computed it already.
math::decomposition decomposition_of(const math::mat4f& m, const core::cache_options& caches,
                                     api::session_id session, api::handle_id handle,
                                     std::optional<std::uint64_t> hash = std::nullopt) {
  if (caches.mode == core::cache_mode::off) {
    return math::decompose(m);
  }
  decomposition_memo& memo = decompositions();
  memo.resize(caches.decomposition_slots);
  const std::uint64_t h = hash ? *hash : decomposition_memo::hash(m);
  const math::decomposition* hit = memo.find_hashed(m, h);
  if (hit == nullptr) {
    return memo.store_hashed(m, h, math::decompose(m));
  }
  if (caches.mode == core::cache_mode::check) {
    const math::decomposition fresh = math::decompose(m);
    if (std::memcmp(&fresh, hit, sizeof fresh) != 0) {
      core::cache_mismatch e("decomposition memo");
      e.session = session;
      e.handle = handle;
      throw e;
    }
  }
  return *hit;
}

api::transform_record make_transform(const math::mat4f& m, const core::cache_options& caches,
                                     api::session_id session, api::handle_id handle,
                                     std::optional<std::uint64_t> hash = std::nullopt) {
  const math::decomposition d = decomposition_of(m, caches, session, handle, hash);
  api::transform_record r;
  r.matrix = m.row_major();
  r.translation = {d.translation.x, d.translation.y, d.translation.z};
  r.left_rotation = {d.left_rotation.x, d.left_rotation.y, d.left_rotation.z, d.left_rotation.w};
  r.scale = {d.scale.x, d.scale.y, d.scale.z};
  r.right_rotation = {d.right_rotation.x, d.right_rotation.y, d.right_rotation.z,
                      d.right_rotation.w};
  return r;
}

std::int32_t saturating_inc(std::int32_t v) noexcept {
  return v == std::numeric_limits<std::int32_t>::max() ? v : v + 1;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) {
    --q;
  }
  return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) noexcept {
  return a - floor_div(a, b) * b;
}

} // namespace

core::memo_stats decomposition_memo_stats() noexcept {
  return decompositions().stats();
}

bool corrupt_decomposition_memo_for_test() noexcept {
  return decompositions().corrupt_one_entry_for_test();
}

// ---------------------------------------------------------------------------------------------
// construction and queries

playback::playback(std::shared_ptr<const prepared_emote> emote, start_info info)
    : emote_(std::move(emote)), info_(std::move(info)), session_rng_(info_.generators.session),
      selection_(info_.generators.selection) {
  deadzone_ = emote_->initial_deadzone();
  if (emote_->two_player()) {
    phase_ = session_phase::offering;
    const content::sequence& seq = *emote_->sequence();
    roots_[idx(api::space::scene)] = root{info_.feet, info_.yaw};
    if (seq.participants) {
      const resolved_placement ini = resolve_placement(seq.participants->initiator, info_.yaw);
      const resolved_placement par = resolve_placement(seq.participants->partner, info_.yaw);
      root_offsets_[idx(api::space::initiator)] = ini.offset;
      root_offsets_[idx(api::space::partner)] = par.offset;
      roots_[idx(api::space::initiator)] = root{offset_position(info_.feet, ini.offset), ini.yaw};
      roots_[idx(api::space::partner)] = root{offset_position(info_.feet, par.offset), par.yaw};
    } else {
      roots_[idx(api::space::initiator)] = roots_[idx(api::space::scene)];
      roots_[idx(api::space::partner)] = roots_[idx(api::space::scene)];
    }
  } else {
    root base{info_.feet, info_.yaw};
    if (info_.placement) {
      base = root{info_.placement->position, info_.placement->yaw};
      external_placement_ = true;
    }
    roots_.fill(base);
  }
  for (std::size_t s = 0; s < 3; ++s) {
    root_rot_[s] = math::root_rot(roots_[s].yaw);
  }
  view_yaw_ = roots_[idx(api::space::scene)].yaw;
  rel_ = 0;
  hands_[0][0] = item_snbt(info_.right_hand);
  hands_[0][1] = item_snbt(info_.left_hand);
  hands_[1][0] = item_snbt(api::item_stack{});
  hands_[1][1] = hands_[1][0];
}

playback::~playback() = default;

bool playback::follows() const noexcept {
  if (external_placement_ || stopped_) {
    return false;
  }
  return phase_ == session_phase::solo || phase_ == session_phase::offering ||
         phase_ == session_phase::waiting;
}

int_source& playback::draws() noexcept {
  return selection_override_ != nullptr ? *selection_override_ : selection_;
}

evaluator& playback::evaluator_for(std::int32_t animation) {
  auto& slot = evaluators_[static_cast<std::size_t>(animation)];
  if (!slot) {
    slot = std::make_unique<evaluator>(emote_->animation_at(animation));
  }
  return *slot;
}

std::int32_t playback::teleport_duration() const noexcept {
  return deadzone_ > 0.0 ? 3 : 0;
}

math::mat4f playback::display_matrix(std::int32_t union_node) const noexcept {
  const auto u = static_cast<std::size_t>(union_node);
  const api::space s = emote_->union_nodes()[u].space;
  return math::affine_mul(root_rot_[idx(s)], *nodes_[u].world);
}

bool playback::effective_visible(const handle_rt& h) const noexcept {
  if (deferred_) {
    return false;
  }
  const node_rt& n = nodes_[static_cast<std::size_t>(h.node)];
  const api::space s = emote_->union_nodes()[static_cast<std::size_t>(h.node)].space;
  return n.requested && !n.set_hidden && (s != api::space::partner || partner_active_);
}

const std::string& playback::hand_item(const content::node& n) const noexcept {
  const std::size_t who = n.space == core::space::partner ? 1 : 0;
  const std::size_t arm =
      n.participant_hand && *n.participant_hand == content::physical_arm::left ? 1 : 0;
  return hands_[who][arm];
}

// ---------------------------------------------------------------------------------------------
// application of evaluated state to the union

void playback::apply_transforms(const evaluator& ev, std::int32_t interp) {
  const prepared_animation& pa = ev.animation();
  const auto prepared = pa.prepared();
  const auto uidx = pa.union_index();
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    const std::int32_t src =
        prepared[i].mirror_of >= 0 ? prepared[i].mirror_of : static_cast<std::int32_t>(i);
    const auto u = static_cast<std::size_t>(uidx[i]);
    node_rt& n = nodes_[u];
    const math::mat4f& w = ev.world(src);
    const bool changed = !w.bits_equal(*n.world);
    if (ev.world_is_baked(src)) {
      n.world = &w;
    } else {
      // The evaluator rewrites its runtime worlds: a copy of this one stays here.
      if (changed || n.world != &own_worlds_[u]) {
        own_worlds_[u] = w;
      }
      n.world = &own_worlds_[u];
    }
    if (changed) {
      ++n.world_version;
    }
    if (n.interp != interp) {
      n.interp = interp;
      ++displays_version_;
    }
  }
}

void playback::apply_visibility(const evaluator& ev) {
  const prepared_animation& pa = ev.animation();
  const auto prepared = pa.prepared();
  const auto uidx = pa.union_index();
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    if (prepared[i].anchor) {
      continue;
    }
    const std::int32_t src =
        prepared[i].mirror_of >= 0 ? prepared[i].mirror_of : static_cast<std::int32_t>(i);
    bool& requested = nodes_[static_cast<std::size_t>(uidx[i])].requested;
    if (requested != ev.visible(src)) {
      requested = !requested;
      ++displays_version_;
    }
  }
}

void playback::apply_nbt(const evaluator& ev) {
  const prepared_animation& pa = ev.animation();
  const auto prepared = pa.prepared();
  const auto uidx = pa.union_index();
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    if (prepared[i].anchor) {
      continue;
    }
    const std::int32_t src =
        prepared[i].mirror_of >= 0 ? prepared[i].mirror_of : static_cast<std::int32_t>(i);
    const auto u = static_cast<std::size_t>(uidx[i]);
    node_rt& n = nodes_[u];
    const std::uint64_t v = ev.nbt_version(src);
    if (n.nbt_source == &ev && n.nbt_source_version == v) {
      continue;
    }
    node_nbt_[u] = ev.nbt(src);
    n.nbt_version = ++nbt_counter_;
    ++displays_version_;
    n.nbt_source = &ev;
    n.nbt_source_version = v;
  }
}

// ---------------------------------------------------------------------------------------------
// command events (playback.md §5)

void playback::fire_timeline(const prepared_animation& pa, std::size_t& cursor, std::int64_t local,
                             tick_context& ctx) {
  const auto& events = pa.source().events.timeline;
  while (cursor < events.size() && events[cursor].time.count() < local) {
    ++cursor;
  }
  while (cursor < events.size() && events[cursor].time.count() == local) {
    run_event(events[cursor], pa, ctx);
    ++cursor;
  }
}

void playback::run_events(const std::vector<content::command_event>& events,
                          const prepared_animation& pa, tick_context& ctx) {
  for (const content::command_event& ev : events) {
    run_event(ev, pa, ctx);
  }
}

void playback::run_event(const content::command_event& ev, const prepared_animation& pa,
                         tick_context& ctx) {
  if (ctx.commands == nullptr) {
    return;
  }
  const auto uidx = pa.union_index();
  api::command_source source;
  switch (ev.source) {
  case content::event_source::player:
    source.type = api::command_source::kind::player;
    break;
  case content::event_source::server:
    source.type = api::command_source::kind::server;
    break;
  case content::event_source::node: {
    source.type = api::command_source::kind::node;
    if (ev.source_node >= 0 && static_cast<std::size_t>(ev.source_node) < uidx.size()) {
      const std::int32_t h =
          handle_of_node_[static_cast<std::size_t>(uidx[static_cast<std::size_t>(ev.source_node)])];
      if (h >= 0) {
        source.handle = handle_ids_[static_cast<std::size_t>(h)];
      }
    }
    break;
  }
  }
  // Origin (playback.md §5.2): O·offset in f32, added to the base in f64.
  const float ox = static_cast<float>(ev.offset[0]);
  const float oy = static_cast<float>(ev.offset[1]);
  const float oz = static_cast<float>(ev.offset[2]);
  const math::mat4f rv =
      math::root_rot_radians(static_cast<float>(static_cast<double>(-rel_) * math::deg_to_rad));
  math::mat4f o;
  core::dvec3 base;
  if (ev.origin == content::event_origin::node && ev.origin_node >= 0 &&
      static_cast<std::size_t>(ev.origin_node) < uidx.size()) {
    const std::int32_t u = uidx[static_cast<std::size_t>(ev.origin_node)];
    o = math::affine_mul(rv, display_matrix(u));
    base = roots_[idx(emote_->union_nodes()[static_cast<std::size_t>(u)].space)].position;
  } else {
    o = math::affine_mul(rv, root_rot_[idx(api::space::scene)]);
    base = roots_[idx(api::space::scene)].position;
  }
  float v[3];
  for (int r = 0; r < 3; ++r) {
    v[r] = o.m[r][0] * ox + (o.m[r][1] * oy + (o.m[r][2] * oz + o.m[r][3]));
  }
  const core::dvec3 origin{base.x + static_cast<double>(v[0]), base.y + static_cast<double>(v[1]),
                           base.z + static_cast<double>(v[2])};
  for (const std::string& command : ev.commands) {
    api::ev_command c;
    c.session = info_.session;
    c.player = info_.player;
    c.source = source;
    c.dimension = info_.dimension;
    c.origin = origin;
    c.command = command;
    ctx.commands->emplace_back(std::move(c));
  }
  for (const content::callback& cb : ev.callbacks) {
    api::ev_callback c;
    c.session = info_.session;
    c.player = info_.player;
    c.name = cb.name;
    c.payload = cb.payload;
    c.dimension = info_.dimension;
    c.origin = origin;
    ctx.commands->emplace_back(std::move(c));
  }
}

// ---------------------------------------------------------------------------------------------
// start

bool playback::start(handle_pool& pool, tick_context& ctx) {
  if (started_) {
    return !failed_;
  }
  started_ = true;
  start_tick_ = ctx.tick;
  const auto unodes = emote_->union_nodes();
  nodes_.resize(unodes.size());
  own_worlds_.resize(unodes.size());
  node_nbt_.resize(unodes.size());
  for (std::size_t u = 0; u < unodes.size(); ++u) {
    nodes_[u].world = &unodes[u].default_world;
    ++nodes_[u].world_version;
    nodes_[u].requested = unodes[u].node->visible;
  }
  const auto display = emote_->display_nodes();
  pool.acquire(display.size(), handle_ids_);
  handles_.resize(display.size());
  handle_emitted_.resize(display.size());
  handle_of_node_.assign(unodes.size(), -1);
  ++displays_version_;
  for (std::size_t h = 0; h < display.size(); ++h) {
    const auto u = static_cast<std::size_t>(display[h]);
    handles_[h].node = display[h];
    handles_[h].hand = unodes[u].node->type == content::node_type::item_display &&
                       unodes[u].node->participant_hand.has_value();
    handle_of_node_[u] = static_cast<std::int32_t>(h);
    space_used_[idx(unodes[u].space)] = true;
  }
  // Every evaluator is created now, so later segment entries allocate nothing.
  evaluators_.resize(emote_->animation_count());
  for (std::size_t i = 0; i < evaluators_.size(); ++i) {
    evaluator_for(static_cast<std::int32_t>(i));
  }
  segment_records_.reserve(4);
  spawn_pending_ = true;

  bool ok = true;
  if (emote_->is_sequence()) {
    if (emote_->two_player()) {
      ok = start_compiled(emote_->offer_steps(), false, api::branch::offer, ctx);
    } else {
      ok = start_compiled(emote_->sequence()->steps, false, api::branch::main, ctx);
    }
  } else {
    const content::animation& a = *emote_->animation();
    const prepared_animation& pa = emote_->animation_at(0);
    std::int64_t t0 = 0;
    std::int32_t n = 0;
    if (a.settings.mode == content::playback_mode::server_sync) {
      // Snapshot (playback.md §1.2): phase-locked to the world's game time.
      const std::int64_t d = a.duration.count();
      const std::int64_t c = d + a.settings.loop_delay.count();
      const std::int64_t p = floor_mod(info_.game_time, c);
      t0 = std::min(p, d);
      n = static_cast<std::int32_t>(std::clamp<std::int64_t>(
          floor_div(info_.game_time, c), std::numeric_limits<std::int32_t>::min(),
          std::numeric_limits<std::int32_t>::max()));
      if (p >= d) {
        in_delay_ = true;
        remaining_ = c - p;
      }
    }
    ok = begin_cycle(t0, n, ctx);
    if (ok) {
      run_events(a.events.start, pa, ctx);
      if (t0 == 0) {
        fire_timeline(pa, event_cursor_, 0, ctx);
      }
    }
  }
  if (!ok) {
    fail();
  }
  return ok;
}

eval_env playback::env_for(const tick_context& ctx) noexcept {
  if (ctx.tick != ops_tick_) {
    ops_tick_ = ctx.tick;
    ops_.session_left = ctx.session_tick_ops;
  }
  ops_.server_left = ctx.server_ops_left;
  return eval_env{ctx.player, &session_rng_, &ops_, info_.caches.mode, info_.session};
}

bool playback::begin_cycle(std::int64_t t0, std::int32_t loop_count, tick_context& ctx) {
  evaluator& ev = evaluator_for(0);
  cycle_ = &ev;
  t_ = t0;
  loop_count_ = loop_count;
  event_cursor_ = 0;
  const eval_env env = env_for(ctx);
  if (!ev.begin(t0, loop_count, env)) {
    return false;
  }
  apply_transforms(ev, 0);
  apply_visibility(ev);
  apply_nbt(ev);
  return true;
}

bool playback::restart(tick_context& ctx) {
  in_delay_ = false;
  remaining_ = 0;
  if (!begin_cycle(0, saturating_inc(loop_count_), ctx)) {
    return false;
  }
  fire_timeline(emote_->animation_at(0), event_cursor_, 0, ctx);
  return true;
}

bool playback::start_at_phase(std::int64_t phase, tick_context& ctx) {
  if (!started_ || failed_ || emote_->is_sequence() || phase <= 0) {
    return !failed_;
  }
  const content::animation& a = *emote_->animation();
  const std::int64_t d = a.duration.count();
  switch (a.settings.mode) {
  case content::playback_mode::once:
  case content::playback_mode::hold:
    if (!begin_cycle(std::min(phase, std::max<std::int64_t>(d - 1, 0)), 0, ctx)) {
      fail();
    }
    break;
  case content::playback_mode::loop:
  case content::playback_mode::server_sync:
    for (std::int64_t i = 0; i < phase && !failed_; ++i) {
      advance_animation(ctx);
    }
    break;
  }
  return !failed_;
}

bool playback::rewind(tick_context& ctx) {
  if (!started_ || failed_ || stopped_ || emote_->is_sequence()) {
    return !failed_;
  }
  finished_ = false;
  if (!restart(ctx)) {
    fail();
  }
  return !failed_;
}

// ---------------------------------------------------------------------------------------------
// P3

void playback::follow(const tick_context& ctx, const core::dvec3& feet, float yaw) {
  if (!started_ || !follows() || ctx.tick == start_tick_) {
    return;
  }
  // (a) root follow (playback.md §4.8): only with movement_distance 0.
  root& scene = roots_[idx(api::space::scene)];
  if (emote_->player().stop_conditions.movement_distance == 0.0 && !(feet == scene.position)) {
    ++displays_version_;
    if (emote_->two_player()) {
      scene.position = feet;
      roots_[idx(api::space::initiator)].position =
          offset_position(feet, root_offsets_[idx(api::space::initiator)]);
      roots_[idx(api::space::partner)].position =
          offset_position(feet, root_offsets_[idx(api::space::partner)]);
    } else {
      for (root& r : roots_) {
        r.position = feet;
      }
    }
  }
  // (b) view follow (playback.md §4.7).
  const auto dz = static_cast<float>(deadzone_);
  view_yaw_ = math::follow_view_yaw(view_yaw_, yaw, dz);
  rel_ = math::wrap_degrees(view_yaw_ - scene.yaw);
}

void playback::release_deferred_visibility(const tick_context& ctx) noexcept {
  if (!started_ || deferred_released_ || ctx.tick == start_tick_) {
    return;
  }
  deferred_released_ = true;
  deferred_ = false;
}

void playback::advance(tick_context& ctx) {
  if (!started_ || stopped_ || finished_ || failed_ || ctx.tick == start_tick_) {
    return;
  }
  if (phase_ == session_phase::waiting || offer_complete_) {
    return;
  }
  ++advanced_;
  if (compiled_) {
    ++T_;
    if (!step(T_, ctx)) {
      fail();
    }
    return;
  }
  advance_animation(ctx);
}

void playback::advance_animation(tick_context& ctx) {
  const content::animation& a = *emote_->animation();
  const prepared_animation& pa = emote_->animation_at(0);
  const std::int64_t d = a.duration.count();
  const auto interp = static_cast<std::int32_t>(std::min<std::int64_t>(
      a.settings.display_interpolation.count(), std::numeric_limits<std::int32_t>::max()));
  const eval_env env = env_for(ctx);
  const auto evaluate_next = [&]() -> bool {
    ++t_;
    if (!cycle_->advance_to(t_, env)) {
      return false;
    }
    apply_transforms(*cycle_, interp);
    apply_visibility(*cycle_);
    apply_nbt(*cycle_);
    fire_timeline(pa, event_cursor_, t_, ctx);
    return true;
  };
  switch (a.settings.mode) {
  case content::playback_mode::once:
    if (!evaluate_next()) {
      fail();
      return;
    }
    if (t_ >= d) {
      finished_ = true;
    }
    return;
  case content::playback_mode::hold:
    if (t_ < d && !evaluate_next()) {
      fail();
    }
    return;
  case content::playback_mode::loop:
  case content::playback_mode::server_sync:
    if (in_delay_) {
      --remaining_;
      if (remaining_ <= 0 && !restart(ctx)) {
        fail();
      }
      return;
    }
    if (!evaluate_next()) {
      fail();
      return;
    }
    if (t_ >= d) {
      run_events(a.events.loop, pa, ctx);
      const std::int64_t l = a.settings.loop_delay.count();
      if (l <= 0) {
        if (!restart(ctx)) {
          fail();
        }
      } else {
        in_delay_ = true;
        remaining_ = l;
      }
    }
    return;
  }
}

// ---------------------------------------------------------------------------------------------
// compiled Sequences (playback.md §3.5)

bool playback::start_compiled(std::span<const content::step> steps, bool have_pose,
                              api::branch which, tick_context& ctx) {
  compiled_ = true;
  branch_ = which;
  compiler_ = segment_compiler(steps, have_pose, emote_->timings());
  active_.reset();
  next_.reset();
  segment_eval_ = nullptr;
  T_ = 0;
  pull_next_segment();
  if (compiler_.hide_all_at_0()) {
    for (node_rt& n : nodes_) {
      n.set_hidden = true;
    }
    ++displays_version_;
  }
  return step(0, ctx);
}

void playback::pull_next_segment() {
  next_ = compiler_.next(draws());
}

bool playback::step(std::int64_t T, tick_context& ctx) {
  const eval_env env = env_for(ctx);
  if (next_ && next_->t_start == T) {
    const segment s = *next_;
    active_ = s;
    pull_next_segment();
    if (!enter(s, T, ctx)) {
      return false;
    }
  } else if (active_ && T <= active_->end) {
    const segment& s = *active_;
    if (T == s.start) {
      at_start(s);
    } else if (T > s.start) {
      if (!segment_eval_->advance_to(T - s.start, env)) {
        return false;
      }
      const content::animation& a = segment_eval_->animation().source();
      const auto interp = static_cast<std::int32_t>(std::min<std::int64_t>(
          a.settings.display_interpolation.count(), std::numeric_limits<std::int32_t>::max()));
      apply_transforms(*segment_eval_, interp);
      apply_visibility(*segment_eval_);
      apply_nbt(*segment_eval_);
    }
  }
  if (active_ && segment_eval_ != nullptr && T >= active_->start && T < active_->end) {
    fire_timeline(segment_eval_->animation(), event_cursor_, T - active_->start, ctx);
  }
  if (!next_ && compiler_.exhausted() && T >= compiler_.duration()) {
    if (phase_ == session_phase::offering) {
      offer_complete_ = true;
    } else {
      finished_ = true;
    }
  }
  return true;
}

bool playback::enter(const segment& s, std::int64_t T, tick_context& ctx) {
  const prepared_animation& pa = emote_->animation_at(s.animation);
  deadzone_ = pa.source().settings.rotation_deadzone;
  api::ev_segment_started rec;
  rec.session = info_.session;
  rec.step = s.step;
  rec.repeat = s.repeat;
  rec.animation = pa.source().id;
  rec.branch = branch_;
  segment_records_.push_back(std::move(rec));

  evaluator& ev = evaluator_for(s.animation);
  segment_eval_ = &ev;
  event_cursor_ = 0;
  const eval_env env = env_for(ctx);
  if (!ev.begin(0, 0, env)) {
    return false;
  }
  if (T < s.start) {
    const std::int64_t tr = s.start - s.t_start;
    apply_transforms(ev, static_cast<std::int32_t>(
                             std::min<std::int64_t>(tr, std::numeric_limits<std::int32_t>::max())));
  } else {
    at_start(s);
  }
  return true;
}

void playback::at_start(const segment& s) {
  const evaluator& ev = *segment_eval_;
  const prepared_animation& pa = ev.animation();
  // hidden(s): union nodes the Animation does not define.
  ++displays_version_;
  for (node_rt& n : nodes_) {
    n.set_hidden = true;
  }
  for (const std::int32_t u : pa.union_index()) {
    nodes_[static_cast<std::size_t>(u)].set_hidden = false;
  }
  // Every NBT state restored to empty, then the segment's evaluated states.
  for (std::size_t u = 0; u < nodes_.size(); ++u) {
    node_rt& n = nodes_[u];
    if (!node_nbt_[u].empty()) {
      node_nbt_[u].entries.clear();
      n.nbt_version = ++nbt_counter_;
    }
    n.nbt_source = nullptr;
  }
  apply_nbt(ev);
  apply_transforms(ev, 0);
  apply_visibility(ev);
  (void)s;
}

// ---------------------------------------------------------------------------------------------
// P4

void playback::enter_waiting() noexcept {
  if (phase_ == session_phase::offering) {
    phase_ = session_phase::waiting;
  }
}

bool playback::start_branch(api::branch which, tick_context& ctx) {
  if (!started_ || stopped_ || !emote_->two_player() ||
      (which != api::branch::matched && which != api::branch::timeout)) {
    return false;
  }
  const content::partner_step& ps = *emote_->sequence()->partner;
  phase_ = which == api::branch::matched ? session_phase::matched : session_phase::timeout;
  offer_complete_ = false;
  start_tick_ = ctx.tick;
  const bool ok = start_compiled(which == api::branch::matched ? std::span(ps.matched)
                                                               : std::span(ps.timeout_steps),
                                 true, which, ctx);
  if (!ok) {
    fail();
  }
  return ok;
}

void playback::activate_partner_space() noexcept {
  partner_active_ = true;
}

void playback::set_hand_items(content::participant who, const api::item_stack& right,
                              const api::item_stack& left) {
  auto& h = hands_[who == content::participant::partner ? 1 : 0];
  const std::string r = item_snbt(right);
  const std::string l = item_snbt(left);
  if (h[0] != r) {
    h[0] = r;
    ++displays_version_;
  }
  if (h[1] != l) {
    h[1] = l;
    ++displays_version_;
  }
}

// ---------------------------------------------------------------------------------------------
// stop and output

void playback::stop(tick_context& ctx, api::stop_reason reason) {
  if (stopped_) {
    return;
  }
  stopped_ = true;
  stop_reason_ = reason;
  if (started_ && !emote_->is_sequence()) {
    run_events(emote_->animation()->events.stop, emote_->animation_at(0), ctx);
  }
}

void playback::emit(std::vector<api::event>& out) {
  for (api::ev_segment_started& rec : segment_records_) {
    out.emplace_back(std::move(rec));
  }
  segment_records_.clear();
  if (!started_) {
    return;
  }
  const auto unodes = emote_->union_nodes();
  if (spawn_pending_) {
    spawn_pending_ = false;
    ++displays_version_;
    for (std::size_t h = 0; h < handles_.size(); ++h) {
      handle_rt& hr = handles_[h];
      const auto u = static_cast<std::size_t>(hr.node);
      const union_node_info& info = unodes[u];
      const content::node& node = *info.node;
      const node_rt& n = nodes_[u];
      api::ev_display_spawn sp;
      sp.session = info_.session;
      sp.handle = handle_ids_[h];
      sp.node = node.id;
      sp.space = info.space;
      sp.kind = info.kind;
      switch (info.kind) {
      case api::display_kind::item:
        sp.item = hr.hand ? hand_item(node) : node.item_stack_snbt;
        sp.item_display = std::string(content::name(node.item_display));
        break;
      case api::display_kind::block:
        sp.block = node.block_state_snbt;
        break;
      case api::display_kind::text:
        sp.text_json = node.text_json;
        break;
      }
      if (!node.entity_nbt.empty()) {
        sp.entity_nbt = node.entity_nbt_snbt;
      }
      const core::nbt_compound& nbt = node_nbt_[u];
      if (!nbt.empty()) {
        sp.nbt = core::to_snbt(nbt);
      }
      sp.dimension = info_.dimension;
      sp.position = roots_[idx(info.space)].position;
      sp.yaw = rel_;
      sp.teleport_duration = teleport_duration();
      const math::mat4f m = display_matrix(hr.node);
      sp.transform = make_transform(m, info_.caches, info_.session, sp.handle);
      sp.visible = effective_visible(hr);
      sp.skin = info.skin;
      hr.seen_world = n.world_version;
      hr.emitted = m;
      hr.emitted_visible = sp.visible;
      handle_emitted_[h].nbt = nbt;
      hr.seen_nbt_version = n.nbt_version;
      if (hr.hand) {
        handle_emitted_[h].item = sp.item;
      }
      out.emplace_back(std::move(sp));
    }
    for (std::size_t s = 0; s < 3; ++s) {
      emitted_position_[s] = roots_[s].position;
    }
    emitted_pack_ = math::pack_degrees(rel_);
  }
  if (stopped_) {
    if (!remove_emitted_) {
      remove_emitted_ = true;
      if (!handle_ids_.empty()) {
        api::ev_display_remove rm;
        rm.session = info_.session;
        rm.handles = handle_ids_;
        out.emplace_back(std::move(rm));
      }
    }
    return;
  }
  const std::int32_t tp = teleport_duration();
  for (std::size_t s = 0; s < 3; ++s) {
    if (space_used_[s] && !(roots_[s].position == emitted_position_[s])) {
      emitted_position_[s] = roots_[s].position;
      ++displays_version_;
      api::ev_display_move mv;
      mv.session = info_.session;
      mv.space = static_cast<api::space>(s);
      mv.position = roots_[s].position;
      mv.teleport_duration = tp;
      out.emplace_back(mv);
    }
  }
  const std::int8_t pack = math::pack_degrees(rel_);
  if (pack != emitted_pack_ && !handles_.empty()) {
    emitted_pack_ = pack;
    api::ev_display_view vw;
    vw.session = info_.session;
    vw.yaw = rel_;
    vw.teleport_duration = tp;
    out.emplace_back(vw);
  }
  // First the display matrices that changed, each prefetching its decomposition's memo slot, so
  // that the lookups of the second pass find them in cache; the hashes wait in `hashes` (this
  // thread's, grown once) for that pass.
  decomposition_memo& memo = decompositions();
  const bool memoised = info_.caches.mode != core::cache_mode::off;
  thread_local std::vector<std::uint64_t> hashes;
  if (hashes.size() < handles_.size()) {
    hashes.resize(handles_.size());
  }
  for (std::size_t h = 0; h < handles_.size(); ++h) {
    handle_rt& hr = handles_[h];
    const node_rt& n = nodes_[static_cast<std::size_t>(hr.node)];
    hr.transform_changed = false;
    if (n.world_version != hr.seen_world) {
      hr.seen_world = n.world_version;
      const math::mat4f m = display_matrix(hr.node);
      if (!m.bits_equal(hr.emitted)) {
        hr.emitted = m;
        hr.transform_changed = true;
        if (memoised) {
          hashes[h] = decomposition_memo::hash(m);
          memo.prefetch_hashed(hashes[h]);
        }
      }
    }
  }
  for (std::size_t h = 0; h < handles_.size(); ++h) {
    handle_rt& hr = handles_[h];
    const node_rt& n = nodes_[static_cast<std::size_t>(hr.node)];
    // Find what changed first; most handles of most ticks need no record (or only the one).
    const bool transform = hr.transform_changed;
    const bool vis = effective_visible(hr);
    const bool visible = vis != hr.emitted_visible;
    bool nbt = false;
    if (n.nbt_version != hr.seen_nbt_version) {
      hr.seen_nbt_version = n.nbt_version;
      const core::nbt_compound& current = node_nbt_[static_cast<std::size_t>(hr.node)];
      if (!(current == handle_emitted_[h].nbt)) {
        handle_emitted_[h].nbt = current;
        nbt = true;
      }
    }
    bool item = false;
    if (hr.hand) {
      const std::string& current = hand_item(*unodes[static_cast<std::size_t>(hr.node)].node);
      if (current != handle_emitted_[h].item) {
        handle_emitted_[h].item = current;
        item = true;
      }
    }
    if (!(transform || visible || nbt || item)) {
      continue;
    }
    auto& up = std::get<api::ev_display_update>(
        out.emplace_back(std::in_place_type<api::ev_display_update>));
    up.handle = handle_ids_[h];
    if (transform) {
      up.transform =
          make_transform(hr.emitted, info_.caches, info_.session, up.handle,
                         memoised ? std::optional<std::uint64_t>(hashes[h]) : std::nullopt);
      up.interpolation_duration = n.interp;
    }
    if (visible || item) {
      ++displays_version_;
    }
    if (visible) {
      hr.emitted_visible = vis;
      up.visible = vis;
    }
    if (nbt) {
      up.nbt = core::to_snbt(handle_emitted_[h].nbt);
    }
    if (item) {
      up.item = handle_emitted_[h].item;
    }
  }
}

void playback::release_handles(handle_pool& pool) {
  if (handles_released_) {
    return;
  }
  handles_released_ = true;
  pool.release(handle_ids_);
  ++displays_version_;
}

template <class Sink>
void playback::describe(Sink& s) const {
  s.begin_object("playback");
  s.str("phase", name(phase_));
  s.i64("advanced", advanced_);
  s.i64("start_tick", start_tick_);
  s.u64("session_rng", session_rng_.state());
  s.u64("selection_rng", selection_.generator().state());
  s.i64("ops_tick", ops_tick_);
  s.boolean("started", started_);
  s.boolean("deferred", deferred_);
  s.boolean("deferred_released", deferred_released_);
  s.boolean("partner_active", partner_active_);
  s.boolean("finished", finished_);
  s.boolean("failed", failed_);
  s.boolean("stopped", stopped_);
  if (stop_reason_) {
    s.str("stop_reason", api::name(*stop_reason_));
  } else {
    s.null("stop_reason");
  }
  s.boolean("offer_complete", offer_complete_);
  s.boolean("spawn_pending", spawn_pending_);
  s.boolean("remove_emitted", remove_emitted_);
  s.boolean("handles_released", handles_released_);
  // Standalone Animation cursor.
  s.i64("t", t_);
  s.i64("loop_count", loop_count_);
  s.i64("remaining", remaining_);
  s.boolean("in_delay", in_delay_);
  s.u64("event_cursor", event_cursor_);
  // Compiled Sequence cursor.
  s.boolean("compiled", compiled_);
  s.str("branch", api::name(branch_));
  s.i64("T", T_);
  for (const auto* seg : {&active_, &next_}) {
    const std::string_view key = seg == &active_ ? "active_segment" : "next_segment";
    if (!*seg) {
      s.null(key);
      continue;
    }
    s.begin_object(key);
    s.i64("animation", (*seg)->animation);
    s.i64("t_start", (*seg)->t_start);
    s.i64("start", (*seg)->start);
    s.i64("end", (*seg)->end);
    s.i64("step", (*seg)->step);
    s.i64("repeat", (*seg)->repeat);
    s.end_object();
  }
  // View.
  s.f32("view_yaw", view_yaw_);
  s.f32("relative_yaw", rel_);
  s.f64("deadzone", deadzone_);
  s.u64("nbt_counter", nbt_counter_);
  s.i64("emitted_pack", emitted_pack_);
  // The display part: as one word when hashing (kept between changes), else walked.
  if constexpr (std::is_same_v<Sink, core::state_hasher>) {
    s.u64("displays", displays_digest(s.fresh()));
  } else {
    describe_displays(s);
  }
  s.end_object();
}

template <class Sink>
void playback::describe_displays(Sink& s) const {
  // Roots.
  s.begin_list("roots");
  for (std::size_t i = 0; i < roots_.size(); ++i) {
    s.begin_object("");
    core::describe_vec3(s, "position", roots_[i].position);
    s.f32("yaw", roots_[i].yaw);
    core::describe_vec3(s, "offset", root_offsets_[i]);
    s.boolean("used", space_used_[i]);
    core::describe_vec3(s, "emitted_position", emitted_position_[i]);
    s.end_object();
  }
  s.end_list();
  s.begin_list("hands");
  for (const auto& who : hands_) {
    for (const std::string& h : who) {
      s.str("", h);
    }
  }
  s.end_list();
  // Nodes and handles (the display state a client holds).
  s.begin_list("nodes");
  for (const node_rt& n : nodes_) {
    s.begin_object("");
    s.i64("interp", n.interp);
    s.boolean("requested", n.requested);
    s.boolean("set_hidden", n.set_hidden);
    s.u64("nbt_version", n.nbt_version);
    s.end_object();
  }
  s.end_list();
  // Keyed by handle id (before the ids are acquired, -1, -2, … by position). The emitted
  // matrices are left out: they are the frames' transforms, which the output digest covers.
  s.begin_map("handles");
  for (std::size_t i = 0; i < handles_.size(); ++i) {
    const handle_rt& h = handles_[i];
    s.begin_object_id(i < handle_ids_.size() ? static_cast<std::int64_t>(handle_ids_[i])
                                             : -static_cast<std::int64_t>(i) - 1);
    s.i64("node", h.node);
    s.boolean("visible", h.emitted_visible);
    s.str("item", handle_emitted_[i].item);
    s.end_object();
  }
  s.end_object();
}

std::uint64_t playback::displays_digest(bool fresh) const {
  if (!fresh && displays_digest_version_ == displays_version_) {
    return displays_digest_;
  }
  core::state_hasher h;
  describe_displays(h);
  const std::uint64_t d = h.digest();
  if (!fresh) {
    displays_digest_ = d;
    displays_digest_version_ = displays_version_;
  }
  return d;
}

template void playback::describe(core::state_sink&) const;
template void playback::describe(core::state_hasher&) const;

} // namespace emote::playback
