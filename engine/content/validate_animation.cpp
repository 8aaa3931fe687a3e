// Animation files (formats.md §3): every rule in the stated order; loading stops at the first
// error, `check` goes on with what does not depend on a rejected value (formats.md §1.3).
#include "engine/content/fields.hpp"
#include "engine/content/molang_bridge.hpp"
#include "engine/content/validate.hpp"

#include "engine/core/identifier.hpp"
#include "engine/core/suggest.hpp"
#include "engine/core/utf8.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace emote::content::detail {
namespace {

constexpr std::size_t max_molang_units = 16384;

// Keys an entity_nbt may not define (formats.md §3.3); NBT tracks exclude the last four.
constexpr std::array<std::string_view, 15> forbidden_entity_keys{"id",
                                                                 "UUID",
                                                                 "Pos",
                                                                 "Motion",
                                                                 "Rotation",
                                                                 "Passengers",
                                                                 "Tags",
                                                                 "transformation",
                                                                 "interpolation_duration",
                                                                 "start_interpolation",
                                                                 "teleport_duration",
                                                                 "item",
                                                                 "item_display",
                                                                 "block_state",
                                                                 "text"};
constexpr std::size_t forbidden_track_key_count = 11;

// The 31 easing names (formats.md §3.4), for "did you mean".
std::span<const std::string_view> easing_names() {
  static const auto names = [] {
    std::array<std::string_view, math::easing_count> n{};
    for (int i = 0; i < math::easing_count; ++i) {
      n[static_cast<std::size_t>(i)] = math::easing_name(static_cast<math::easing>(i));
    }
    return n;
  }();
  return names;
}

const std::string* first_forbidden(const core::nbt_compound& c, std::size_t count) {
  for (const auto& e : c.entries) {
    for (std::size_t k = 0; k < count; ++k) {
      if (e.key == forbidden_entity_keys[k]) {
        return &e.key;
      }
    }
  }
  return nullptr;
}

// Auxiliary per-node facts needed by later passes.
struct node_info {
  const json_value* obj = nullptr;
  std::string parent_name;
  bool has_parent = false;
  bool has_space_key = false;
  std::optional<core::space> space;
  bool item_source = false;
  bool skin = false;
  bool skin_has_participant = false;
};

class animation_checker {
public:
  animation_checker(const json_value& root, checker& c, checked_file& out,
                    const check_options& options)
      : root_(root), c_(c), out_(out), a_(std::make_shared<animation>()),
        compiler_(options.quirk_warnings) {}

  void run() {
    // The timeline and stage 2 refer to nodes by id; a node that failed is skipped there.
    if (!c_.each([&] { return check_schema_version(root_, c_); },
                 [&] { return check_id(root_, c_, a_->id, out_.id_loc); },
                 [&] { return check_minecraft_version(root_, c_); },
                 [&] { return check_metadata(root_, c_, a_->metadata); },
                 [&] { return settings(); }, [&] { return molang(); }, [&] { return nodes(); },
                 [&] { return timeline(); }, [&] { return stage2(); })) {
      return;
    }
    c_.unknown_keys(root_, fields::animation);
    {
      std::vector<std::string> overflow;
      a_->skin = compute_skin_layout(a_->nodes, &overflow);
      auto s = c_.at("nodes");
      for (const auto& msg : overflow) {
        c_.warn(location_of(*nodes_), msg);
      }
    }
    a_->symbols = compiler_.symbols();
    out_.id = a_->id;
    out_.anim = a_;
  }

private:
  // -------------------------------------------------------------------------------------------
  bool settings() {
    const json_value* s = nullptr;
    if (!c_.object(root_, "settings", s)) {
      return false;
    }
    auto sc = c_.at("settings");
    auto& st = a_->settings;
    const auto deadzone = [&] {
      if (!c_.finite(*s, "rotation_deadzone", st.rotation_deadzone, false)) {
        return false;
      }
      if (st.rotation_deadzone < 0 || st.rotation_deadzone > 180) {
        auto k = c_.at("rotation_deadzone");
        return c_.fail(*s->find("rotation_deadzone"), "must be between 0 and 180");
      }
      return true;
    };
    if (!c_.each([&] { return c_.boolean(*s, "standalone", st.standalone); },
                 [&] { return c_.time(*s, "cooldown", 0, st.cooldown); }, deadzone,
                 [&] {
                   return c_.time(*s, "display_interpolation", 0, st.display_interpolation, false);
                 },
                 [&] { return check_player_settings(*s, c_, st.player); },
                 [&] { return playback(*s); })) {
      return false;
    }
    c_.unknown_keys(*s, fields::animation_settings);
    return true;
  }

  bool playback(const json_value& s) {
    auto& st = a_->settings;
    const json_value* pb = nullptr;
    if (!c_.object(s, "playback", pb)) {
      return false;
    }
    auto k = c_.at("playback");
    bool ok = true;
    std::string mode;
    if (!c_.next(ok, c_.string(*pb, "mode", mode))) {
      return false;
    }
    if (ok) {
      const auto m = playback_mode_names.parse(mode);
      if (!m) {
        auto km = c_.at("mode");
        c_.fail(*pb->find("mode"), "unsupported playback mode: " + mode);
        if (!c_.next(ok, c_.suggest(core::did_you_mean(mode, playback_mode_names.all())))) {
          return false;
        }
      } else {
        st.mode = *m;
        mode_known_ = true;
      }
    }
    if (!c_.next(ok, c_.time(*pb, "loop_delay", 0, st.loop_delay, false))) {
      return false;
    }
    // The rule on the delay needs both values.
    if (ok && st.loop_delay.count() != 0 &&
        (st.mode == playback_mode::once || st.mode == playback_mode::hold)) {
      auto kl = c_.at("loop_delay");
      return c_.fail(*pb->find("loop_delay"),
                     "loop delay must be zero when playback mode is once or hold");
    }
    c_.unknown_keys(*pb, fields::playback);
    return ok;
  }

  // -------------------------------------------------------------------------------------------
  // A Molang string at the current path: not blank, length, compile, quirk warnings.
  bool compile(const json_value& v, molang_kind kind, program_ptr& program, std::string& source,
               int select_options = -1) {
    source = v.as_string();
    if (core::is_blank(source)) {
      return c_.fail(v, "must not be blank");
    }
    if (core::utf16_length(source) > max_molang_units) {
      return c_.fail(v, "invalid Molang program: expression exceeds 16384 characters");
    }
    auto r = compiler_.compile(source, kind, select_options);
    if (!r.ok()) {
      return c_.fail(v, r.error);
    }
    for (const auto& w : r.warnings) {
      c_.warn(location_of(v), w);
    }
    program = std::move(r.program);
    return true;
  }

  bool molang() {
    const json_value* m = nullptr;
    if (!c_.object(root_, "molang", m, false)) {
      return false;
    }
    if (m == nullptr) {
      return true;
    }
    auto s = c_.at("molang");
    const auto initialize = [&] {
      const auto* init = present(*m, "initialize");
      if (init == nullptr) {
        return true;
      }
      auto k = c_.at("initialize");
      if (!init->is_string()) {
        return c_.fail(*init, "must be a string");
      }
      return compile(*init, molang_kind::program, a_->initialize, a_->initialize_source);
    };
    const auto tick_program = [&] {
      const auto* tick = present(*m, "tick");
      if (tick == nullptr) {
        return true;
      }
      auto k = c_.at("tick");
      if (!tick->is_string()) {
        return c_.fail(*tick, "must be a string");
      }
      if (core::is_blank(tick->as_string())) {
        return c_.fail(*tick, "must not be blank");
      }
      // Only with a playback mode that passed (always so when loading: settings come first).
      if (mode_known_ && a_->settings.mode == playback_mode::server_sync) {
        return c_.fail(*tick, "is not supported by server_sync playback");
      }
      return compile(*tick, molang_kind::program, a_->tick, a_->tick_source);
    };
    if (!c_.each(initialize, tick_program)) {
      return false;
    }
    c_.unknown_keys(*m, fields::molang);
    return true;
  }

  // -------------------------------------------------------------------------------------------
  bool snbt(const json_value& v, core::nbt_compound& out) {
    if (!v.is_string()) {
      return c_.fail(v, "must be a string");
    }
    auto r = core::parse_compound_snbt(v.as_string());
    if (!r.ok()) {
      return c_.fail(v, "invalid compound SNBT: " + r.error());
    }
    out = std::move(r).value();
    return true;
  }

  template <class E, std::size_t N>
  bool enum_field(const json_value& obj, std::string_view key, const core::enum_names<E, N>& names,
                  std::string_view what, E& out, bool required = true) {
    std::string text;
    if (!c_.string(obj, key, text, required)) {
      return false;
    }
    const auto* v = present(obj, key);
    if (v == nullptr) {
      return true;
    }
    const auto e = names.parse(text);
    if (!e) {
      auto s = c_.at(key);
      c_.fail(*v, std::string(what) + text);
      return c_.suggest(core::did_you_mean(text, names.all()));
    }
    out = *e;
    return true;
  }

  bool nodes() {
    if (!c_.object(root_, "nodes", nodes_)) {
      return false;
    }
    auto s = c_.at("nodes");
    const auto& members = nodes_->as_object();
    if (members.empty()) {
      return c_.fail(*nodes_, "must not be empty");
    }
    a_->nodes.reserve(members.size());
    info_.reserve(members.size());
    // Pass A: each node on its own.
    bool ok = true;
    for (const auto& m : members) {
      const bool passed = core::is_blank(m.key) ? c_.fail(*nodes_, "node id must not be blank")
                                                : node_local(m.key, m.value);
      if (!passed) {
        failed_nodes_.insert(m.key);
      }
      if (!c_.next(ok, passed)) {
        return false;
      }
    }
    for (std::size_t i = 0; i < a_->nodes.size(); ++i) {
      index_.emplace(a_->nodes[i].id, static_cast<std::int32_t>(i));
    }
    // Passes B and C need every node: parents are looked up, spaces inherited.
    return ok && graph() && spaces();
  }

  /// A node that failed pass A (`check` goes on without it): what refers to it is not checked.
  [[nodiscard]] bool node_failed(const std::string& id) const { return failed_nodes_.contains(id); }

  bool node_local(const std::string& id, const json_value& v) {
    auto s = c_.at(id);
    if (!v.is_object()) {
      return c_.fail(v, "must be an object");
    }
    node n;
    node_info info;
    info.obj = &v;
    n.id = id;
    const auto parent = [&] {
      const auto* p = present(v, "parent");
      if (p == nullptr) {
        return true;
      }
      auto k = c_.at("parent");
      if (!p->is_string()) {
        return c_.fail(*p, "must be a string");
      }
      if (core::is_blank(p->as_string())) {
        return c_.fail(*p, "must not be blank");
      }
      info.parent_name = p->as_string();
      info.has_parent = true;
      return true;
    };
    const auto space = [&] {
      info.has_space_key = has_key(v, "space");
      core::space sp = core::space::scene;
      if (!enum_field(v, "space", core::space_names, "unsupported node space: ", sp, false)) {
        return false;
      }
      if (present(v, "space") != nullptr) {
        info.space = sp;
      }
      return true;
    };
    bool typed = false;
    const auto transform = [&] {
      const json_value* tr = nullptr;
      if (!c_.object(v, "transform", tr)) {
        return false;
      }
      auto k = c_.at("transform");
      if (!c_.each([&] { return c_.vec3(*tr, "position", n.transform.position); },
                   [&] { return c_.vec3(*tr, "rotation", n.transform.rotation); },
                   [&] { return c_.vec3(*tr, "scale", n.transform.scale); })) {
        return false;
      }
      c_.unknown_keys(*tr, fields::transform);
      return true;
    };
    bool ok = c_.each(
        parent, space,
        [&] {
          typed = enum_field(v, "type", node_type_names, "unsupported node type: ", n.type);
          return typed;
        },
        transform);
    // The remaining members depend on the type.
    if (!ok && (!typed || !c_.go_on())) {
      return false;
    }
    if (n.type == node_type::anchor) {
      for (std::string_view key : {"visible", "entity_nbt"}) {
        if (has_key(v, key)) {
          auto k = c_.at(key);
          if (!c_.next(ok, c_.fail(*v.find(key), "is not supported by anchor nodes"))) {
            return false;
          }
        }
      }
      c_.unknown_keys(v, fields::anchor_node);
    } else {
      const auto entity_nbt = [&] {
        const auto* e = present(v, "entity_nbt");
        if (e == nullptr) {
          return true;
        }
        auto k = c_.at("entity_nbt");
        if (!snbt(*e, n.entity_nbt)) {
          return false;
        }
        if (const auto* bad = first_forbidden(n.entity_nbt, forbidden_entity_keys.size())) {
          return c_.fail(*e, "must not define runtime-owned field " + *bad);
        }
        return true;
      };
      if (!c_.next(ok, c_.each([&] { return c_.boolean(v, "visible", n.visible, false); },
                               entity_nbt))) {
        return false;
      }
      n.entity_nbt_snbt = core::to_snbt(n.entity_nbt);
      switch (n.type) {
      case node_type::item_display:
        if (!c_.next(ok, item_node(v, n, info))) {
          return false;
        }
        c_.unknown_keys(v, fields::item_node);
        break;
      case node_type::block_display: {
        {
          auto k = c_.at("block_state_snbt");
          const json_value* b = nullptr;
          if (!c_.next(ok, c_.require(v, "block_state_snbt", b) && snbt(*b, n.block_state))) {
            return false;
          }
        }
        n.block_state_snbt = core::to_snbt(n.block_state);
        c_.unknown_keys(v, fields::block_node);
        break;
      }
      case node_type::text_display: {
        {
          auto k = c_.at("text");
          const json_value* t = nullptr;
          if (!c_.next(ok, c_.require(v, "text", t))) {
            return false;
          }
          if (t != nullptr) {
            n.text_json = json::to_json(*t);
          }
        }
        c_.unknown_keys(v, fields::text_node);
        break;
      }
      case node_type::anchor:
        break;
      }
    }
    if (!ok) {
      return false;
    }
    a_->nodes.push_back(std::move(n));
    info_.push_back(info);
    return true;
  }

  bool item_node(const json_value& v, node& n, node_info& info) {
    return c_.each([&] { return item_content(v, n, info); },
                   [&] {
                     return enum_field(v, "item_display", item_display_context_names,
                                       "unsupported item display context: ", n.item_display);
                   },
                   [&] { return item_skin(v, n, info); });
  }

  bool item_content(const json_value& v, node& n, node_info& info) {
    const bool has_stack = has_key(v, "item_stack_snbt");
    const bool has_source = has_key(v, "item_source");
    if (has_stack == has_source) {
      return c_.fail(v, "must define exactly one of item_stack_snbt or item_source");
    }
    if (has_stack) {
      auto k = c_.at("item_stack_snbt");
      const json_value* st = nullptr;
      if (!c_.require(v, "item_stack_snbt", st) || !snbt(*st, n.item_stack)) {
        return false;
      }
      n.item_stack_snbt = core::to_snbt(n.item_stack);
    } else {
      info.item_source = true;
      const json_value* src = nullptr;
      if (!c_.object(v, "item_source", src)) {
        return false;
      }
      auto k = c_.at("item_source");
      const auto source_type = [&] {
        std::string type;
        if (!c_.string(*src, "type", type)) {
          return false;
        }
        constexpr std::string_view sources[] = {"participant_hand"};
        if (type != sources[0]) {
          auto kt = c_.at("type");
          c_.fail(*src->find("type"), "unsupported item source: " + type);
          return c_.suggest(core::did_you_mean(type, sources));
        }
        return true;
      };
      physical_arm arm = physical_arm::right;
      if (!c_.each(source_type, [&] {
            return enum_field(*src, "arm", core::physical_arm_names,
                              "unsupported physical arm: ", arm);
          })) {
        return false;
      }
      n.participant_hand = arm;
      c_.unknown_keys(*src, fields::item_source);
    }
    return true;
  }

  bool item_skin(const json_value& v, node& n, node_info& info) {
    const json_value* skin = nullptr;
    if (!c_.object(v, "skin", skin, false)) {
      return false;
    }
    if (skin != nullptr) {
      auto k = c_.at("skin");
      skin_binding b;
      info.skin = true;
      info.skin_has_participant = present(*skin, "participant") != nullptr;
      const auto order = [&] {
        if (!c_.int32(*skin, "order", b.order)) {
          return false;
        }
        if (b.order < 0) {
          auto ko = c_.at("order");
          return c_.fail(*skin->find("order"), "must not be negative");
        }
        return true;
      };
      if (!c_.each(
              [&] {
                return enum_field(*skin, "participant", participant_names,
                                  "unsupported participant: ", b.participant, false);
              },
              [&] {
                return enum_field(*skin, "part", skin_part_names,
                                  "unsupported skin part: ", b.part);
              },
              order)) {
        return false;
      }
      c_.unknown_keys(*skin, fields::skin);
      n.skin = b;
    }
    return true;
  }

  // Pass B: parents exist; no cycles.
  bool graph() {
    auto& nodes = a_->nodes;
    bool ok = true;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (!info_[i].has_parent) {
        continue;
      }
      const auto it = index_.find(info_[i].parent_name);
      if (it == index_.end()) {
        auto s = c_.at(nodes[i].id);
        auto k = c_.at("parent");
        if (!c_.next(ok, c_.fail(*info_[i].obj->find("parent"), "references unknown node"))) {
          return false;
        }
        continue;
      }
      nodes[i].parent = it->second;
      nodes[i].is_root = false;
    }
    // Cycles are looked for once every parent is known.
    if (!ok) {
      return false;
    }
    // 0 = not yet seen, 1 = on the current walk, 2 = proven acyclic.
    std::vector<unsigned char> state(nodes.size(), 0);
    std::vector<std::int32_t> walk;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (state[i] != 0) {
        continue;
      }
      walk.clear();
      auto j = static_cast<std::int32_t>(i);
      while (j >= 0 && state[static_cast<std::size_t>(j)] == 0) {
        state[static_cast<std::size_t>(j)] = 1;
        walk.push_back(j);
        j = nodes[static_cast<std::size_t>(j)].parent;
      }
      if (j >= 0 && state[static_cast<std::size_t>(j)] == 1) {
        const auto& met = nodes[static_cast<std::size_t>(j)];
        auto s = c_.at(met.id);
        auto k = c_.at("parent");
        // Each cycle once: its nodes are settled below, so no later walk reports it again.
        if (!c_.next(ok, c_.fail(*info_[static_cast<std::size_t>(j)].obj->find("parent"),
                                 "creates a parent cycle"))) {
          return false;
        }
      }
      for (auto w : walk) {
        state[static_cast<std::size_t>(w)] = 2;
      }
    }
    return ok;
  }

  // Pass C: spaces.
  bool spaces() {
    auto& nodes = a_->nodes;
    bool ok = true;
    // The root of every node, memoised so that long parent chains stay linear.
    std::vector<std::int32_t> root_of(nodes.size(), -1);
    std::vector<std::int32_t> chain;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      auto j = static_cast<std::int32_t>(i);
      chain.clear();
      while (root_of[static_cast<std::size_t>(j)] < 0 &&
             nodes[static_cast<std::size_t>(j)].parent >= 0) {
        chain.push_back(j);
        j = nodes[static_cast<std::size_t>(j)].parent;
      }
      const std::int32_t r =
          root_of[static_cast<std::size_t>(j)] >= 0 ? root_of[static_cast<std::size_t>(j)] : j;
      root_of[static_cast<std::size_t>(j)] = r;
      for (auto k : chain) {
        root_of[static_cast<std::size_t>(k)] = r;
      }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      auto& n = nodes[i];
      const auto& info = info_[i];
      auto s = c_.at(n.id);
      if (n.is_root) {
        if (!info.space) {
          auto k = c_.at("space");
          if (!c_.next(ok, c_.fail(*info.obj, "is required"))) {
            return false;
          }
        }
      } else if (info.has_space_key) {
        auto k = c_.at("space");
        if (!c_.next(ok, c_.fail(*info.obj->find("space"), "is not allowed on child nodes"))) {
          return false;
        }
      }
      const auto& root_space = info_[static_cast<std::size_t>(root_of[i])].space;
      if (!root_space) {
        // The root's own "is required" comes later in member order.
        continue;
      }
      n.space = *root_space;
      if (info.item_source && n.space == core::space::scene) {
        auto k = c_.at("item_source");
        if (!c_.next(ok, c_.fail(*info.obj->find("item_source"),
                                 "requires initiator or partner node space"))) {
          return false;
        }
      }
      if (info.skin) {
        const auto want = n.skin->participant == participant::initiator ? core::space::initiator
                                                                        : core::space::partner;
        if (want != n.space) {
          const auto& skin = *info.obj->find("skin");
          auto k = c_.at("skin");
          auto kp = c_.at("participant");
          if (!c_.next(ok, c_.fail(info.skin_has_participant ? *skin.find("participant") : skin,
                                   "must match the node space"))) {
            return false;
          }
        }
      }
      if (n.space == core::space::partner) {
        a_->has_partner_nodes = true;
      }
    }
    return ok;
  }

  // -------------------------------------------------------------------------------------------
  bool timeline() {
    const json_value* t = nullptr;
    if (!c_.object(root_, "timeline", t)) {
      return false;
    }
    auto s = c_.at("timeline");
    bool ok = true;
    if (!c_.next(ok, c_.time(*t, "duration", 1, a_->duration))) {
      return false;
    }
    duration_known_ = ok; // else times are not compared with it
    a_->tracks.resize(a_->nodes.size());
    const auto all_tracks = [&] {
      const json_value* tracks = nullptr;
      if (!c_.object(*t, "tracks", tracks)) {
        return false;
      }
      auto k = c_.at("tracks");
      bool all = true;
      for (const auto& m : tracks->as_object()) {
        if (!c_.next(all, track_entry(m.key, m.value))) {
          return false;
        }
      }
      return all;
    };
    const auto all_events = [&] {
      const json_value* events = nullptr;
      if (!c_.object(*t, "events", events, false)) {
        return false;
      }
      return events == nullptr || event_groups(*events);
    };
    if (!c_.next(ok, c_.each(all_tracks, all_events)) || !ok) {
      return false;
    }
    c_.unknown_keys(*t, fields::timeline);
    return true;
  }

  bool keyframe_time(const json_value& kf, std::size_t i, ticks previous, ticks& out) {
    if (!c_.time(kf, "time", 0, out)) {
      return false;
    }
    auto k = c_.at("time");
    const auto& tv = *kf.find("time");
    if (duration_known_ && out > a_->duration) {
      return c_.fail(tv, "must be between 0t and timeline duration");
    }
    if (i == 0 && out.count() != 0) {
      return c_.fail(tv, "first keyframe must be at 0t");
    }
    if (i > 0 && out <= previous) {
      return c_.fail(tv, "keyframes must be strictly ordered");
    }
    return true;
  }

  // Iterates a channel: array, non-empty, objects, times; calls `body` for the rest.
  // `check` goes on after a keyframe whose time passed (the order rule needs it), except after the
  // first keyframe when `first_declares` (NBT: later keyframes may modify only its fields).
  template <class F>
  bool channel(const json_value& entry, std::string_view key, F&& body,
               bool first_declares = false) {
    const json_value* arr = nullptr;
    if (!c_.array(entry, key, arr)) {
      return false;
    }
    auto k = c_.at(key);
    const auto& list = arr->as_array();
    if (list.empty()) {
      return c_.fail(*arr, "must not be empty");
    }
    ticks previous;
    bool ok = true;
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto ki = c_.at(i);
      const auto& kf = list[i];
      if (!kf.is_object()) {
        return c_.fail(kf, "must be an object");
      }
      ticks time;
      if (!keyframe_time(kf, i, previous, time)) {
        return false;
      }
      if (!c_.next(ok, body(kf, i, i + 1 == list.size(), time)) || (!ok && first_declares)) {
        return false;
      }
      previous = time;
    }
    return ok;
  }

  bool track_component(const json_value& v, track_value& out) {
    if (v.is_number()) {
      if (!std::isfinite(v.as_number())) {
        return c_.fail(v, "must be finite");
      }
      out.constant = v.as_number();
      return true;
    }
    if (!v.is_string()) {
      return c_.fail(v, "must be a number or a Molang string");
    }
    return compile(v, molang_kind::track, out.expression, out.source);
  }

  bool track_vector3(const json_value& kf, std::string_view key, track_vector& out) {
    auto k = c_.at(key);
    const auto& v = *kf.find(key);
    if (!v.is_array()) {
      return c_.fail(v, "must be an array");
    }
    const auto& a = v.as_array();
    if (a.size() != 3) {
      return c_.fail(v, "must contain 3 values");
    }
    for (std::size_t j = 0; j < 3; ++j) {
      auto kj = c_.at(j);
      if (!track_component(a[j], out[j])) {
        return false;
      }
    }
    return true;
  }

  bool vector_channel(const json_value& entry, std::string_view key,
                      std::vector<vector_keyframe>& out) {
    return channel(entry, key, [&](const json_value& kf, std::size_t, bool last, ticks time) {
      vector_keyframe k;
      k.time = time;
      const bool has_value = present(kf, "value") != nullptr;
      const bool has_pre = present(kf, "pre") != nullptr;
      const bool has_post = present(kf, "post") != nullptr;
      if (has_value ? (has_pre || has_post) : !(has_pre && has_post)) {
        return c_.fail(kf, "must define either value or both pre and post");
      }
      if (has_value) {
        if (!track_vector3(kf, "value", k.pre)) {
          return false;
        }
        k.post = k.pre;
      } else if (!track_vector3(kf, "pre", k.pre) || !track_vector3(kf, "post", k.post)) {
        return false;
      }
      if (last && (has_key(kf, "interpolation") || has_key(kf, "easing"))) {
        return c_.fail(kf, "last keyframe must not define interpolation or easing");
      }
      std::string text;
      if (!c_.string(kf, "interpolation", text, false)) {
        return false;
      }
      if (present(kf, "interpolation") != nullptr) {
        const auto ip = interpolation_names.parse(text);
        if (!ip) {
          auto ki = c_.at("interpolation");
          c_.fail(*kf.find("interpolation"), "unsupported interpolation: " + text);
          return c_.suggest(core::did_you_mean(text, interpolation_names.all()));
        }
        k.interpolation = *ip;
      }
      if (has_key(kf, "easing") && k.interpolation == interpolation::step) {
        auto ke = c_.at("easing");
        return c_.fail(*kf.find("easing"), "is not supported by step interpolation");
      }
      text.clear();
      if (!c_.string(kf, "easing", text, false)) {
        return false;
      }
      if (present(kf, "easing") != nullptr) {
        const auto e = math::parse_easing(text);
        if (!e) {
          auto ke = c_.at("easing");
          c_.fail(*kf.find("easing"), "unsupported easing: " + text);
          return c_.suggest(core::did_you_mean(text, easing_names()));
        }
        k.easing = *e;
      }
      c_.unknown_keys(kf, fields::vector_keyframe);
      out.push_back(std::move(k));
      return true;
    });
  }

  bool visible_channel(const json_value& entry, std::vector<visible_keyframe>& out) {
    return channel(entry, "visible", [&](const json_value& kf, std::size_t, bool, ticks time) {
      for (std::string_view key : {"interpolation", "easing", "pre", "post"}) {
        if (has_key(kf, key)) {
          return c_.fail(kf, "visible keyframes only support time and value");
        }
      }
      visible_keyframe k;
      k.time = time;
      {
        auto kv = c_.at("value");
        const json_value* v = nullptr;
        if (!c_.require(kf, "value", v)) {
          return false;
        }
        if (v->is_bool()) {
          k.value = v->as_bool();
        } else if (v->is_string()) {
          if (!compile(*v, molang_kind::track, k.expression, k.source)) {
            return false;
          }
        } else {
          return c_.fail(*v, "must be a boolean or a Molang string");
        }
      }
      c_.unknown_keys(kf, fields::visible_keyframe);
      out.push_back(std::move(k));
      return true;
    });
  }

  // Parse an NBT track compound at the current path and apply the forbidden-key rule.
  bool track_compound(const json_value& v, core::nbt_compound& out) {
    if (!snbt(v, out)) {
      return false;
    }
    if (const auto* bad = first_forbidden(out, forbidden_track_key_count)) {
      return c_.fail(v, "must not modify runtime-owned field " + *bad);
    }
    return true;
  }

  static bool same_keys(const core::nbt_compound& a, const core::nbt_compound& b) {
    if (a.size() != b.size()) {
      return false;
    }
    std::vector<std::string_view> x;
    std::vector<std::string_view> y;
    for (const auto& e : a.entries) {
      x.push_back(e.key);
    }
    for (const auto& e : b.entries) {
      y.push_back(e.key);
    }
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    return x == y;
  }

  bool within_f0(const core::nbt_compound& c) const {
    for (const auto& e : c.entries) {
      if (!std::binary_search(f0_.begin(), f0_.end(), e.key)) {
        return false;
      }
    }
    return true;
  }

  bool nbt_channel(const json_value& entry, std::vector<nbt_keyframe>& out) {
    f0_.clear();
    return channel(
        entry, "nbt",
        [&](const json_value& kf, std::size_t i, bool, ticks time) {
          for (const auto& m : kf.as_object()) {
            if (!fields::contains(fields::nbt_keyframe, m.key)) {
              return c_.fail(kf, "NBT keyframes only support time and value");
            }
          }
          nbt_keyframe k;
          k.time = time;
          auto kv = c_.at("value");
          const json_value* v = nullptr;
          if (!c_.require(kf, "value", v)) {
            return false;
          }
          if (v->is_string()) {
            if (!track_compound(*v, k.value)) {
              return false;
            }
            if (i == 0) {
              for (const auto& e : k.value.entries) {
                f0_.push_back(e.key);
              }
              std::sort(f0_.begin(), f0_.end());
            } else if (!within_f0(k.value)) {
              return c_.fail(*v, "must only modify fields declared by the 0t keyframe");
            }
          } else if (v->is_object()) {
            for (const auto& m : v->as_object()) {
              if (!fields::contains(fields::nbt_select, m.key)) {
                return c_.fail(*v, "select values only support select and options");
              }
            }
            {
              auto ks = c_.at("select");
              const json_value* sel = nullptr;
              if (!c_.require(*v, "select", sel)) {
                return false;
              }
              if (!sel->is_string()) {
                return c_.fail(*sel, "must be a string");
              }
              // The option count feeds the "selector may fail" quirk; options are checked next.
              const auto* peek = present(*v, "options");
              const int count = peek != nullptr && peek->is_array()
                                    ? static_cast<int>(peek->as_array().size())
                                    : -1;
              if (!compile(*sel, molang_kind::track, k.select, k.select_source, count)) {
                return false;
              }
            }
            const json_value* opts = nullptr;
            if (!c_.array(*v, "options", opts)) {
              return false;
            }
            auto ko = c_.at("options");
            const auto& list = opts->as_array();
            if (list.size() < 2) {
              return c_.fail(*opts, "must contain at least 2 options");
            }
            for (std::size_t j = 0; j < list.size(); ++j) {
              auto kj = c_.at(j);
              core::nbt_compound option;
              if (!track_compound(list[j], option)) {
                return false;
              }
              if (i == 0) {
                if (j == 0) {
                  for (const auto& e : option.entries) {
                    f0_.push_back(e.key);
                  }
                  std::sort(f0_.begin(), f0_.end());
                } else if (!same_keys(option, k.options.front())) {
                  return c_.fail(list[j], "0t NBT options must declare the same fields");
                }
              } else if (!within_f0(option)) {
                return c_.fail(list[j], "must only modify fields declared by the 0t keyframe");
              }
              k.options.push_back(std::move(option));
            }
          } else {
            return c_.fail(*v, "must be a compound SNBT string or a select object");
          }
          out.push_back(std::move(k));
          return true;
        },
        true);
  }

  bool track_entry(const std::string& id, const json_value& entry) {
    auto s = c_.at(id);
    if (node_failed(id)) {
      return false; // its node was rejected: reported there
    }
    const auto it = index_.find(id);
    if (it == index_.end()) {
      return c_.fail(entry, "references unknown node");
    }
    if (!entry.is_object()) {
      return c_.fail(entry, "must be an object");
    }
    static constexpr std::array<std::string_view, 5> channels{"position", "rotation", "scale",
                                                              "visible", "nbt"};
    bool any = false;
    for (auto ch : channels) {
      any = any || present(entry, ch) != nullptr;
    }
    if (!any) {
      return c_.fail(entry, "must contain at least one track");
    }
    const auto idx = static_cast<std::size_t>(it->second);
    const node& n = a_->nodes[idx];
    auto& t = a_->tracks[idx];
    const auto vector = [this, &entry](std::string_view key, std::vector<vector_keyframe>* out) {
      return [this, &entry, key, out] {
        return !present(entry, key) || vector_channel(entry, key, *out);
      };
    };
    const auto visible = [&] {
      if (!present(entry, "visible")) {
        return true;
      }
      if (n.type == node_type::anchor) {
        auto k = c_.at("visible");
        return c_.fail(*entry.find("visible"), "anchor nodes do not support visible tracks");
      }
      return visible_channel(entry, t.visible);
    };
    if (!c_.each(vector("position", &t.position), vector("rotation", &t.rotation),
                 vector("scale", &t.scale), visible, [&] { return nbt_track(entry, n, t); })) {
      return false;
    }
    c_.unknown_keys(entry, fields::node_tracks);
    return true;
  }

  bool nbt_track(const json_value& entry, const node& n, node_tracks& t) {
    if (!present(entry, "nbt")) {
      return true;
    }
    if (n.type == node_type::anchor) {
      auto k = c_.at("nbt");
      return c_.fail(*entry.find("nbt"), "anchor nodes do not support nbt tracks");
    }
    if (!nbt_channel(entry, t.nbt)) {
      return false;
    }
    if (n.participant_hand) {
      for (const auto& k : t.nbt) {
        bool sets_item = k.value.find("item") != nullptr;
        for (const auto& o : k.options) {
          sets_item = sets_item || o.find("item") != nullptr;
        }
        if (sets_item) {
          auto kn = c_.at("nbt");
          return c_.fail(*entry.find("nbt"), "participant hand items cannot modify item");
        }
      }
    }
    return true;
  }

  // -------------------------------------------------------------------------------------------
  bool event_groups(const json_value& events) {
    auto s = c_.at("events");
    struct group {
      std::string_view key;
      std::vector<command_event>* out;
      bool timed;
    };
    auto& ev = a_->events;
    const group groups[] = {{"start", &ev.start, false},
                            {"timeline", &ev.timeline, true},
                            {"loop", &ev.loop, false},
                            {"stop", &ev.stop, false}};
    bool ok = true;
    for (const auto& g : groups) {
      const json_value* arr = nullptr;
      const bool is_list = c_.array(events, g.key, arr, false);
      if (!c_.next(ok, is_list)) {
        return false;
      }
      if (!is_list || arr == nullptr) {
        continue;
      }
      auto k = c_.at(g.key);
      const auto& list = arr->as_array();
      std::optional<ticks> previous; // the last time that passed
      for (std::size_t i = 0; i < list.size(); ++i) {
        auto ki = c_.at(i);
        command_event e;
        if (!c_.next(ok, event(list[i], g.timed, e, previous))) {
          return false;
        }
        g.out->push_back(std::move(e));
      }
    }
    if (!ok) {
      return false;
    }
    c_.unknown_keys(events, fields::events);
    return true;
  }

  bool node_ref(const json_value& obj, std::int32_t& out) {
    auto k = c_.at("node");
    const json_value* v = nullptr;
    std::string id;
    if (!c_.require(obj, "node", v) || !c_.as_string(*v, id)) {
      return false;
    }
    if (node_failed(id)) {
      return false; // its node was rejected: reported there
    }
    const auto it = index_.find(id);
    if (it == index_.end()) {
      return c_.fail(*v, "references unknown node");
    }
    out = it->second;
    return true;
  }

  // `previous`: the time of the last event of the group whose time passed; updated.
  bool event(const json_value& v, bool timed, command_event& e, std::optional<ticks>& previous) {
    if (!v.is_object()) {
      return c_.fail(v, "must be an object");
    }
    const auto time = [&] {
      if (!timed) {
        return true;
      }
      if (!c_.time(v, "time", 0, e.time)) {
        return false;
      }
      auto k = c_.at("time");
      if (duration_known_ && e.time >= a_->duration) {
        return c_.fail(*v.find("time"), "must be before the timeline duration");
      }
      if (previous && e.time < *previous) {
        return c_.fail(*v.find("time"), "timeline events must be ordered by time");
      }
      previous = e.time;
      return true;
    };
    return c_.each(
        time, [&] { return event_source_of(v, e); }, [&] { return event_origin_of(v, e); },
        [&] { return event_commands(v, e); }, [&] { return event_callbacks(v, e, timed); });
  }

  bool event_source_of(const json_value& v, command_event& e) {
    const json_value* src = nullptr;
    if (!c_.object(v, "source", src)) {
      return false;
    }
    auto k = c_.at("source");
    if (!enum_field(*src, "type", event_source_names, "unsupported source type: ", e.source)) {
      return false;
    }
    if (e.source == event_source::node) {
      if (!node_ref(*src, e.source_node)) {
        return false;
      }
      if (a_->nodes[static_cast<std::size_t>(e.source_node)].type == node_type::anchor) {
        auto kn = c_.at("node");
        return c_.fail(*src->find("node"), "anchor nodes cannot be command sources");
      }
    }
    c_.unknown_keys(*src, fields::event_source);
    return true;
  }

  bool event_origin_of(const json_value& v, command_event& e) {
    const json_value* origin = nullptr;
    if (!c_.object(v, "origin", origin)) {
      return false;
    }
    auto k = c_.at("origin");
    if (!enum_field(*origin, "type", event_origin_names, "unsupported origin type: ", e.origin)) {
      return false;
    }
    if (!c_.each([&] { return e.origin != event_origin::node || node_ref(*origin, e.origin_node); },
                 [&] { return c_.vec3(*origin, "offset", e.offset, false); })) {
      return false;
    }
    c_.unknown_keys(*origin, fields::event_origin);
    return true;
  }

  bool event_commands(const json_value& v, command_event& e) {
    const json_value* cmds = nullptr;
    if (!c_.array(v, "commands", cmds)) {
      return false;
    }
    auto k = c_.at("commands");
    const auto& list = cmds->as_array();
    bool ok = true;
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto ki = c_.at(i);
      const auto command = [&] {
        std::string cmd;
        if (!c_.as_string(list[i], cmd)) {
          return false;
        }
        if (core::is_blank(cmd)) {
          return c_.fail(list[i], "must not be blank");
        }
        if (cmd.front() == '/') {
          return c_.fail(list[i], "must not start with /");
        }
        e.commands.push_back(std::move(cmd));
        return true;
      };
      if (!c_.next(ok, command())) {
        return false;
      }
    }
    return ok;
  }

  bool event_callbacks(const json_value& v, command_event& e, bool timed) {
    const json_value* cbs = nullptr;
    if (!c_.array(v, "callbacks", cbs, false)) {
      return false;
    }
    if (cbs != nullptr) {
      auto k = c_.at("callbacks");
      const auto& list = cbs->as_array();
      bool ok = true;
      for (std::size_t i = 0; i < list.size(); ++i) {
        auto ki = c_.at(i);
        if (!c_.next(ok, callback_at(list[i], e))) {
          return false;
        }
      }
      if (!ok) {
        return false;
      }
    }
    if (timed) {
      c_.unknown_keys(v, fields::timeline_event);
    } else {
      c_.unknown_keys(v, fields::lifecycle_event);
    }
    return true;
  }

  bool callback_at(const json_value& cb, command_event& e) {
    if (!cb.is_object()) {
      return c_.fail(cb, "must be an object");
    }
    callback out;
    const auto callback_name = [&] {
      std::string name;
      if (!c_.string(cb, "name", name)) {
        return false;
      }
      auto rl = core::parse_resource_location(name);
      if (!rl) {
        auto kn = c_.at("name");
        return c_.fail(*cb.find("name"), "must be a valid Minecraft identifier");
      }
      out.name = std::move(*rl);
      return true;
    };
    if (!c_.each(callback_name, [&] { return c_.string(cb, "payload", out.payload, false); })) {
      return false;
    }
    c_.unknown_keys(cb, fields::callback);
    e.callbacks.push_back(std::move(out));
    return true;
  }

  // -------------------------------------------------------------------------------------------
  bool stage2() {
    bool ok = true;
    if (duration_known_ && a_->duration.count() > 12000) {
      auto s = c_.at("timeline");
      auto k = c_.at("duration");
      if (!c_.next(ok, c_.fail(*root_.find("timeline")->find("duration"),
                               "must not exceed 12000 ticks"))) {
        return false;
      }
    }
    auto s = c_.at("nodes");
    for (std::size_t i = 0; i < a_->nodes.size(); ++i) {
      if (!c_.next(ok, stage2_node(i))) {
        return false;
      }
    }
    return ok;
  }

  bool stage2_node(std::size_t i) {
    auto& n = a_->nodes[i];
    const auto& obj = *info_[i].obj;
    auto kn = c_.at(n.id);
    if (n.type == node_type::item_display) {
      if (!n.participant_hand) {
        const auto detail = core::check_item_stack(n.item_stack, &n.item_id);
        if (!detail.empty()) {
          auto k = c_.at("item_stack_snbt");
          return c_.fail(*obj.find("item_stack_snbt"),
                         "value is not valid for Minecraft: " + detail);
        }
        if (n.skin && n.item_id != "minecraft:player_head") {
          auto k = c_.at("skin");
          return c_.fail(*obj.find("skin"), "requires a player head");
        }
      } else if (n.skin) {
        auto k = c_.at("skin");
        return c_.fail(*obj.find("skin"), "is not supported by participant hand items");
      }
    } else if (n.type == node_type::block_display) {
      const auto detail = core::check_block_state(n.block_state);
      if (!detail.empty()) {
        auto k = c_.at("block_state_snbt");
        return c_.fail(*obj.find("block_state_snbt"),
                       "value is not valid for Minecraft: " + detail);
      }
    }
    return true;
  }

  const json_value& root_;
  checker& c_;
  checked_file& out_;
  std::shared_ptr<animation> a_;
  molang_compiler compiler_;
  const json_value* nodes_ = nullptr;
  std::vector<node_info> info_;
  std::unordered_map<std::string, std::int32_t> index_;
  std::unordered_set<std::string> failed_nodes_; ///< pass A rejected them (`check` only)
  std::vector<std::string> f0_;
  bool mode_known_ = false;     ///< settings.playback.mode passed
  bool duration_known_ = false; ///< timeline.duration passed
};

} // namespace

void check_animation(const json_value& root, checker& c, checked_file& out,
                     const check_options& options) {
  animation_checker(root, c, out, options).run();
}

} // namespace emote::content::detail
