#pragma once
// Test and benchmark support: builds content models (Animations, Sequences) in code, compiling
// Molang with the real compiler; the union and partner expansion of a Sequence follow
// formats.md §5.2–5.3. No doctest dependency, so benchmarks can use it too.

#include "engine/content/model.hpp"
#include "engine/core/coordinates.hpp"
#include "engine/core/snbt.hpp"
#include "engine/molang/molang.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace fixture {

/// Fixtures are written by hand: a Molang compile error is a bug in the test itself.
inline void require_compiled(const emote::molang::compile_output& out) {
  if (!out.ok()) {
    std::fprintf(stderr, "fixture Molang does not compile: %s\n", out.error.c_str());
    std::abort();
  }
}

using namespace emote;

/// A component value: a number or a Molang track expression.
struct comp {
  comp(double v) : number(v) {}                       // NOLINT(google-explicit-constructor)
  comp(int v) : number(v) {}                          // NOLINT(google-explicit-constructor)
  comp(const char* s) : molang(s), is_molang(true) {} // NOLINT(google-explicit-constructor)
  double number = 0;
  std::string molang;
  bool is_molang = false;
};
using vec = std::array<comp, 3>;

class anim_builder {
public:
  anim_builder(std::string id, std::int64_t duration,
               content::playback_mode mode = content::playback_mode::once,
               std::int64_t loop_delay = 0)
      : a_(std::make_shared<content::animation>()),
        symbols_(std::make_shared<molang::symbol_table>()) {
    a_->id = std::move(id);
    a_->file = a_->id + ".json";
    a_->metadata.name = a_->id;
    a_->duration = core::ticks(duration);
    a_->settings.mode = mode;
    a_->settings.loop_delay = core::ticks(loop_delay);
    a_->settings.rotation_deadzone = 0;
    a_->settings.player.stop_conditions.movement_distance = 0.1;
  }

  anim_builder& deadzone(double d) {
    a_->settings.rotation_deadzone = d;
    return *this;
  }
  anim_builder& display_interpolation(std::int64_t t) {
    a_->settings.display_interpolation = core::ticks(t);
    return *this;
  }
  anim_builder& movement_distance(double d) {
    a_->settings.player.stop_conditions.movement_distance = d;
    return *this;
  }
  anim_builder& initialize(const std::string& src) {
    a_->initialize = compile(src, molang::program_kind::program);
    a_->initialize_source = src;
    return *this;
  }
  anim_builder& tick(const std::string& src) {
    a_->tick = compile(src, molang::program_kind::program);
    a_->tick_source = src;
    return *this;
  }

  /// Adds a node; returns its index. Roots take `space`; children inherit their root's.
  int node(const std::string& id, content::node_type type, int parent = -1,
           core::space space = core::space::initiator,
           std::array<double, 3> position = {0, 0, 0}) {
    content::node n;
    n.id = id;
    n.type = type;
    n.parent = parent;
    n.is_root = parent < 0;
    n.space = parent < 0 ? space : a_->nodes[static_cast<std::size_t>(parent)].space;
    n.transform.position = position;
    n.entity_nbt_snbt = "{}";
    if (type == content::node_type::item_display) {
      n.item_stack_snbt = "{count:1,id:\"minecraft:stone\"}";
      n.item_id = "minecraft:stone";
    } else if (type == content::node_type::block_display) {
      n.block_state_snbt = "{Name:\"minecraft:stone\"}";
    } else if (type == content::node_type::text_display) {
      n.text_json = "\"hi\"";
    }
    if (n.space == core::space::partner) {
      a_->has_partner_nodes = true;
    }
    a_->nodes.push_back(std::move(n));
    a_->tracks.emplace_back();
    return static_cast<int>(a_->nodes.size()) - 1;
  }
  content::node& at(int n) { return a_->nodes[static_cast<std::size_t>(n)]; }

  anim_builder& position(int n, std::int64_t time, vec value,
                         content::easing e = content::easing::linear,
                         content::interpolation i = content::interpolation::linear) {
    tracks(n).position.push_back(key(time, value, value, e, i));
    return *this;
  }
  anim_builder& position_pre_post(int n, std::int64_t time, vec pre, vec post,
                                  content::easing e = content::easing::linear,
                                  content::interpolation i = content::interpolation::linear) {
    tracks(n).position.push_back(key(time, pre, post, e, i));
    return *this;
  }
  anim_builder& rotation(int n, std::int64_t time, vec value,
                         content::easing e = content::easing::linear,
                         content::interpolation i = content::interpolation::linear) {
    tracks(n).rotation.push_back(key(time, value, value, e, i));
    return *this;
  }
  anim_builder& scale(int n, std::int64_t time, vec value,
                      content::easing e = content::easing::linear,
                      content::interpolation i = content::interpolation::linear) {
    tracks(n).scale.push_back(key(time, value, value, e, i));
    return *this;
  }
  anim_builder& visible(int n, std::int64_t time, bool v) {
    content::visible_keyframe k;
    k.time = core::ticks(time);
    k.value = v;
    tracks(n).visible.push_back(std::move(k));
    return *this;
  }
  anim_builder& visible(int n, std::int64_t time, const char* src) {
    return visible(n, time, std::string(src));
  }
  anim_builder& visible(int n, std::int64_t time, const std::string& src) {
    content::visible_keyframe k;
    k.time = core::ticks(time);
    k.expression = compile(src, molang::program_kind::track);
    k.source = src;
    tracks(n).visible.push_back(std::move(k));
    return *this;
  }
  anim_builder& nbt(int n, std::int64_t time, const std::string& snbt) {
    content::nbt_keyframe k;
    k.time = core::ticks(time);
    k.value = core::parse_compound_snbt(snbt).value();
    tracks(n).nbt.push_back(std::move(k));
    return *this;
  }
  anim_builder& nbt_select(int n, std::int64_t time, const std::string& select,
                           const std::vector<std::string>& options) {
    content::nbt_keyframe k;
    k.time = core::ticks(time);
    molang::compile_options o;
    o.select_options = static_cast<int>(options.size());
    o.warnings = false;
    auto out = molang::compile(select, molang::program_kind::track, *symbols_, o);
    require_compiled(out);
    k.select = out.program;
    k.select_source = select;
    for (const auto& s : options) {
      k.options.push_back(core::parse_compound_snbt(s).value());
    }
    tracks(n).nbt.push_back(std::move(k));
    return *this;
  }

  enum class group { start, timeline, loop, stop };
  anim_builder& event(group g, std::int64_t time, std::vector<std::string> commands,
                      content::event_source source = content::event_source::server,
                      content::event_origin origin = content::event_origin::root,
                      int origin_node = -1, std::array<double, 3> offset = {0, 0, 0},
                      int source_node = -1, std::vector<content::callback> callbacks = {}) {
    content::command_event e;
    e.time = core::ticks(time);
    e.source = source;
    e.source_node = source_node;
    e.origin = origin;
    e.origin_node = origin_node;
    e.offset = offset;
    e.commands = std::move(commands);
    e.callbacks = std::move(callbacks);
    switch (g) {
    case group::start:
      a_->events.start.push_back(std::move(e));
      break;
    case group::timeline:
      a_->events.timeline.push_back(std::move(e));
      break;
    case group::loop:
      a_->events.loop.push_back(std::move(e));
      break;
    case group::stop:
      a_->events.stop.push_back(std::move(e));
      break;
    }
    return *this;
  }

  std::shared_ptr<const content::animation> build() {
    a_->symbols = symbols_;
    return a_;
  }

  content::program_ptr compile(const std::string& src, molang::program_kind kind) {
    molang::compile_options o;
    o.warnings = false;
    auto out = molang::compile(src, kind, *symbols_, o);
    require_compiled(out);
    return out.program;
  }

private:
  content::node_tracks& tracks(int n) { return a_->tracks[static_cast<std::size_t>(n)]; }
  content::track_value tv(const comp& c) {
    content::track_value v;
    if (c.is_molang) {
      v.expression = compile(c.molang, molang::program_kind::track);
      v.source = c.molang;
    } else {
      v.constant = c.number;
    }
    return v;
  }
  content::vector_keyframe key(std::int64_t time, const vec& pre, const vec& post,
                               content::easing e, content::interpolation i) {
    content::vector_keyframe k;
    k.time = core::ticks(time);
    for (std::size_t c = 0; c < 3; ++c) {
      k.pre[c] = tv(pre[c]);
      k.post[c] = tv(post[c]);
    }
    k.easing = e;
    k.interpolation = i;
    return k;
  }

  std::shared_ptr<content::animation> a_;
  std::shared_ptr<molang::symbol_table> symbols_;
};

// ---------------------------------------------------------------------------------------------
// Sequences

inline content::candidate cand(const std::shared_ptr<const content::animation>& a, int index,
                               int weight = 0) {
  content::candidate c;
  c.id = a->id;
  c.kind = content::candidate_kind::animation;
  c.animation = a;
  c.animation_index = index;
  c.weight = weight;
  return c;
}
inline content::candidate continue_cand(int weight = 0) {
  content::candidate c;
  c.id = "emote:continue";
  c.kind = content::candidate_kind::continue_repeat;
  c.weight = weight;
  return c;
}
inline content::candidate break_cand(int weight = 0) {
  content::candidate c;
  c.id = "emote:break";
  c.kind = content::candidate_kind::break_repeat;
  c.weight = weight;
  return c;
}
inline content::step emote_step(std::vector<content::candidate> c, std::int32_t repeat = 1,
                                std::int64_t transition = 0, bool weighted = false) {
  content::step s;
  s.kind = content::step_kind::emote;
  s.candidates = std::move(c);
  s.repeat = repeat;
  s.transition = core::ticks(transition);
  s.weighted = weighted;
  return s;
}
inline content::step wait_step(std::int64_t t) {
  content::step s;
  s.kind = content::step_kind::wait;
  s.wait = core::ticks(t);
  return s;
}

/// Builds a resolved Sequence: `animations` in validation order; the union is computed here as
/// formats.md §5.2–5.3 define it (first definition wins; two-player partner expansion).
class sequence_builder {
public:
  explicit sequence_builder(std::string id) : s_(std::make_shared<content::sequence>()) {
    s_->id = std::move(id);
    s_->player.stop_conditions.movement_distance = 0.1;
  }
  sequence_builder& movement_distance(double d) {
    s_->player.stop_conditions.movement_distance = d;
    return *this;
  }
  /// Registers an Animation (validation order); returns its index.
  int animation(std::shared_ptr<const content::animation> a) {
    anims_.push_back(std::move(a));
    return static_cast<int>(anims_.size()) - 1;
  }
  sequence_builder& skin(content::skin_layout layout) {
    s_->skin = std::move(layout);
    return *this;
  }
  sequence_builder& steps(std::vector<content::step> st) {
    s_->steps = std::move(st);
    return *this;
  }
  sequence_builder& two_player(int offer, std::int64_t timeout, std::vector<content::step> matched,
                               std::vector<content::step> timeout_steps,
                               const char* partner_pos = "^ ^ ^1.2",
                               const char* partner_rot = "~180 0") {
    content::partner_step p;
    p.offer_id = anims_[static_cast<std::size_t>(offer)]->id;
    p.offer = anims_[static_cast<std::size_t>(offer)];
    p.offer_index = offer;
    p.timeout = core::ticks(timeout);
    p.matched = std::move(matched);
    p.timeout_steps = std::move(timeout_steps);
    s_->partner = std::move(p);
    content::participants parts;
    parts.initiator.position = core::parse_position("~ ~ ~").value();
    parts.initiator.rotation = core::parse_rotation("~ 0").value();
    parts.partner.position = core::parse_position(partner_pos).value();
    parts.partner.rotation = core::parse_rotation(partner_rot).value();
    s_->participants = parts;
    return *this;
  }

  std::shared_ptr<const content::sequence> build() {
    const bool two = s_->partner.has_value();
    for (const auto& a : anims_) {
      content::sequence_animation sa;
      sa.animation = a;
      sa.nodes = a->nodes;
      if (two && !a->has_partner_nodes) {
        expand(sa);
      }
      for (const content::node& n : sa.nodes) {
        std::int32_t u = -1;
        for (std::size_t k = 0; k < s_->node_union.size(); ++k) {
          if (s_->node_union[k].id == n.id) {
            u = static_cast<std::int32_t>(k);
          }
        }
        if (u < 0) {
          content::node copy = n;
          if (n.parent >= 0) {
            const std::string& pid = sa.nodes[static_cast<std::size_t>(n.parent)].id;
            for (std::size_t k = 0; k < s_->node_union.size(); ++k) {
              if (s_->node_union[k].id == pid) {
                copy.parent = static_cast<std::int32_t>(k);
              }
            }
          }
          s_->node_union.push_back(copy);
          s_->union_source.emplace_back(static_cast<std::int32_t>(s_->animations.size()),
                                        static_cast<std::int32_t>(&n - sa.nodes.data()));
          u = static_cast<std::int32_t>(s_->node_union.size()) - 1;
        }
        sa.union_index.push_back(u);
      }
      s_->animations.push_back(std::move(sa));
    }
    return s_;
  }

private:
  static void expand(content::sequence_animation& sa) {
    std::string prefix = "__partner__";
    const auto& nodes = sa.nodes;
    auto collides = [&](const std::string& p) {
      for (const auto& n : nodes) {
        if (n.space != core::space::initiator) {
          continue;
        }
        for (const auto& m : nodes) {
          if (m.id == p + n.id) {
            return true;
          }
        }
      }
      return false;
    };
    while (collides(prefix)) {
      prefix += "_";
    }
    std::vector<std::int32_t> copy_of(nodes.size(), -1);
    std::vector<content::node> copies;
    const auto base = static_cast<std::int32_t>(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].space != core::space::initiator) {
        continue;
      }
      copy_of[i] = base + static_cast<std::int32_t>(copies.size());
      content::node c = nodes[i];
      c.id = prefix + nodes[i].id;
      c.space = core::space::partner;
      c.mirror_of = static_cast<std::int32_t>(i);
      if (c.skin) {
        c.skin->participant = content::participant::partner;
      }
      copies.push_back(std::move(c));
    }
    for (auto& c : copies) {
      if (c.parent >= 0) {
        c.parent = copy_of[static_cast<std::size_t>(c.parent)];
      }
    }
    for (auto& c : copies) {
      sa.nodes.push_back(std::move(c));
    }
    sa.expanded = true;
  }

  std::shared_ptr<content::sequence> s_;
  std::vector<std::shared_ptr<const content::animation>> anims_;
};

} // namespace fixture
