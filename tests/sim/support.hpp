#pragma once
// Test support for the Engine: the fixture emotes of tests/data/sim (plus documents written
// inline), a harness that drives the Engine through apply/step and keeps every frame, and short
// textual forms of the players.md §9 records so a test can compare them, in order, exactly.

#include "engine/api/event.hpp"
#include "engine/api/types.hpp"
#include "engine/content/loader.hpp"
#include "engine/content/model.hpp"
#include "engine/sim/engine.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace simtest {

using namespace emote;
using core::dvec3;
using strings = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// content

/// Every file of tests/data/sim, in name order.
inline std::vector<content::memory_file> fixture_files() {
  std::vector<content::memory_file> out;
  const std::filesystem::path dir = std::filesystem::path(EMOTE_SIM_TEST_DATA) / "sim";
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".json") {
      paths.push_back(e.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back({p.filename().string(), ss.str()});
  }
  return out;
}

/// The fixtures plus `extra` documents (named extra0.json, …), loaded as one content set.
inline std::shared_ptr<const content::catalog> load(const std::vector<std::string>& extra = {},
                                                    const std::vector<std::string>& disabled = {},
                                                    bool with_fixtures = true) {
  std::vector<content::memory_file> files;
  if (with_fixtures) {
    files = fixture_files();
  }
  for (std::size_t i = 0; i < extra.size(); ++i) {
    files.push_back({"extra" + std::to_string(i) + ".json", extra[i]});
  }
  content::load_options opt;
  opt.disabled = disabled;
  opt.quirk_warnings = false;
  auto c = content::load_files(std::move(files), opt);
  for (const auto& d : c->diagnostics()) {
    if (d.severity == core::severity::error) {
      FAIL_CHECK(d.file << ": " << d.path << ": " << d.message);
    }
  }
  return c;
}

/// A one-display Animation written inline, for the settings a test varies.
struct anim_spec {
  std::string id;
  std::int64_t duration = 200;
  std::string mode = "once";
  std::int64_t loop_delay = 0;
  std::int64_t cooldown = 0;
  bool standalone = true;
  bool hidden = false;
  double md = 0.1;
  bool jump = true, submerge = true, ride = true, damage = true, attack = true, game_mode = true;
  int displays = 1; ///< item displays under one anchor
  std::string tracks = "{}";
  std::string events = "{}";
};

inline std::string json_bool(bool b) {
  return b ? "true" : "false";
}

inline std::string animation_json(const anim_spec& s) {
  std::ostringstream o;
  o << R"({"type":"animation","schema_version":4,"id":")" << s.id
    << R"(","metadata":{"name":"t","description":""},"settings":{"standalone":)"
    << json_bool(s.standalone) << R"(,"cooldown":")" << s.cooldown
    << R"(t","rotation_deadzone":0,"player":{"hidden":)" << json_bool(s.hidden)
    << R"(,"stop_conditions":{"movement_distance":)" << s.md << R"(,"jump":)" << json_bool(s.jump)
    << R"(,"submerge":)" << json_bool(s.submerge) << R"(,"ride":)" << json_bool(s.ride)
    << R"(,"damage":)" << json_bool(s.damage) << R"(,"attack":)" << json_bool(s.attack)
    << R"(,"game_mode_change":)" << json_bool(s.game_mode) << R"(}},"playback":{"mode":")" << s.mode
    << R"(","loop_delay":")" << s.loop_delay
    << R"(t"}},"nodes":{"root":{"type":"anchor","space":"initiator","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}})";
  for (int i = 0; i < s.displays; ++i) {
    o << R"(,"d)" << i
      << R"(":{"type":"item_display","parent":"root","item_stack_snbt":"{id:\"minecraft:stone\",count:1}","item_display":"none","transform":{"position":[0,)"
      << i << R"(,0],"rotation":[0,0,0],"scale":[1,1,1]}})";
  }
  o << R"(},"timeline":{"duration":")" << s.duration << R"(t","tracks":)" << s.tracks
    << R"(,"events":)" << s.events << "}}";
  return o.str();
}

// ---------------------------------------------------------------------------------------------
// records

inline std::string describe(const api::event& e) {
  std::ostringstream o;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, api::ev_player_visibility>) {
          o << "vis(" << v.player << "," << json_bool(v.hidden) << ","
            << (v.blank_equipment ? "blank" : "real") << ")";
        } else if constexpr (std::is_same_v<T, api::ev_playback_started>) {
          o << "started(" << v.session << "," << v.player << "," << v.emote << ","
            << api::name(v.role) << ")";
        } else if constexpr (std::is_same_v<T, api::ev_playback_stopped>) {
          o << "stopped(" << v.session << "," << v.player << "," << v.emote << ","
            << api::name(v.reason) << ")";
        } else if constexpr (std::is_same_v<T, api::ev_partner_reserved>) {
          o << "reserved(" << v.session << "," << v.initiator << "," << v.partner << ")";
        } else if constexpr (std::is_same_v<T, api::ev_partner_released>) {
          o << "released(" << v.session << "," << v.initiator << "," << v.partner << ","
            << api::name(v.why) << ")";
        } else if constexpr (std::is_same_v<T, api::ev_partner_matched>) {
          o << "matched(" << v.session << "," << v.initiator << "," << v.partner << ")";
        } else if constexpr (std::is_same_v<T, api::ev_partner_timeout>) {
          o << "timeout(" << v.session << "," << v.initiator << ")";
        } else if constexpr (std::is_same_v<T, api::ev_command>) {
          o << "command(" << v.session << "," << v.command << ")";
        } else if constexpr (std::is_same_v<T, api::ev_callback>) {
          o << "callback(" << v.session << "," << v.name << ")";
        } else if constexpr (std::is_same_v<T, api::ev_segment_started>) {
          o << "segment(" << v.session << "," << v.animation << "," << api::name(v.branch) << ")";
        } else if constexpr (std::is_same_v<T, api::ev_display_spawn>) {
          o << "spawn(" << v.session << "," << v.handle << ")";
        } else if constexpr (std::is_same_v<T, api::ev_display_remove>) {
          o << "remove(" << v.session << ")";
        } else if constexpr (std::is_same_v<T, api::ev_display_move>) {
          o << "move(" << v.session << ")";
        } else if constexpr (std::is_same_v<T, api::ev_display_view>) {
          o << "view(" << v.session << ")";
        } else if constexpr (std::is_same_v<T, api::ev_display_update>) {
          o << "update(" << v.handle << ")";
        }
      },
      e);
  return o.str();
}

inline bool is_record(const api::event& e) {
  return std::holds_alternative<api::ev_player_visibility>(e) ||
         std::holds_alternative<api::ev_playback_started>(e) ||
         std::holds_alternative<api::ev_playback_stopped>(e) ||
         std::holds_alternative<api::ev_partner_reserved>(e) ||
         std::holds_alternative<api::ev_partner_released>(e) ||
         std::holds_alternative<api::ev_partner_matched>(e) ||
         std::holds_alternative<api::ev_partner_timeout>(e);
}

template <class T>
std::vector<const T*> all_of(const api::frame& f) {
  std::vector<const T*> out;
  for (const auto& e : f.events) {
    if (const T* p = std::get_if<T>(&e)) {
      out.push_back(p);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// harness

inline api::player_fields at(dvec3 pos, float yaw = 0) {
  api::player_fields f;
  f.position = pos;
  f.yaw = yaw;
  return f;
}

class harness {
public:
  explicit harness(sim::engine_config config = {}, const std::vector<std::string>& extra = {},
                   bool with_fixtures = true)
      : eng(load(extra, config.disabled, with_fixtures), config) {}

  sim::engine eng;
  std::map<api::tick_number, api::frame> frames;

  api::reply join(const std::string& player, dvec3 pos, float yaw = 0,
                  api::player_fields fields = {}) {
    api::player_join j;
    j.player = player;
    j.fields = std::move(fields);
    j.fields.position = pos;
    if (!j.fields.yaw) {
      j.fields.yaw = yaw;
    }
    return eng.apply(j);
  }
  api::reply play(const std::string& player, const std::string& emote,
                  api::play_source source = api::play_source::command, bool bypass = false,
                  std::optional<api::placement> placement = std::nullopt) {
    api::emote_play p;
    p.player = player;
    p.emote = emote;
    p.source = source;
    p.bypass = bypass;
    p.placement = placement;
    return eng.apply(p);
  }
  api::reply update(const std::string& player, api::player_fields f) {
    return eng.apply(api::player_update{player, std::move(f)});
  }
  api::reply move(const std::string& player, dvec3 pos) {
    api::player_fields f;
    f.position = pos;
    return update(player, f);
  }
  api::reply turn(const std::string& player, float yaw) {
    api::player_fields f;
    f.yaw = yaw;
    return update(player, f);
  }
  api::reply event(const std::string& player, api::player_event_kind kind, double amount = 0,
                   bool lethal = false) {
    api::player_event e;
    e.player = player;
    e.kind = kind;
    e.amount = amount;
    e.lethal = lethal;
    return eng.apply(e);
  }
  api::reply stop(const std::string& player) { return eng.apply(api::emote_stop{player}); }
  api::reply leave(const std::string& player) { return eng.apply(api::player_leave{player}); }
  api::reply blocks(std::int32_t x, std::int32_t y, std::int32_t z, api::block_kind k,
                    const std::string& dim = "minecraft:overworld") {
    api::world_blocks wb;
    wb.dimension = dim;
    api::block_edit e;
    e.from[0] = e.to[0] = x;
    e.from[1] = e.to[1] = y;
    e.from[2] = e.to[2] = z;
    e.kind = k;
    wb.edits.push_back(e);
    return eng.apply(wb);
  }

  /// Run the current tick and keep its frame.
  const api::frame& step() {
    const api::frame& f = eng.step();
    frames[f.tick] = f;
    return frames[f.tick];
  }
  /// Step until `tick` is the tick accepting inputs.
  void run_to(api::tick_number tick) {
    while (eng.tick() < tick) {
      step();
    }
  }

  [[nodiscard]] const api::frame& frame(api::tick_number t) {
    static const api::frame empty;
    const auto it = frames.find(t);
    return it == frames.end() ? empty : it->second;
  }
  /// The players.md §9 records of tick t, in frame order.
  strings records(api::tick_number t) {
    strings out;
    for (const auto& e : frame(t).events) {
      if (is_record(e)) {
        out.push_back(describe(e));
      }
    }
    return out;
  }
  /// Every event of tick t.
  strings events(api::tick_number t) {
    strings out;
    for (const auto& e : frame(t).events) {
      out.push_back(describe(e));
    }
    return out;
  }
  /// Every players.md §9 record of every frame so far, as "T:record".
  strings all_records() {
    strings out;
    for (const auto& [t, f] : frames) {
      for (const auto& e : f.events) {
        if (is_record(e)) {
          out.push_back(std::to_string(t) + ":" + describe(e));
        }
      }
    }
    return out;
  }
  /// The players.md §9 records of all frames matching `needle` (substring).
  strings find(const std::string& needle) {
    strings out;
    for (const auto& r : all_records()) {
      if (r.find(needle) != std::string::npos) {
        out.push_back(r);
      }
    }
    return out;
  }

  [[nodiscard]] std::optional<sim::state_snapshot::session_entry> session(api::session_id id) {
    for (const auto& s : eng.state(std::nullopt).sessions) {
      if (s.session == id) {
        return s;
      }
    }
    return std::nullopt;
  }
  [[nodiscard]] std::string phase(api::session_id id) {
    const auto s = session(id);
    return s ? s->state : std::string("gone");
  }
  [[nodiscard]] std::optional<sim::state_snapshot::cooldown_entry>
  cooldown(const std::string& player, const std::string& emote) {
    for (const auto& c : eng.state(player).cooldowns) {
      if (c.emote == emote) {
        return c;
      }
    }
    return std::nullopt;
  }
};

inline std::string code(const api::reply& r) {
  return r.err ? std::string(api::name(r.err->code)) : std::string("ok");
}
inline std::string message(const api::reply& r) {
  return r.err ? r.err->message : std::string();
}
inline api::session_id session_of(const api::reply& r) {
  const auto* ok = std::get_if<api::play_ok>(&r.payload);
  return ok != nullptr ? ok->session : 0;
}
inline std::string role_of(const api::reply& r) {
  const auto* ok = std::get_if<api::play_ok>(&r.payload);
  return ok != nullptr ? std::string(api::name(ok->role)) : std::string();
}
/// The engine's `last_unmatched` after a play (players.md §7.3) as "SESSION,INITIATOR,REASON";
/// "" when there is none.
inline std::string unmatched_of(const sim::engine& e) {
  const auto& u = e.last_unmatched();
  if (!u) {
    return {};
  }
  return std::to_string(u->session) + "," + u->initiator + "," + std::string(api::name(u->reason));
}

} // namespace simtest
