#include "protocol/encode.hpp"

#include "engine/core/base64.hpp"
#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include "engine/core/enum_names.hpp"
#include "engine/core/memo.hpp"
#include "render/tables.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <optional>
#include <type_traits>
#include <unordered_map>

namespace emote::protocol {

using json::json_out;
using json::parse_wire;
namespace {

using api::dvec3;

template <std::size_t N>
void floats(json_out& o, const std::array<float, N>& a) {
  json::array(o, a, [](json_out& out, float f) { out.f32(f); });
}

void vec3(json_out& o, const dvec3& v) {
  json::array(o, std::array{v.x, v.y, v.z}, [](json_out& out, double d) { out.f64(d); });
}

void integers(json_out& o, const auto& list) {
  json::array(o, list, [](json_out& out, auto n) { out.i64(n); });
}

void write_transform(json_out& o, const api::transform_record& t, bool matrix) {
  o.raw(R"({"translation":)");
  floats(o, t.translation);
  o.raw(R"(,"left_rotation":)");
  floats(o, t.left_rotation);
  o.raw(R"(,"scale":)");
  floats(o, t.scale);
  o.raw(R"(,"right_rotation":)");
  floats(o, t.right_rotation);
  if (matrix) {
    o.raw(R"(,"matrix":)");
    floats(o, t.matrix);
  }
  o.ch('}');
}

// The text of a transform without its matrix, memoised per thread by its 14 floats: many
// displays show the same transform (the same Animation at the same tick), and writing 14
// shortest round-trip floats costs far more than copying their text.
struct transform_key {
  std::array<float, 14> v;
};
struct transform_text {
  std::array<char, 288> text; ///< longer texts (never seen: 14 · 15 + 70 at most) are not kept
  std::uint16_t size;
};

using transform_memo = core::direct_memo<transform_key, transform_text>;

transform_memo& transform_texts() {
  thread_local transform_memo memo;
  return memo;
}

// The 14 floats lie back to back in the record (translation, left rotation, scale, right
// rotation): the key is one copy of them.
static_assert(offsetof(api::transform_record, left_rotation) ==
                  offsetof(api::transform_record, translation) + 12 &&
              offsetof(api::transform_record, scale) ==
                  offsetof(api::transform_record, left_rotation) + 16 &&
              offsetof(api::transform_record, right_rotation) ==
                  offsetof(api::transform_record, scale) + 12);

transform_key key_of(const api::transform_record& t) noexcept {
  transform_key k;
  std::memcpy(k.v.data(), t.translation.data(), sizeof k.v);
  return k;
}

/// The memo hash of an event's transform text, its slot prefetched (encode_events looks ahead);
/// nullopt for an event without a transform.
std::optional<std::uint64_t> prefetch_transform(const api::event& e) noexcept {
  if (const auto* up = std::get_if<api::ev_display_update>(&e); up && up->transform) {
    transform_memo& memo = transform_texts();
    const std::uint64_t h = transform_memo::hash(key_of(*up->transform));
    memo.prefetch_hashed(h);
    return h;
  }
  return std::nullopt;
}

/// A transform's text through the memo as `caches` says (`check`: a hit must equal the text
/// written afresh, or core::cache_mismatch names the session (0: unknown) and handle).
/// `hash`: the key's memo hash when the caller computed it already.
void transform(json_out& o, const api::transform_record& t, bool matrix,
               const core::cache_options& caches, api::session_id session, api::handle_id handle,
               std::optional<std::uint64_t> hash = std::nullopt) {
  if (matrix || caches.mode == core::cache_mode::off) {
    write_transform(o, t, matrix);
    return;
  }
  transform_memo& memo = transform_texts();
  memo.resize(caches.transform_text_slots);
  const transform_key k = key_of(t);
  const std::uint64_t h = hash ? *hash : transform_memo::hash(k);
  const transform_text* hit = memo.find_hashed(k, h);
  if (hit != nullptr && caches.mode == core::cache_mode::on) {
    o.raw(std::string_view(hit->text.data(), hit->size));
    return;
  }
  const std::size_t begin = o.buffer().size();
  write_transform(o, t, false);
  const std::size_t n = o.buffer().size() - begin;
  if (hit != nullptr) {
    if (std::string_view(o.buffer()).substr(begin) !=
        std::string_view(hit->text.data(), hit->size)) {
      core::cache_mismatch e("transform text memo");
      if (session != 0) {
        e.session = session;
      }
      e.handle = handle;
      throw e;
    }
    return;
  }
  if (n <= transform_text{}.text.size()) {
    transform_text v{};
    std::memcpy(v.text.data(), o.buffer().data() + begin, n);
    v.size = static_cast<std::uint16_t>(n);
    memo.store_hashed(k, h, v);
  }
}

// Writes a text component: the engine hands over serialized JSON, embedded as a JSON value.
// Anything that does not parse is written as a string so the line stays valid JSON.
void text_component(json_out& o, const std::string& text_json) {
  rapidjson::Document doc;
  if (!text_json.empty() && !parse_wire(text_json, doc)) {
    o.value(doc);
  } else {
    o.str(text_json);
  }
}

/// A display's content members by kind, as display.spawn writes them (protocol.md §6).
void display_content(json_out& o, api::display_kind kind, const std::string& item,
                     const std::string& item_display, const std::string& block,
                     const std::string& text_json) {
  switch (kind) {
  case api::display_kind::item:
    o.raw(R"(,"item":)");
    o.str(item);
    o.raw(R"(,"item_display":)");
    o.str(item_display);
    break;
  case api::display_kind::block:
    o.raw(R"(,"block":)");
    o.str(block);
    break;
  case api::display_kind::text:
    o.raw(R"(,"text":)");
    text_component(o, text_json);
    break;
  }
}

struct event_writer {
  json_out& o;
  bool matrix;
  const core::cache_options& caches;
  /// The transform text memo's hash of the next display.update's transform, when known.
  std::optional<std::uint64_t> transform_hash;

  void session(api::session_id s) {
    o.raw(R"(,"session":)");
    o.i64(s);
  }
  void key_str(std::string_view key_colon, std::string_view v) {
    o.raw(key_colon);
    o.str(v);
  }

  void operator()(const api::ev_command& e) {
    o.raw(R"({"type":"command")");
    session(e.session);
    key_str(R"(,"player":)", e.player);
    o.raw(R"(,"source":{"type":)");
    switch (e.source.type) {
    case api::command_source::kind::player:
      o.raw(R"("player")");
      break;
    case api::command_source::kind::server:
      o.raw(R"("server")");
      break;
    case api::command_source::kind::node:
      o.raw(R"("node")");
      break;
    }
    if (e.source.handle) {
      o.raw(R"(,"handle":)");
      o.i64(*e.source.handle);
    }
    o.ch('}');
    key_str(R"(,"dimension":)", e.dimension);
    o.raw(R"(,"origin":)");
    vec3(o, e.origin);
    key_str(R"(,"command":)", e.command);
    o.ch('}');
  }

  void operator()(const api::ev_callback& e) {
    o.raw(R"({"type":"callback")");
    session(e.session);
    key_str(R"(,"player":)", e.player);
    key_str(R"(,"name":)", e.name);
    key_str(R"(,"payload":)", e.payload);
    key_str(R"(,"dimension":)", e.dimension);
    o.raw(R"(,"origin":)");
    vec3(o, e.origin);
    o.ch('}');
  }

  void operator()(const api::ev_segment_started& e) {
    o.raw(R"({"type":"segment.started")");
    session(e.session);
    o.raw(R"(,"step":)");
    o.i64(e.step);
    o.raw(R"(,"repeat":)");
    o.i64(e.repeat);
    key_str(R"(,"animation":)", e.animation);
    key_str(R"(,"branch":)", api::name(e.branch));
    o.ch('}');
  }

  void operator()(const api::ev_display_spawn& e) {
    o.raw(R"({"type":"display.spawn")");
    session(e.session);
    o.raw(R"(,"handle":)");
    o.i64(e.handle);
    key_str(R"(,"node":)", e.node);
    key_str(R"(,"space":)", api::name(e.space));
    key_str(R"(,"kind":)", api::name(e.kind));
    display_content(o, e.kind, e.item, e.item_display, e.block, e.text_json);
    if (e.entity_nbt) {
      key_str(R"(,"entity_nbt":)", *e.entity_nbt);
    }
    if (e.nbt) {
      key_str(R"(,"nbt":)", *e.nbt);
    }
    key_str(R"(,"dimension":)", e.dimension);
    o.raw(R"(,"position":)");
    vec3(o, e.position);
    o.raw(R"(,"yaw":)");
    o.f32(e.yaw);
    o.raw(R"(,"teleport_duration":)");
    o.i64(e.teleport_duration);
    o.raw(R"(,"transform":)");
    transform(o, e.transform, matrix, caches, e.session, e.handle);
    o.raw(R"(,"visible":)");
    o.boolean(e.visible);
    if (e.skin) {
      key_str(R"(,"skin":{"participant":)", e.skin->participant);
      key_str(R"(,"part":)", e.skin->part);
      o.raw(R"(,"order":)");
      o.i64(e.skin->order);
      o.raw(R"(,"rows":)");
      integers(o, e.skin->rows);
      o.ch('}');
    }
    o.ch('}');
  }

  void operator()(const api::ev_display_move& e) {
    o.raw(R"({"type":"display.move")");
    session(e.session);
    key_str(R"(,"space":)", api::name(e.space));
    o.raw(R"(,"position":)");
    vec3(o, e.position);
    o.raw(R"(,"teleport_duration":)");
    o.i64(e.teleport_duration);
    o.ch('}');
  }

  void operator()(const api::ev_display_view& e) {
    o.raw(R"({"type":"display.view")");
    session(e.session);
    o.raw(R"(,"yaw":)");
    o.f32(e.yaw);
    o.raw(R"(,"teleport_duration":)");
    o.i64(e.teleport_duration);
    o.ch('}');
  }

  void operator()(const api::ev_display_update& e) {
    o.raw(R"({"type":"display.update","handle":)");
    o.i64(e.handle);
    if (e.transform) {
      o.raw(R"(,"transform":)");
      transform(o, *e.transform, matrix, caches, 0, e.handle, transform_hash);
      o.raw(R"(,"interpolation_duration":)");
      o.i64(e.interpolation_duration);
      o.raw(R"(,"start_interpolation":0)");
    }
    if (e.visible) {
      o.raw(R"(,"visible":)");
      o.boolean(*e.visible);
    }
    if (e.nbt) {
      key_str(R"(,"nbt":)", *e.nbt);
    }
    if (e.item) {
      key_str(R"(,"item":)", *e.item);
    }
    o.ch('}');
  }

  void operator()(const api::ev_display_remove& e) {
    o.raw(R"({"type":"display.remove")");
    session(e.session);
    o.raw(R"(,"handles":)");
    integers(o, e.handles);
    o.ch('}');
  }

  void operator()(const api::ev_playback_started& e) {
    o.raw(R"({"type":"playback.started")");
    session(e.session);
    key_str(R"(,"player":)", e.player);
    key_str(R"(,"emote":)", e.emote);
    key_str(R"(,"role":)", api::name(e.role));
    o.ch('}');
  }

  void operator()(const api::ev_playback_stopped& e) {
    o.raw(R"({"type":"playback.stopped")");
    session(e.session);
    key_str(R"(,"player":)", e.player);
    key_str(R"(,"emote":)", e.emote);
    key_str(R"(,"reason":)", api::name(e.reason));
    o.ch('}');
  }

  void partner(std::string_view type, api::session_id s, const std::string& initiator,
               const std::string* partner) {
    o.raw(R"({"type":)");
    o.str(type);
    session(s);
    key_str(R"(,"initiator":)", initiator);
    if (partner != nullptr) {
      key_str(R"(,"partner":)", *partner);
    }
  }

  void operator()(const api::ev_partner_reserved& e) {
    partner("partner.reserved", e.session, e.initiator, &e.partner);
    o.ch('}');
  }
  void operator()(const api::ev_partner_released& e) {
    partner("partner.released", e.session, e.initiator, &e.partner);
    key_str(R"(,"why":)", api::name(e.why));
    o.ch('}');
  }
  void operator()(const api::ev_partner_matched& e) {
    partner("partner.matched", e.session, e.initiator, &e.partner);
    o.ch('}');
  }
  void operator()(const api::ev_partner_timeout& e) {
    partner("partner.timeout", e.session, e.initiator, nullptr);
    o.ch('}');
  }

  void operator()(const api::ev_player_visibility& e) {
    o.raw(R"({"type":"player.visibility")");
    key_str(R"(,"player":)", e.player);
    o.raw(R"(,"hidden":)");
    o.boolean(e.hidden);
    o.raw(e.blank_equipment ? R"(,"equipment":"blank"})" : R"(,"equipment":"real"})");
  }

  void operator()(const api::ev_render_warning& e) {
    // render.md §5.4: (emote, node) for content, (player) for a player's profile.
    o.raw(R"({"type":"render.warning")");
    if (e.player.empty()) {
      key_str(R"(,"emote":)", e.emote);
      key_str(R"(,"node":)", e.node);
    } else {
      key_str(R"(,"player":)", e.player);
    }
    o.raw(R"(,"protocol":)");
    o.i64(e.protocol);
    key_str(R"(,"message":)", e.message);
    o.ch('}');
  }
};

constexpr std::array<std::string_view, event_type_count> type_names = [] {
  std::array<std::string_view, event_type_count> n{};
  n[0] = "command";
  n[1] = "callback";
  n[2] = "segment.started";
  n[3] = "display.spawn";
  n[4] = "display.move";
  n[5] = "display.view";
  n[6] = "display.update";
  n[7] = "display.remove";
  n[8] = "playback.started";
  n[9] = "playback.stopped";
  n[10] = "partner.reserved";
  n[11] = "partner.released";
  n[12] = "partner.matched";
  n[13] = "partner.timeout";
  n[14] = "player.visibility";
  n[15] = "render.warning";
  return n;
}();
static_assert(event_type_count == 16, "type_names lists every alternative of api::event");

void frame_head(json_out& o, api::tick_number tick) {
  o.raw(R"({"op":"frame","tick":)");
  o.i64(tick);
  o.raw(R"(,"events":[)");
}

void write_id(json_out& o, const request_id& id) {
  if (const auto* i = std::get_if<std::int64_t>(&id)) {
    o.raw(R"(,"id":)");
    o.i64(*i);
  } else if (const auto* s = std::get_if<std::string>(&id)) {
    o.raw(R"(,"id":)");
    o.str(*s);
  }
}

// Handles above this are not tracked (they cannot occur with any sane display limit); their
// updates then pass every dimension filter.
constexpr api::handle_id max_tracked_handle = 1 << 22;

constexpr std::size_t max_pooled_buffers = 16;

} // namespace

std::string_view event_type_name(std::size_t index) noexcept {
  return index < type_names.size() ? type_names[index] : std::string_view{};
}

std::uint32_t event_type_mask(std::string_view selector) noexcept {
  std::uint32_t mask = 0;
  const bool prefix = !selector.empty() && selector.back() == '.';
  for (std::size_t i = 0; i < type_names.size(); ++i) {
    if (prefix ? type_names[i].starts_with(selector) : type_names[i] == selector) {
      mask |= 1U << i;
    }
  }
  return mask;
}

std::string with_dropped(std::string_view frame_line, std::uint64_t dropped) {
  std::string s;
  std::size_t close = frame_line.rfind('}');
  if (close == std::string_view::npos) {
    return std::string(frame_line);
  }
  s.reserve(frame_line.size() + 24);
  s.append(frame_line.substr(0, close));
  json_out o(s);
  o.raw(R"(,"dropped":)");
  o.u64(dropped);
  s.append(frame_line.substr(close));
  return s;
}

core::memo_stats transform_text_memo_stats() noexcept {
  return transform_texts().stats();
}

void encode_event(std::string& out, const api::event& e, bool matrix,
                  const core::cache_options& caches) {
  json_out o(out);
  std::visit(event_writer{o, matrix, caches, std::nullopt}, e);
}

void encode_frame_head(std::string& out, api::tick_number tick) {
  json_out o(out);
  frame_head(o, tick);
}

namespace {

/// The events, each after `sep`: encode_events and encode_frame (whose warnings follow in the
/// same list) share it.
void write_events(json_out& o, json::separator& sep, std::span<const api::event> events,
                  bool matrix, const core::cache_options& caches) {
  event_writer w{o, matrix, caches, std::nullopt};
  // The transform texts' memo slots are loaded a few events ahead of their use; the hashes
  // computed for that wait in a ring until their event is written.
  constexpr std::size_t ahead = 6;
  constexpr std::size_t ring = 8;
  static_assert(ring > ahead);
  std::array<std::optional<std::uint64_t>, ring> hashes{};
  const bool prefetch = !matrix && caches.mode != core::cache_mode::off;
  if (prefetch) {
    for (std::size_t i = 0; i < std::min(ahead, events.size()); ++i) {
      hashes[i % ring] = prefetch_transform(events[i]);
    }
  }
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (prefetch && i + ahead < events.size()) {
      hashes[(i + ahead) % ring] = prefetch_transform(events[i + ahead]);
    }
    sep(o);
    w.transform_hash = prefetch ? hashes[i % ring] : std::nullopt;
    std::visit(w, events[i]);
  }
}

} // namespace

void encode_events(std::string& out, std::span<const api::event> events, bool matrix,
                   const core::cache_options& caches) {
  json_out o(out);
  json::separator sep;
  write_events(o, sep, events, matrix, caches);
}

void encode_frame(std::string& out, const tick_output& t, bool matrix,
                  const core::cache_options& caches) {
  encode_frame_head(out, t.tick());
  json_out o(out);
  json::separator sep;
  try {
    write_events(o, sep, t.frame->events, matrix, caches);
  } catch (core::cache_mismatch& e) {
    e.tick = t.tick();
    throw;
  }
  // render.md §5.4: the renderer's warnings come last.
  event_writer w{o, matrix, caches, std::nullopt};
  for (const api::ev_render_warning& warning : t.warnings) {
    sep(o);
    w(warning);
  }
  out.append(frame_tail);
}

void frame_encoder::begin(const tick_output& t) {
  const api::frame& f = *t.frame;
  packets_ = t.packets;
  warnings_ = t.warnings;
  for (std::size_t form = 0; form < 2; ++form) {
    packets_member_[form].clear();
    packets_ready_[form] = false;
  }
  for (api::session_id s : ended_sessions_) {
    session_dimension_.erase(s);
    session_players_.erase(s);
  }
  for (api::handle_id h : removed_handles_) {
    if (h > 0 && static_cast<std::size_t>(h) < handle_session_.size()) {
      handle_session_[static_cast<std::size_t>(h)] = 0;
    }
  }
  ended_sessions_.clear();
  removed_handles_.clear();
  cache_.clear();
  frame_ = &f;
  dimensions_ready_ = false;

  // Bookkeeping only; what each event's dimension is gets worked out when a filter needs it.
  // Forgetting waits for the next frame, so the lookups see this frame's state either way.
  auto take_part = [this](api::session_id s, const std::string& player) {
    auto& who = session_players_[s];
    if (std::find(who.begin(), who.end(), player) == who.end()) {
      who.push_back(player);
    }
  };
  for (const api::event& e : f.events) {
    if (const auto* c = std::get_if<api::ev_command>(&e)) {
      session_dimension_.try_emplace(c->session, c->dimension);
      take_part(c->session, c->player);
    } else if (const auto* cb = std::get_if<api::ev_callback>(&e)) {
      session_dimension_.try_emplace(cb->session, cb->dimension);
      take_part(cb->session, cb->player);
    } else if (const auto* ps = std::get_if<api::ev_playback_started>(&e)) {
      take_part(ps->session, ps->player);
    } else if (const auto* sp = std::get_if<api::ev_display_spawn>(&e)) {
      session_dimension_.try_emplace(sp->session, sp->dimension);
      if (sp->handle > 0 && sp->handle < max_tracked_handle) {
        const auto h = static_cast<std::size_t>(sp->handle);
        if (handle_session_.size() <= h) {
          handle_session_.resize(h + 1, 0);
        }
        handle_session_[h] = sp->session;
      }
    } else if (const auto* r = std::get_if<api::ev_display_remove>(&e)) {
      removed_handles_.insert(removed_handles_.end(), r->handles.begin(), r->handles.end());
      ended_sessions_.push_back(r->session);
    } else if (const auto* st = std::get_if<api::ev_playback_stopped>(&e)) {
      ended_sessions_.push_back(st->session);
    }
  }
}

void frame_encoder::resolve_dimensions() {
  dimensions_ready_ = true;
  const auto& events = frame_->events;
  event_dimension_.assign(events.size(), std::string_view{});
  auto session_dim = [&](api::session_id s) -> std::string_view {
    auto it = session_dimension_.find(s);
    return it == session_dimension_.end() ? std::string_view{} : std::string_view(it->second);
  };
  for (std::size_t i = 0; i < events.size(); ++i) {
    const api::event& e = events[i];
    std::string_view& dim = event_dimension_[i];
    if (const auto* c = std::get_if<api::ev_command>(&e)) {
      dim = c->dimension;
    } else if (const auto* cb = std::get_if<api::ev_callback>(&e)) {
      dim = cb->dimension;
    } else if (const auto* sp = std::get_if<api::ev_display_spawn>(&e)) {
      dim = sp->dimension;
    } else if (const auto* u = std::get_if<api::ev_display_update>(&e)) {
      if (u->handle > 0 && static_cast<std::size_t>(u->handle) < handle_session_.size()) {
        const api::session_id s = handle_session_[static_cast<std::size_t>(u->handle)];
        if (s != 0) {
          dim = session_dim(s);
        }
      }
    } else if (const auto* m = std::get_if<api::ev_display_move>(&e)) {
      dim = session_dim(m->session);
    } else if (const auto* v = std::get_if<api::ev_display_view>(&e)) {
      dim = session_dim(v->session);
    } else if (const auto* r = std::get_if<api::ev_display_remove>(&e)) {
      dim = session_dim(r->session);
    }
  }
}

bool frame_encoder::about_players(const api::event& e,
                                  const std::vector<std::string>& players) const {
  auto named = [&](const std::string& p) {
    return std::binary_search(players.begin(), players.end(), p);
  };
  auto session = [&](api::session_id s) {
    auto it = session_players_.find(s);
    return it != session_players_.end() && std::any_of(it->second.begin(), it->second.end(), named);
  };
  return std::visit(
      [&](const auto& ev) -> bool {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, api::ev_playback_started> ||
                      std::is_same_v<T, api::ev_playback_stopped> ||
                      std::is_same_v<T, api::ev_command> || std::is_same_v<T, api::ev_callback>) {
          return named(ev.player) || session(ev.session);
        } else if constexpr (std::is_same_v<T, api::ev_player_visibility>) {
          return named(ev.player);
        } else if constexpr (std::is_same_v<T, api::ev_render_warning>) {
          return !ev.player.empty() && named(ev.player); // a node's warning names no player
        } else if constexpr (std::is_same_v<T, api::ev_partner_timeout>) {
          return named(ev.initiator) || session(ev.session);
        } else if constexpr (std::is_same_v<T, api::ev_partner_reserved> ||
                             std::is_same_v<T, api::ev_partner_released> ||
                             std::is_same_v<T, api::ev_partner_matched>) {
          return named(ev.initiator) || named(ev.partner) || session(ev.session);
        } else if constexpr (std::is_same_v<T, api::ev_display_update>) {
          return ev.handle > 0 && static_cast<std::size_t>(ev.handle) < handle_session_.size() &&
                 session(handle_session_[static_cast<std::size_t>(ev.handle)]);
        } else {
          return session(ev.session); // segment.started, display.spawn/move/view/remove
        }
      },
      e);
}

std::shared_ptr<encoded_frame> frame_encoder::take_buffer() {
  for (auto& b : pool_) {
    if (b.use_count() == 1) {
      // Pairs with the release of the last other owner's reference count decrement.
      std::atomic_thread_fence(std::memory_order_acquire);
      b->line.clear();
      b->event_count = 0;
      return b;
    }
  }
  auto b = std::make_shared<encoded_frame>();
  if (pool_.size() < max_pooled_buffers) {
    pool_.push_back(b);
  }
  return b;
}

void frame_encoder::write(std::string& out, const frame_filter& filter, std::size_t& count) {
  if (!filter.dimensions.empty() && !dimensions_ready_) {
    resolve_dimensions();
  }
  json_out o(out);
  frame_head(o, frame_->tick);
  event_writer w{o, filter.matrix, caches_, std::nullopt};
  json::separator sep;
  count = 0;
  const auto& events = frame_->events;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if ((filter.types & (1U << events[i].index())) == 0) {
      continue;
    }
    if (!filter.dimensions.empty()) {
      const std::string_view dim = event_dimension_[i];
      if (!dim.empty() &&
          !std::binary_search(filter.dimensions.begin(), filter.dimensions.end(), dim)) {
        continue;
      }
    }
    if (!filter.players.empty() && !about_players(events[i], filter.players)) {
      continue;
    }
    sep(o);
    std::visit(w, events[i]);
    ++count;
  }
  // render.md §5.4: the renderer's warnings come after the frame's events. They place nothing in
  // a dimension, so only the type and players filters apply.
  static const std::uint32_t warning_type =
      1U << api::event(std::in_place_type<api::ev_render_warning>).index();
  if ((filter.types & warning_type) != 0) {
    for (const api::ev_render_warning& warning : warnings_) {
      if (!filter.players.empty() && !about_players(api::event(warning), filter.players)) {
        continue;
      }
      sep(o);
      w(warning);
      ++count;
    }
  }
  if (filter.packets && !packets_.empty()) {
    const std::size_t form = filter.audiences ? 1 : 0;
    if (!packets_ready_[form]) {
      encode_packets_member(packets_member_[form], packets_, filter.audiences);
      packets_ready_[form] = true;
    }
    o.ch(']');
    o.raw(packets_member_[form]);
    o.raw("}\n");
    return;
  }
  o.raw(frame_tail);
}

std::shared_ptr<const encoded_frame> frame_encoder::encode(const frame_filter& filter) {
  for (const auto& [f, bytes] : cache_) {
    if (f == filter) {
      return bytes;
    }
  }
  auto b = take_buffer();
  if (frame_ != nullptr) {
    try {
      write(b->line, filter, b->event_count);
    } catch (core::cache_mismatch& e) {
      e.tick = frame_->tick;
      throw;
    }
    b->packet_count = filter.packets && !packets_.empty() ? packets_.output->entries.size() : 0;
  }
  cache_.emplace_back(filter, b);
  return b;
}

namespace {

/// The distinct recipient lists of a frame's entries, in the order of their first entry, and
/// each entry's index among them. Entries whose lists are the same range of the renderer's
/// output are matched without reading it; other lists by their contents.
struct audience_index {
  std::vector<std::span<const std::uint32_t>> lists;
  std::vector<std::uint32_t> of_entry;

  explicit audience_index(const render::render_output& r) {
    std::unordered_map<std::uint64_t, std::uint32_t> by_range;
    std::unordered_multimap<std::uint64_t, std::uint32_t> by_content;
    of_entry.reserve(r.entries.size());
    for (const render::packet_entry& e : r.entries) {
      const std::uint64_t range = (std::uint64_t{e.to_begin} << 32) | e.to_count;
      if (const auto it = by_range.find(range); it != by_range.end()) {
        of_entry.push_back(it->second);
        continue;
      }
      const std::span<const std::uint32_t> to = r.to(e);
      std::uint64_t h = 0xcbf29ce484222325ULL ^ to.size();
      for (const std::uint32_t who : to) {
        h = (h ^ who) * 0x100000001b3ULL;
      }
      std::uint32_t index = static_cast<std::uint32_t>(lists.size());
      for (auto [it, end] = by_content.equal_range(h); it != end; ++it) {
        if (std::equal(to.begin(), to.end(), lists[it->second].begin(), lists[it->second].end())) {
          index = it->second;
          break;
        }
      }
      if (index == lists.size()) {
        lists.push_back(to);
        by_content.emplace(h, index);
      }
      by_range.emplace(range, index);
      of_entry.push_back(index);
    }
  }
};

void write_names(json_out& o, std::span<const std::uint32_t> to, const frame_packets& packets) {
  json::separator sep;
  for (const std::uint32_t who : to) {
    sep(o);
    o.str(who < packets.names.size() ? std::string_view(packets.names[who]) : "");
  }
}

} // namespace

void encode_packets_member(std::string& out, const frame_packets& packets, bool audiences) {
  json_out o(out);
  if (audiences) {
    // render.md §6.1: every distinct list once, then entries that name one by index.
    o.raw(R"(,"audiences":[)");
    if (packets.output == nullptr) {
      o.raw(R"(],"packets":[])");
      return;
    }
    const render::render_output& r = *packets.output;
    const audience_index index(r);
    for (json::separator sep; const auto& list : index.lists) {
      sep(o);
      o.ch('[');
      write_names(o, list, packets);
      o.ch(']');
    }
    o.raw(R"(],"packets":[)");
    json::separator sep;
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
      const render::packet_entry& e = r.entries[i];
      sep(o);
      o.raw(R"({"audience":)");
      o.i64(index.of_entry[i]);
      o.raw(R"(,"protocol":)");
      o.i64(e.protocol);
      o.raw(R"(,"data":")");
      core::append_base64(out, r.bytes(e));
      o.raw(R"("})");
    }
    o.ch(']');
    return;
  }
  o.raw(R"(,"packets":[)");
  if (packets.output != nullptr) {
    const render::render_output& r = *packets.output;
    for (json::separator sep; const render::packet_entry& e : r.entries) {
      sep(o);
      o.raw(R"({"to":[)");
      write_names(o, r.to(e), packets);
      o.raw(R"(],"protocol":)");
      o.i64(e.protocol);
      o.raw(R"(,"data":")");
      core::append_base64(out, r.bytes(e));
      o.raw(R"("})");
    }
  }
  o.ch(']');
}

void encode_ok(std::string& out, const request_id& id, api::tick_number tick,
               std::string_view members) {
  json_out o(out);
  o.raw(R"({"op":"reply")");
  write_id(o, id);
  o.raw(R"(,"tick":)");
  o.i64(tick);
  o.raw(R"(,"ok":true)");
  o.raw(members);
  o.raw("}\n");
}

std::string error_detail(const api::error& err, const error_subject* about) {
  static const error_subject none;
  const error_subject& subject = about != nullptr ? *about : none;
  std::string d;
  const auto name = [&](std::string_view what, const std::string& v) {
    if (!v.empty()) {
      d += d.empty() ? "" : " ";
      d += what;
      d += " \"";
      d += v;
      d += '"';
    }
  };
  if (!subject.op.empty()) {
    d += subject.op;
  }
  name("player", subject.player);
  name("emote", subject.emote);
  if (!d.empty()) {
    d += ": ";
  }
  if (!err.path.empty()) {
    d += err.path;
    d += ": ";
  }
  switch (err.code) {
  case api::error_code::unknown_player:
    d += "no player with this key is online";
    break;
  case api::error_code::player_exists:
    d += "a player with this key is already online";
    break;
  case api::error_code::unknown_emote:
    d += "no emote with this id is loaded";
    break;
  case api::error_code::not_playing:
    d += "the player is not playing an emote";
    break;
  case api::error_code::cooldown:
    d += "the emote is on cooldown";
    if (err.remaining_ticks) {
      d += " for " + std::to_string(*err.remaining_ticks) + " more ticks";
    }
    break;
  default:
    d += err.message;
    break;
  }
  return d;
}

void encode_error(std::string& out, const request_id& id, api::tick_number tick,
                  const api::error& err, const error_subject* about) {
  json_out o(out);
  o.raw(R"({"op":"reply")");
  write_id(o, id);
  o.raw(R"(,"tick":)");
  o.i64(tick);
  o.raw(R"(,"ok":false,"error":{"code":)");
  o.str(api::name(err.code));
  o.raw(R"(,"message":)");
  o.str(err.message);
  if (!err.path.empty()) {
    o.raw(R"(,"path":)");
    o.str(err.path);
  }
  if (err.remaining_ticks) {
    o.raw(R"(,"remaining_ticks":)");
    o.i64(*err.remaining_ticks);
  }
  if (err.code == api::error_code::unsupported_protocol) {
    o.raw(R"(,"supported":[1])");
  }
  const auto member = [&](std::string_view key, const std::string& v) {
    if (!v.empty()) {
      o.ch(',');
      o.str(key);
      o.ch(':');
      o.str(v);
    }
  };
  if (about != nullptr) {
    member("op", about->op);
    member("player", about->player);
    member("emote", about->emote);
  }
  o.raw(R"(,"detail":)");
  o.str(error_detail(err, about));
  o.raw("}}\n");
}

void encode_reply(std::string& out, const request_id& id, const api::reply& r,
                  const error_subject* about, const api::unmatched_offer* unmatched) {
  if (r.err) {
    encode_error(out, id, r.tick, *r.err, about);
    return;
  }
  std::string members;
  json_out o(members);
  if (const auto* p = std::get_if<api::play_ok>(&r.payload)) {
    o.raw(R"(,"session":)");
    o.i64(p->session);
    o.raw(R"(,"emote":)");
    o.str(p->emote);
    o.raw(R"(,"role":)");
    o.str(api::name(p->role));
    if (unmatched != nullptr && p->role == api::role::initiator) {
      o.raw(R"(,"unmatched":{"session":)");
      o.i64(unmatched->session);
      o.raw(R"(,"initiator":)");
      o.str(unmatched->initiator);
      o.raw(R"(,"reason":)");
      o.str(api::name(unmatched->reason));
      o.ch('}');
    }
  } else if (const auto* s = std::get_if<api::stop_ok>(&r.payload)) {
    o.raw(R"(,"session":)");
    o.i64(s->session);
  } else if (const auto* c = std::get_if<api::count_ok>(&r.payload)) {
    o.ch(',');
    o.str(c->key);
    o.ch(':');
    o.i64(c->n);
  }
  encode_ok(out, id, r.tick, members);
}

void encode_welcome(std::string& out, const welcome_info& w) {
  json_out o(out);
  o.raw(R"({"op":"welcome","protocol":1,"server":)");
  std::string server = "emote-sim/";
  server.append(w.server_version);
  o.str(server);
  if (!w.build.empty()) {
    o.raw(R"(,"build":)");
    o.str(w.build);
  }
  o.raw(R"(,"tick":)");
  o.i64(w.tick);
  o.raw(R"(,"tps":)");
  o.i64(w.tps);
  o.raw(w.manual_clock ? R"(,"clock":"manual")" : R"(,"clock":"realtime")");
  o.raw(w.observer ? R"(,"role":"observer")" : R"(,"role":"controller")");
  o.raw(R"(,"emotes":)");
  o.i64(w.emotes);
  // Per supported version, the play-state packet ids rendering uses (protocol.md §2), so that a
  // plugin can recognise the backend's packets (render.md §5.5) without tables of its own.
  static constexpr core::enum_names<render::packet_kind, render::packet_kind_count> packet_names{
      {"bundle_delimiter", "spawn_entity", "entity_metadata", "entity_destroy",
       "sync_entity_position", "entity_teleport", "entity_look", "entity_equipment"}};
  o.raw(R"(,"minecraft":{)");
  json::separator sep;
  for (const auto* v : render::versions()) {
    sep(o);
    o.str(std::to_string(v->protocol));
    o.raw(R"(:{"version":)");
    o.str(v->minecraft);
    o.raw(R"(,"packets":{)");
    json::separator psep;
    for (std::size_t k = 0; k < render::packet_kind_count; ++k) {
      if (v->packet_ids[k] < 0) {
        continue;
      }
      psep(o);
      o.str(packet_names(static_cast<render::packet_kind>(k)));
      o.raw(":");
      o.i64(v->packet_ids[k]);
    }
    o.raw(R"(},"byte_serializer":)");
    o.i64(v->serializer_ids[static_cast<std::size_t>(render::serializer::byte)]);
    o.raw(R"(,"player_flags_index":)");
    o.i64(v->player_flags_index);
    o.raw("}");
  }
  o.raw("}}\n");
}

void encode_bye(std::string& out, std::string_view reason) {
  json_out o(out);
  o.raw(R"({"op":"bye")");
  if (!reason.empty()) {
    o.raw(R"(,"reason":)");
    o.str(reason);
  }
  o.raw("}\n");
}

void encode_state_members(std::string& out, const sim::state_snapshot& s,
                          std::span<const render::display_info> displays) {
  json_out o(out);
  o.raw(R"(,"players":[)");
  for (json::separator sep; const auto& p : s.players) {
    sep(o);
    o.raw(R"({"player":)");
    o.str(p.player);
    o.raw(R"(,"session":)");
    if (p.session) {
      o.i64(*p.session);
    } else {
      o.null();
    }
    o.raw(R"(,"role":)");
    if (p.role) {
      o.str(api::name(*p.role));
    } else {
      o.null();
    }
    o.raw(R"(,"reserved":)");
    o.boolean(p.reserved);
    o.raw(R"(,"dimension":)");
    o.str(p.dimension);
    o.raw(R"(,"position":)");
    vec3(o, p.position);
    o.raw(R"(,"yaw":)");
    o.f32(p.yaw);
    if (!p.name.empty()) {
      o.raw(R"(,"name":)");
      o.str(p.name);
    }
    o.ch('}');
  }
  o.raw(R"(],"sessions":[)");
  for (json::separator sep; const auto& e : s.sessions) {
    sep(o);
    o.raw(R"({"session":)");
    o.i64(e.session);
    o.raw(R"(,"emote":)");
    o.str(e.emote);
    o.raw(R"(,"state":)");
    o.str(e.state);
    o.raw(R"(,"tick":)");
    o.i64(e.tick);
    o.raw(R"(,"initiator":)");
    o.str(e.initiator);
    o.raw(R"(,"partner":)");
    if (e.partner) {
      o.str(*e.partner);
    } else {
      o.null();
    }
    o.ch('}');
  }
  o.raw(R"(],"cooldowns":[)");
  for (json::separator sep; const auto& c : s.cooldowns) {
    sep(o);
    o.raw(R"({"player":)");
    o.str(c.player);
    o.raw(R"(,"emote":)");
    o.str(c.emote);
    o.raw(R"(,"state":)");
    o.str(c.state);
    o.raw(R"(,"remaining_ticks":)");
    o.i64(c.remaining_ticks);
    o.ch('}');
  }
  o.raw(R"(],"displays":[)");
  for (json::separator sep; const auto& d : displays) {
    sep(o);
    o.raw(R"({"handle":)");
    o.i64(d.handle);
    o.raw(R"(,"session":)");
    o.i64(d.session);
    o.raw(R"(,"node":)");
    o.str(d.node);
    o.raw(R"(,"kind":)");
    o.str(api::name(d.kind));
    display_content(o, d.kind, d.item, d.item_display, d.block, d.text_json);
    o.raw(R"(,"dimension":)");
    o.str(d.dimension);
    o.raw(R"(,"position":)");
    vec3(o, d.position);
    o.raw(R"(,"yaw":)");
    o.f32(d.yaw);
    o.raw(R"(,"transform":)");
    transform(o, d.transform, false, core::cache_options{}, d.session, d.handle);
    o.raw(R"(,"visible":)");
    o.boolean(d.visible);
    o.ch('}');
  }
  o.ch(']');
  if (s.next) {
    o.raw(R"(,"next":)");
    o.str(*s.next);
  }
}

namespace {
void summary_fields(json_out& o, const emote_summary& e, std::string_view id_key = R"("id":)") {
  o.raw(id_key);
  o.str(e.id);
  o.raw(R"(,"type":)");
  o.str(e.type);
  o.raw(R"(,"name":)");
  o.str(e.name);
  o.raw(R"(,"description":)");
  o.str(e.description);
  o.raw(R"(,"standalone":)");
  o.boolean(e.standalone);
  o.raw(R"(,"duration_ticks":)");
  o.i64(e.duration_ticks);
  o.raw(R"(,"fixed_duration":)");
  o.boolean(e.fixed_duration);
  o.raw(R"(,"cooldown_ticks":)");
  o.i64(e.cooldown_ticks);
  o.raw(R"(,"two_player":)");
  o.boolean(e.two_player);
}
} // namespace

void encode_emote_list_members(std::string& out, const std::vector<emote_summary>& list) {
  json_out o(out);
  o.raw(R"(,"emotes":[)");
  for (json::separator sep; const emote_summary& summary : list) {
    sep(o);
    o.ch('{');
    summary_fields(o, summary);
    o.ch('}');
  }
  o.ch(']');
}

void encode_emote_info_members(std::string& out, const emote_details& d) {
  json_out o(out);
  o.ch(',');
  // The reply's own "id" is the request id (protocol.md §3); the emote's id goes under "emote"
  // (as in the emote.play reply) so that the reply object has no duplicate key.
  summary_fields(o, d.summary, R"("emote":)");
  o.raw(R"(,"nodes":)");
  o.raw(d.nodes_json.empty() ? std::string_view("[]") : std::string_view(d.nodes_json));
  o.raw(R"(,"metadata":)");
  o.raw(d.metadata_json.empty() ? std::string_view("{}") : std::string_view(d.metadata_json));
  if (!d.steps_json.empty()) {
    o.raw(R"(,"steps":)");
    o.raw(d.steps_json);
  }
}

void encode_reload_members(std::string& out, std::int64_t loaded,
                           const core::diagnostics& skipped) {
  json_out o(out);
  o.raw(R"(,"loaded":)");
  o.i64(loaded);
  o.raw(R"(,"skipped":[)");
  json::separator sep;
  for (const auto& d : skipped) {
    if (d.severity != core::severity::error) {
      continue;
    }
    sep(o);
    o.raw(R"({"file":)");
    o.str(d.file);
    o.raw(R"(,"path":)");
    o.str(d.path);
    o.raw(R"(,"line":)");
    o.i64(d.line);
    o.raw(R"(,"column":)");
    o.i64(d.column);
    o.raw(R"(,"message":)");
    o.str(d.message);
    o.ch('}');
  }
  o.ch(']');
}

} // namespace emote::protocol
