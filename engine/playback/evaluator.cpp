#include "engine/playback/evaluator.hpp"

#include "engine/math/easing.hpp"
#include "engine/math/matrix.hpp"
#include "engine/math/quat.hpp"
#include "engine/playback/channels.hpp"

#include <cmath>
#include <cstring>
#include <string>

namespace emote::playback {

evaluator::evaluator(const prepared_animation& animation)
    : animation_(&animation), molang_(animation.source()), state_(animation.nodes().size()),
      runtime_(state_.size()) {
  for (std::size_t i = 0; i < state_.size(); ++i) {
    state_[i].pose = &runtime_[i].world;
  }
}

bool evaluator::begin(std::int64_t t0, std::int32_t loop_count, const eval_env& env) {
  const prepared_animation& a = *animation_;
  molang_.new_session();
  t_ = t0;
  loop_count_ = loop_count;
  queries_ = molang::frame_queries{};
  queries_.anim_time = static_cast<double>(t0) / 20.0;
  queries_.life_time = queries_.anim_time;
  queries_.anim_time_ticks = static_cast<double>(t0);
  queries_.anim_length = static_cast<double>(a.duration()) / 20.0;
  queries_.delta_time = 0.0;
  queries_.loop_count = static_cast<double>(loop_count);
  queries_.key_frame_lerp_time = 0.0;
  molang_.begin_frame();
  if (a.source().initialize) {
    double ignored = 0;
    if (!run(a.source().initialize, env, ignored)) {
      return false;
    }
  }
  for (std::size_t i = 0; i < state_.size(); ++i) {
    node_state& s = state_[i];
    node_runtime& r = runtime_[i];
    const content::node_tracks& tr = a.tracks(static_cast<std::int32_t>(i));
    r.position =
        tr.position.empty() ? 0 : advance_cursor<content::vector_keyframe>(tr.position, 0, t0);
    r.rotation =
        tr.rotation.empty() ? 0 : advance_cursor<content::vector_keyframe>(tr.rotation, 0, t0);
    r.scale = tr.scale.empty() ? 0 : advance_cursor<content::vector_keyframe>(tr.scale, 0, t0);
    s.visible_key =
        tr.visible.empty() ? 0 : advance_cursor<content::visible_keyframe>(tr.visible, 0, t0);
    s.nbt_next = 0;
    if (!r.nbt.empty()) {
      r.nbt.entries.clear();
    }
    s.nbt_version = ++version_counter_;
  }
  return evaluate(t0, 0.0, env);
}

bool evaluator::advance_to(std::int64_t t, const eval_env& env) {
  t_ = t;
  return evaluate(t, 0.05, env);
}

bool evaluator::run(const content::program_ptr& p, const eval_env& env, double& out) {
  if (!p || env.rng == nullptr) {
    return false;
  }
  if (!molang_.run(*p, queries_, env.player, *env.rng, out, env.budget)) {
    return false;
  }
  // Molang normalises every number; anything else is an internal failure (playback.md §2.8).
  return std::isfinite(out);
}

bool evaluator::component(const content::track_value& v, const eval_env& env, double& out) {
  if (!v.is_expression()) {
    out = v.constant;
    return std::isfinite(out);
  }
  return run(v.expression, env, out);
}

bool evaluator::vector3(const content::track_vector& v, const eval_env& env,
                        std::array<double, 3>& out) {
  return component(v[0], env, out[0]) && component(v[1], env, out[1]) &&
         component(v[2], env, out[2]);
}

bool evaluator::vector_channel(std::span<const content::vector_keyframe> keys,
                               std::uint32_t& cursor, const std::array<double, 3>& fallback,
                               std::int64_t t, const eval_env& env, std::array<double, 3>& out) {
  if (keys.empty()) {
    out = fallback;
    return true;
  }
  const std::uint32_t k = cursor = advance_cursor(keys, cursor, t);
  const double p = keyframe_progress(keys, k, t);
  queries_.key_frame_lerp_time = p;
  std::array<double, 3> post{};
  bool ok = vector3(keys[k].post, env, post);
  if (ok && (k + 1 >= keys.size() || keys[k].interpolation == content::interpolation::step)) {
    out = post;
  } else if (ok) {
    std::array<double, 3> pre{};
    ok = vector3(keys[k + 1].pre, env, pre);
    const double e = math::ease(static_cast<math::easing>(keys[k].easing), p);
    out = {lerp_component(post[0], pre[0], e), lerp_component(post[1], pre[1], e),
           lerp_component(post[2], pre[2], e)};
  }
  queries_.key_frame_lerp_time = 0.0;
  return ok;
}

bool evaluator::rotation_channel(std::span<const content::vector_keyframe> keys,
                                 std::uint32_t& cursor, const std::array<double, 3>& fallback,
                                 std::int64_t t, const eval_env& env, math::quatf& out) {
  if (keys.empty()) {
    out = rotation_from(fallback);
    return true;
  }
  const std::uint32_t k = cursor = advance_cursor(keys, cursor, t);
  const double p = keyframe_progress(keys, k, t);
  queries_.key_frame_lerp_time = p;
  std::array<double, 3> post{};
  bool ok = vector3(keys[k].post, env, post);
  if (ok && (k + 1 >= keys.size() || keys[k].interpolation == content::interpolation::step)) {
    out = rotation_from(post);
  } else if (ok) {
    std::array<double, 3> pre{};
    ok = vector3(keys[k + 1].pre, env, pre);
    const double e = math::ease(static_cast<math::easing>(keys[k].easing), p);
    out = math::slerp(rotation_from(post), rotation_from(pre), static_cast<float>(e));
  }
  queries_.key_frame_lerp_time = 0.0;
  return ok;
}

bool evaluator::apply_nbt(std::int32_t node, std::int64_t t, const eval_env& env) {
  const content::node_tracks& tr = animation_->tracks(node);
  node_state& s = state_[static_cast<std::size_t>(node)];
  core::nbt_compound& nbt = runtime_[static_cast<std::size_t>(node)].nbt;
  while (s.nbt_next < tr.nbt.size() && tr.nbt[s.nbt_next].time.count() <= t) {
    const content::nbt_keyframe& kf = tr.nbt[s.nbt_next];
    ++s.nbt_next;
    if (!kf.is_select()) {
      core::merge_into(nbt, kf.value);
    } else {
      queries_.key_frame_lerp_time = 0.0;
      double x = 0;
      if (!run(kf.select, env, x)) {
        return false;
      }
      if (x != std::rint(x) || x < 0.0 || x >= static_cast<double>(kf.options.size())) {
        return false; // selector outside its options (playback.md §2.7)
      }
      core::merge_into(nbt, kf.options[static_cast<std::size_t>(x)]);
    }
    s.nbt_version = ++version_counter_;
  }
  return true;
}

bool evaluator::runtime_world(std::int32_t i, std::int64_t t, const eval_env& env,
                              std::uint32_t& position, std::uint32_t& rotation,
                              std::uint32_t& scale, math::mat4f& out) {
  const auto idx = static_cast<std::size_t>(i);
  const prepared_node& p = animation_->prepared()[idx];
  const content::node& node = animation_->nodes()[idx];
  const content::node_tracks& tr = animation_->tracks(i);
  math::mat4f local;
  if (!p.has_vector_tracks) {
    local = p.constant_local;
  } else {
    std::array<double, 3> pos{};
    std::array<double, 3> scl{};
    math::quatf rot;
    if (!vector_channel(tr.position, position, node.transform.position, t, env, pos) ||
        !vector_channel(tr.scale, scale, node.transform.scale, t, env, scl) ||
        !rotation_channel(tr.rotation, rotation, node.transform.rotation, t, env, rot)) {
      return false;
    }
    local = local_from(pos, rot, scl);
  }
  out = p.parent >= 0 ? math::affine_mul(world(p.parent), local) : local;
  return true;
}

void evaluator::check_baked(std::int32_t i, std::int64_t t, const eval_env& env) {
  // The node's own cursors stay where begin() put them: a baked node never moves them.
  const node_runtime& r = runtime_[static_cast<std::size_t>(i)];
  std::uint32_t position = r.position;
  std::uint32_t rotation = r.rotation;
  std::uint32_t scale = r.scale;
  math::mat4f fresh;
  const bool ok = runtime_world(i, t, env, position, rotation, scale, fresh);
  if (!ok || std::memcmp(&fresh, &world(i), sizeof fresh) != 0) {
    core::cache_mismatch m("baked pose");
    m.session = env.session;
    m.detail = "node " + animation_->nodes()[static_cast<std::size_t>(i)].id + " of " +
               animation_->source().id + " at animation tick " + std::to_string(t);
    throw m;
  }
}

bool evaluator::evaluate(std::int64_t t, double delta, const eval_env& env) {
  const prepared_animation& a = *animation_;
  queries_.anim_time = static_cast<double>(t) / 20.0;
  queries_.life_time = queries_.anim_time;
  queries_.anim_time_ticks = static_cast<double>(t);
  queries_.anim_length = static_cast<double>(a.duration()) / 20.0;
  queries_.delta_time = delta;
  queries_.loop_count = static_cast<double>(loop_count_);
  queries_.key_frame_lerp_time = 0.0;
  molang_.begin_frame();
  if (a.source().tick) {
    double ignored = 0;
    if (!run(a.source().tick, env, ignored)) {
      return false;
    }
  }
  const auto prepared = a.prepared();
  const auto nodes = a.nodes();
  const auto tick_index = static_cast<std::uint32_t>(t);
  for (const std::int32_t i : a.order()) {
    const auto idx = static_cast<std::size_t>(i);
    const prepared_node& p = prepared[idx];
    const content::node& node = nodes[idx];
    const content::node_tracks& tr = a.tracks(i);
    node_state& s = state_[idx];
    switch (p.pose) {
    case pose_source::table_constant:
      s.pose = &a.table(p.table);
      break;
    case pose_source::table_per_tick:
      s.pose = &a.table(p.table + tick_index);
      break;
    case pose_source::runtime: {
      node_runtime& r = runtime_[idx];
      s.pose = &r.world;
      if (!runtime_world(i, t, env, r.position, r.rotation, r.scale, r.world)) {
        return false;
      }
      break;
    }
    }
    if (p.pose != pose_source::runtime && env.caches == core::cache_mode::check) {
      check_baked(i, t, env);
    }
    if (p.anchor) {
      continue;
    }
    if (tr.visible.empty()) {
      s.visible = node.visible;
    } else {
      s.visible_key = advance_cursor<content::visible_keyframe>(tr.visible, s.visible_key, t);
      const content::visible_keyframe& kf = tr.visible[s.visible_key];
      if (kf.expression) {
        queries_.key_frame_lerp_time = 0.0;
        double v = 0;
        if (!run(kf.expression, env, v)) {
          return false;
        }
        s.visible = v != 0.0;
      } else {
        s.visible = kf.value;
      }
    }
    if (!tr.nbt.empty() && !apply_nbt(i, t, env)) {
      return false;
    }
  }
  return true;
}

} // namespace emote::playback
