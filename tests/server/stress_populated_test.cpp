// The populated-server stress mode (server/stress/stress_populated.hpp): its per-viewer packet
// streams against a slow, direct reading of render.md §4 (tracking) over the same frames and
// positions.
#include "server/stress/stress_populated.hpp"

#include "server/cli/stress_options.hpp"
#include "server/host/content_loader.hpp"

#include "engine/content/model.hpp"
#include "engine/world/player.hpp"
#include "render/tables.hpp"
#include "support/counting_allocator.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

using namespace emote;

namespace {

const std::filesystem::path test_emotes =
    std::filesystem::path(EMOTE_SIM_TEST_DATA) / "server" / "emotes";

std::shared_ptr<const content::catalog> load_test_emotes() {
  auto loaded = server::make_content_loader()->load({test_emotes}, {}, {});
  REQUIRE_MESSAGE(loaded.ok(), (loaded.ok() ? "" : loaded.error()));
  return loaded->catalog;
}

// ---- decoding the entries into per-viewer token streams --------------------------------------

/// What the tracking rules decide, per packet: a whole spawn bundle ("S<id>", render.md §5.1),
/// a destroy ("D<id>,<id>..."), an absolute move ("P<id>") or a look ("L<id>"). Metadata outside
/// a bundle is checked to be about an entity the viewer has, then left out (which entries it
/// carries is render.md §5.2's business, not tracking's).
struct viewer_stream {
  std::vector<std::string> tokens;
  int bundle_state = 0; ///< 0 outside; 1 after the opening delimiter; 2 after spawn; 3 metadata
  std::int32_t bundle_id = 0;
  std::set<std::int32_t> has; ///< the entities the client has, from the packets alone
  std::vector<std::string> errors;
};

std::int32_t varint(std::string_view b, std::size_t& at) {
  std::uint32_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    REQUIRE(at < b.size());
    const auto c = static_cast<std::uint8_t>(b[at++]);
    v |= static_cast<std::uint32_t>(c & 0x7F) << shift;
    if ((c & 0x80) == 0) {
      return static_cast<std::int32_t>(v);
    }
  }
  FAIL("varint too long");
  return 0;
}

void take_packet(viewer_stream& s, const render::version_table& v, std::string_view data) {
  std::size_t at = 0;
  const std::int32_t id = varint(data, at);
  const auto is = [&](render::packet_kind k) {
    return id == v.packet_ids[static_cast<std::size_t>(k)];
  };
  const auto error = [&](const std::string& what) { s.errors.push_back(what); };
  if (is(render::packet_kind::bundle_delimiter)) {
    if (s.bundle_state == 0) {
      s.bundle_state = 1;
    } else if (s.bundle_state >= 2) {
      s.tokens.push_back("S" + std::to_string(s.bundle_id));
      s.bundle_state = 0;
    } else {
      error("empty bundle");
    }
    return;
  }
  if (is(render::packet_kind::spawn_entity)) {
    const std::int32_t e = varint(data, at);
    if (s.bundle_state != 1) {
      error("spawn_entity outside a bundle");
    }
    if (!s.has.insert(e).second) {
      error("spawn of an entity the client has: " + std::to_string(e));
    }
    s.bundle_state = 2;
    s.bundle_id = e;
    return;
  }
  if (is(render::packet_kind::entity_metadata)) {
    const std::int32_t e = varint(data, at);
    if (s.bundle_state == 2 && e == s.bundle_id) {
      s.bundle_state = 3;
    } else if (s.bundle_state != 0) {
      error("metadata inside a bundle of another entity");
    } else if (s.has.count(e) == 0) {
      error("metadata of an entity the client lacks: " + std::to_string(e));
    }
    return;
  }
  if (s.bundle_state != 0) {
    error("a packet inside a bundle");
  }
  if (is(render::packet_kind::entity_destroy)) {
    const std::int32_t n = varint(data, at);
    std::string t = "D";
    for (std::int32_t k = 0; k < n; ++k) {
      const std::int32_t e = varint(data, at);
      if (s.has.erase(e) == 0) {
        error("destroy of an entity the client lacks: " + std::to_string(e));
      }
      t += (k == 0 ? "" : ",") + std::to_string(e);
    }
    s.tokens.push_back(t);
    return;
  }
  if (is(render::packet_kind::sync_entity_position) || is(render::packet_kind::entity_teleport)) {
    s.tokens.push_back("P" + std::to_string(varint(data, at)));
    return;
  }
  if (is(render::packet_kind::entity_look)) {
    s.tokens.push_back("L" + std::to_string(varint(data, at)));
    return;
  }
  error("unexpected packet id " + std::to_string(id));
}

// ---- the reference: render.md §4 read literally ------------------------------------------

struct viewer_pos {
  std::string id;
  double x = 0, z = 0;
  std::string dimension;
};

struct tick_log {
  std::vector<api::event> events; ///< the frame's display events
  std::vector<viewer_pos> viewers;
  std::vector<std::vector<std::string>> streams; ///< per viewer (join order), decoded
};

struct ref_display {
  api::session_id session = 0;
  api::space space = api::space::scene;
  double x = 0, z = 0;
  std::string dimension;
};

/// Replays the log through render.md §4 with display range `range` (blocks) and returns the
/// (tick, viewer) pairs whose stream differs, with the first difference described.
std::vector<std::string> reference_mismatches(const std::vector<tick_log>& log, double range,
                                              std::int64_t entity_id_base) {
  std::vector<std::string> mismatches;
  std::map<api::handle_id, ref_display> live;
  std::map<std::string, std::set<api::handle_id>> tracked; // per viewer id
  const auto eid = [&](api::handle_id h) { return std::to_string(entity_id_base + h); };
  for (std::size_t t = 0; t < log.size(); ++t) {
    const tick_log& tl = log[t];
    std::map<std::string, std::vector<std::string>> expect;
    const auto in_range = [&](const viewer_pos& v, const ref_display& d) {
      // render.md §4: same dimension and dx² + dz² ≤ R², R = min(display_range, vd × 16).
      const double dx = d.x - v.x, dz = d.z - v.z;
      return v.dimension == d.dimension && dx * dx + dz * dz <= range * range;
    };
    // Rule 3: viewers that left are forgotten.
    for (auto it = tracked.begin(); it != tracked.end();) {
      const bool online = std::any_of(tl.viewers.begin(), tl.viewers.end(),
                                      [&](const viewer_pos& v) { return v.id == it->first; });
      it = online ? std::next(it) : tracked.erase(it);
    }
    // Removed in this frame: spawned and removed in one frame sends nothing (rule 1).
    std::set<std::pair<api::session_id, api::handle_id>> removed;
    for (const api::event& e : tl.events) {
      if (const auto* rm = std::get_if<api::ev_display_remove>(&e)) {
        for (api::handle_id h : rm->handles) {
          removed.emplace(rm->session, h);
        }
      }
    }
    // Rule 1, per run of one session's events: spawns, then changes (ascending handle), then
    // removes.
    std::size_t k = 0;
    while (k < tl.events.size()) {
      // A display.update belongs to its display's session (the renderer ignores one of a
      // display it does not know).
      const auto session_of = [&](const api::event& e) -> std::optional<api::session_id> {
        if (const auto* up = std::get_if<api::ev_display_update>(&e)) {
          const auto it = live.find(up->handle);
          return it == live.end() ? std::nullopt : std::optional(it->second.session);
        }
        if (const auto* sp = std::get_if<api::ev_display_spawn>(&e)) {
          return sp->session;
        }
        if (const auto* mv = std::get_if<api::ev_display_move>(&e)) {
          return mv->session;
        }
        if (const auto* vw = std::get_if<api::ev_display_view>(&e)) {
          return vw->session;
        }
        if (const auto* rm = std::get_if<api::ev_display_remove>(&e)) {
          return rm->session;
        }
        return std::nullopt;
      };
      const auto s = session_of(tl.events[k]);
      if (!s) {
        ++k;
        continue;
      }
      std::set<api::handle_id> moved, turned;
      for (; k < tl.events.size(); ++k) {
        const auto here = session_of(tl.events[k]);
        if (here && *here != *s) {
          break;
        }
        const api::event& e = tl.events[k];
        if (const auto* sp = std::get_if<api::ev_display_spawn>(&e)) {
          if (removed.count({sp->session, sp->handle}) != 0) {
            continue;
          }
          live[sp->handle] =
              ref_display{sp->session, sp->space, sp->position.x, sp->position.z, sp->dimension};
          for (const viewer_pos& v : tl.viewers) {
            if (in_range(v, live[sp->handle])) {
              expect[v.id].push_back("S" + eid(sp->handle));
              tracked[v.id].insert(sp->handle);
            }
          }
        } else if (const auto* mv = std::get_if<api::ev_display_move>(&e)) {
          for (auto& [h, d] : live) {
            if (d.session == mv->session && d.space == mv->space) {
              d.x = mv->position.x;
              d.z = mv->position.z;
              moved.insert(h);
            }
          }
        } else if (const auto* vw = std::get_if<api::ev_display_view>(&e)) {
          for (auto& [h, d] : live) {
            if (d.session == vw->session) {
              turned.insert(h);
            }
          }
        } else if (const auto* rm = std::get_if<api::ev_display_remove>(&e)) {
          // Changes of the session so far go out before its removal.
          std::set<api::handle_id> changed = moved;
          changed.insert(turned.begin(), turned.end());
          for (api::handle_id h : changed) {
            for (const viewer_pos& v : tl.viewers) {
              if (tracked[v.id].count(h) != 0) {
                if (moved.count(h) != 0) {
                  expect[v.id].push_back("P" + eid(h));
                }
                if (turned.count(h) != 0) {
                  expect[v.id].push_back("L" + eid(h));
                }
              }
            }
          }
          moved.clear();
          turned.clear();
          std::set<api::handle_id> gone(rm->handles.begin(), rm->handles.end());
          for (const viewer_pos& v : tl.viewers) {
            std::string ids;
            for (api::handle_id h : gone) {
              if (live.count(h) != 0 && live[h].session == rm->session &&
                  tracked[v.id].erase(h) != 0) {
                ids += (ids.empty() ? "" : ",") + eid(h);
              }
            }
            if (!ids.empty()) {
              expect[v.id].push_back("D" + ids);
            }
          }
          for (api::handle_id h : gone) {
            if (live.count(h) != 0 && live[h].session == rm->session) {
              live.erase(h);
            }
          }
        }
      }
      std::set<api::handle_id> changed = moved;
      changed.insert(turned.begin(), turned.end());
      for (api::handle_id h : changed) {
        for (const viewer_pos& v : tl.viewers) {
          if (tracked[v.id].count(h) != 0) {
            if (moved.count(h) != 0) {
              expect[v.id].push_back("P" + eid(h));
            }
            if (turned.count(h) != 0) {
              expect[v.id].push_back("L" + eid(h));
            }
          }
        }
      }
    }
    // Rule 2: the tracking pass, per viewer in join order.
    for (const viewer_pos& v : tl.viewers) {
      std::set<api::handle_id>& mine = tracked[v.id];
      std::string ids;
      for (auto it = mine.begin(); it != mine.end();) {
        if (!in_range(v, live.at(*it))) {
          ids += (ids.empty() ? "" : ",") + eid(*it);
          it = mine.erase(it);
        } else {
          ++it;
        }
      }
      if (!ids.empty()) {
        expect[v.id].push_back("D" + ids);
      }
      for (const auto& [h, d] : live) {
        if (in_range(v, d) && mine.insert(h).second) {
          expect[v.id].push_back("S" + eid(h));
        }
      }
    }
    for (std::size_t i = 0; i < tl.viewers.size(); ++i) {
      const std::vector<std::string>& want = expect[tl.viewers[i].id];
      const std::vector<std::string>& got = tl.streams[i];
      if (want != got) {
        std::ostringstream m;
        m << "tick " << t << " viewer " << tl.viewers[i].id << ": expected";
        for (const auto& x : want) {
          m << ' ' << x;
        }
        m << "; got";
        for (const auto& x : got) {
          m << ' ' << x;
        }
        mismatches.push_back(m.str());
      }
    }
  }
  return mismatches;
}

server::populated_options small_case() {
  server::populated_options o;
  o.players = 8;
  o.area = 360;  // about two display ranges across: players walk in and out of range
  o.speed = 2.0; // blocks per tick: many range crossings in a few ticks
  o.turn = 30;
  o.warmup = 12;
  o.seed = 7;
  o.ticks = 0;
  o.paced = false;
  return o;
}

/// Runs the small case for `ticks` ticks and logs every tick's events, positions and streams.
std::vector<tick_log> run_and_log(const server::populated_options& o, std::int64_t ticks,
                                  double& avg_sessions) {
  server::populated_run run(load_test_emotes(), o);
  const render::version_table* table = render::find_version(o.protocol);
  REQUIRE(table != nullptr);
  std::vector<tick_log> log;
  std::vector<viewer_stream> streams(o.players);
  avg_sessions = 0;
  for (std::int64_t t = 0; t < ticks; ++t) {
    run.step();
    tick_log tl;
    for (const api::event& e : run.frame().events) {
      if (std::holds_alternative<api::ev_display_spawn>(e) ||
          std::holds_alternative<api::ev_display_move>(e) ||
          std::holds_alternative<api::ev_display_view>(e) ||
          std::holds_alternative<api::ev_display_update>(e) ||
          std::holds_alternative<api::ev_display_remove>(e)) {
        tl.events.push_back(e);
      }
      CHECK_FALSE(std::holds_alternative<api::ev_player_visibility>(e));
    }
    REQUIRE(run.viewers().size() == o.players);
    for (const world::player_state* p : run.viewers()) {
      tl.viewers.push_back(viewer_pos{p->id, p->pos.x, p->pos.z, p->dimension});
    }
    for (viewer_stream& s : streams) {
      s.tokens.clear();
    }
    const render::render_output& out = run.packets();
    for (const render::packet_entry& e : out.entries) {
      CHECK(e.protocol == o.protocol);
      for (std::uint32_t to : out.to(e)) {
        REQUIRE(to < streams.size());
        take_packet(streams[to], *table, out.bytes(e));
      }
    }
    for (viewer_stream& s : streams) {
      CHECK_MESSAGE(s.bundle_state == 0, "a bundle left open at the end of tick ", t);
      for (const std::string& err : s.errors) {
        FAIL_CHECK("tick ", t, ": ", err);
      }
      s.errors.clear();
      tl.streams.push_back(s.tokens);
    }
    log.push_back(std::move(tl));
    if (t >= o.warmup) {
      avg_sessions += static_cast<double>(run.sessions()) / static_cast<double>(ticks - o.warmup);
    }
  }
  CHECK(run.play_failures() == 0);
  CHECK(run.other_stops() == 0);
  return log;
}

std::size_t count_tokens(const std::vector<tick_log>& log, char kind) {
  std::size_t n = 0;
  for (const tick_log& tl : log) {
    for (const auto& s : tl.streams) {
      n += static_cast<std::size_t>(std::count_if(
          s.begin(), s.end(), [&](const std::string& x) { return x.front() == kind; }));
    }
  }
  return n;
}

} // namespace

TEST_CASE("populated stress: every viewer's stream is render.md §4's, and the check can fail") {
  const server::populated_options o = small_case();
  double avg_sessions = 0;
  const std::vector<tick_log> log = run_and_log(o, 120, avg_sessions);

  // The case exercises what it claims: players keep playing (restarted in the tick after they
  // finish; the test Animations last 6 to 30 ticks), and displays enter and leave the viewers'
  // range by walking, not only by spawning and removal.
  CHECK(avg_sessions >= 0.75 * static_cast<double>(o.players));
  CHECK(count_tokens(log, 'S') > 100);
  CHECK(count_tokens(log, 'D') > 50);
  CHECK(count_tokens(log, 'P') > 1000);

  const double range = 160; // min(display_range 160, view distance 10 × 16)
  const std::vector<std::string> exact = reference_mismatches(log, range, 1'000'000'000);
  for (std::size_t k = 0; k < std::min<std::size_t>(exact.size(), 5); ++k) {
    FAIL_CHECK(exact[k]);
  }
  CHECK(exact.empty());

  // The comparison notices a range one block off either way.
  CHECK_FALSE(reference_mismatches(log, range - 1, 1'000'000'000).empty());
  CHECK_FALSE(reference_mismatches(log, range + 1, 1'000'000'000).empty());
}

TEST_CASE("populated stress: the same seed gives the same packets; the animations follow") {
  server::populated_options o = small_case();
  o.players = 4;
  auto run_bytes = [&](std::int64_t seed) {
    server::populated_options s = o;
    s.seed = seed;
    server::populated_run run(load_test_emotes(), s);
    std::string all;
    for (int t = 0; t < 40; ++t) {
      run.step();
      all += run.packets().data;
      for (const auto& e : run.packets().entries) {
        all.append(reinterpret_cast<const char*>(&e), sizeof e);
      }
    }
    return all;
  };
  const std::string a = run_bytes(7);
  CHECK(a == run_bytes(7));
  CHECK(a != run_bytes(8));

  // Every Animation of the catalog, with movement_distance 0 (players.md §7.9).
  const auto source = load_test_emotes();
  const auto follow = server::following_animations(*source);
  CHECK(follow->size() == source->animation_count());
  for (const content::catalog_entry& e : follow->entries()) {
    REQUIRE(e.animation);
    CHECK(e.animation->settings.player.stop_conditions.movement_distance == 0);
    CHECK(source->find(e.id) != nullptr);
  }
}

TEST_CASE("populated stress: the report reads every entry") {
  server::populated_options o = small_case();
  o.players = 6;
  o.ticks = 30;
  const server::populated_report r = server::run_populated(load_test_emotes(), o);
  CHECK(r.ticks == 30);
  CHECK(r.mspt.sampled == 30);
  CHECK(r.players == 6);
  CHECK(r.sessions.avg >= 4);
  CHECK(r.entries.avg > 0);
  CHECK(r.packets.avg >= r.entries.avg);
  // Per entry: a 12-byte head, 4 bytes per recipient, and the packet.
  CHECK(r.read_bytes.avg > r.packet_bytes.avg / 6);
  CHECK(r.play_failures == 0);
  const std::string json = server::populated_report_json(r);
  CHECK(json.find("\"mode\":\"populated\"") != std::string::npos);
  CHECK(json.find("\"packets_per_tick\":{\"avg\":") != std::string::npos);
  // Same seed, same bytes read; rendering one tick behind on a second thread reads the same.
  CHECK_FALSE(r.pipelined); // serve steps the Engine and the renderer on one thread
  CHECK(server::run_populated(load_test_emotes(), o).checksum == r.checksum);
  o.pipelined = true;
  const server::populated_report piped = server::run_populated(load_test_emotes(), o);
  CHECK(piped.pipelined);
  CHECK(piped.checksum == r.checksum);
}

TEST_CASE("populated stress: command-line options") {
  std::vector<server::cli_option> options(server::populated_cli_options().begin(),
                                          server::populated_cli_options().end());
  options.push_back(server::value_option("instances", "N", ""));
  const auto parse = [&](std::vector<std::string_view> argv, server::populated_options& o) {
    auto args = server::cli_args::parse(argv, options);
    REQUIRE(args.ok());
    return std::pair{server::populated_selected(*args), server::parse_populated_options(*args, o)};
  };
  server::populated_options o;
  auto [selected, error] = parse({"--players", "250", "--area", "700.5", "--seed", "-3"}, o);
  CHECK(selected);
  CHECK(error.empty());
  CHECK(o.players == 250);
  CHECK(o.area == 700.5);
  CHECK(o.seed == -3);
  CHECK_FALSE(o.pipelined); // serve's order: the Engine, then the renderer, on one thread
  CHECK(parse({"--players", "5", "--pipelined"}, o).second.empty());
  CHECK(o.pipelined);
  CHECK_FALSE(parse({"--area", "10"}, o).first);
  CHECK(parse({"--players", "0"}, o).second == "--players must be an integer 1..100000");
  CHECK(parse({"--players", "12x"}, o).second == "--players must be an integer 1..100000");
  CHECK(parse({"--players", "5", "--area", "nan"}, o).second ==
        "--area must be a number of blocks 1..1000000");
  CHECK(parse({"--players", "5", "--instances", "5"}, o).second ==
        "--players cannot be combined with --instances");
}

// Steady-state rendering allocates nothing: players walking in and out of each other's range
// while a looping Animation plays (no restarts, so no new playbacks or displays); the renderer's
// step is measured. (The Engine's player.update copies the player's state, `dimension` string
// included, so applying the walk allocates once per update; that is the Engine's, not this
// test's.)
TEST_CASE("populated stress: steady-state ticks allocate nothing") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "emote_sim_populated_alloc";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(test_emotes / "t.wave.json", dir / "t.wave.json");
  auto loaded = server::make_content_loader()->load({dir}, {}, {});
  REQUIRE(loaded.ok());
  REQUIRE(loaded->catalog->animation_count() == 1);

  server::populated_options o = small_case();
  o.players = 12;
  o.warmup = 1;
  o.ticks = 0;
  server::populated_run run(loaded->catalog, o);
  std::uint64_t spawns_and_destroys = 0, allocations = 0;
  const render::version_table& table = *render::find_version(o.protocol);
  const auto tick = [&] {
    run.inputs();
    run.engine_step();
    const testing::allocation_scope scope;
    run.render_step();
    allocations += scope.allocations();
    const render::render_output& out = run.packets();
    for (const render::packet_entry& e : out.entries) {
      const auto id = static_cast<std::uint8_t>(out.bytes(e).front());
      spawns_and_destroys +=
          id == table.packet_ids[static_cast<std::size_t>(render::packet_kind::spawn_entity)] ||
          id == table.packet_ids[static_cast<std::size_t>(render::packet_kind::entity_destroy)];
    }
  };
  for (int t = 0; t < 400; ++t) { // capacities grow to what the walks need
    tick();
  }
  CHECK(run.sessions() == o.players);
  const std::uint64_t plays = run.plays();
  spawns_and_destroys = 0;
  allocations = 0;
  for (int t = 0; t < 100; ++t) {
    tick();
  }
  CHECK(allocations == 0);
  CHECK(run.plays() == plays);
  CHECK(spawns_and_destroys > 20); // tracking changed in the measured ticks
  std::filesystem::remove_all(dir);
}
