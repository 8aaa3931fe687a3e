// Randomised property test of the renderer (render.md §4-§6): random sessions, changes and
// removals, viewers that walk, join, leave, reset and resync. Each viewer's packets drive a model
// of its client; after every tick
//   * every packet decodes, bundles are closed, spawns are only of untracked entities and every
//     other display packet only of tracked ones (the client never sees an unknown id);
//   * what a viewer's client tracks is exactly the live displays in its range (§4);
//   * two clients of one version that track the same entity hold the same state (position, yaw,
//     every metadata value), however late one of them started tracking it (§5.2 "changed is the
//     same for every viewer").

#include "render/content.hpp"
#include "render/metadata.hpp"
#include "render/packets.hpp"
#include "tests/render/fixture.hpp"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

using namespace emote;
using namespace emote::render;
using namespace emote::render::test;

namespace {

struct entity_model {
  entity_kind kind = entity_kind::item_display;
  double x = 0, y = 0, z = 0;
  std::int8_t yaw = 0;
  std::map<int, std::string> meta; ///< index -> value bytes (serializer id and value)
};

struct client_model {
  std::map<std::int32_t, entity_model> entities;
  bool in_bundle = false;
};

/// The bytes of an entry at its default, as an entity_metadata packet would carry them.
std::string default_raw(const version_table& v, entity_kind kind, std::uint8_t index) {
  const metadata_slot* s = nullptr;
  for (const metadata_slot& slot : layout(v, kind).slots) {
    s = slot.index == index ? &slot : s;
  }
  if (s == nullptr) {
    return {};
  }
  std::string empty;
  byte_writer ew(empty);
  warnings none;
  if (s->kind == serializer::item_stack) {
    write_item_stack(ew, v, "", nullptr, none);
  } else if (s->kind == serializer::component) {
    write_text_component(ew, v, "", none);
  }
  metadata_entry e;
  e.index = index;
  e.kind = s->kind;
  const entry_value d = default_value(*s);
  e.i = d.i;
  e.f = d.f;
  e.raw = empty;
  std::string packet;
  byte_writer w(packet);
  write_entity_metadata(w, v, 1, std::span<const metadata_entry>(&e, 1));
  const decoded dec = decode(v, packet);
  return std::to_string(dec.metadata.at(0).serializer) + ":" + dec.metadata.at(0).raw;
}

std::map<int, std::string> normalized(const version_table& v, const entity_model& m) {
  std::map<int, std::string> out;
  for (const auto& [index, raw] : m.meta) {
    const std::string def = default_raw(v, m.kind, static_cast<std::uint8_t>(index));
    if (raw != def) {
      out[index] = raw;
    }
  }
  return out;
}

} // namespace

TEST_CASE("random ticks: every client's view is consistent with the tracking rules") {
  for (std::uint32_t seed : {1U, 2U, 3U, 4U}) {
    CAPTURE(seed);
    std::mt19937 rng(seed);
    auto pick = [&](std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); };
    render_config cfg;
    cfg.entity_id_base = 1000;
    fixture fx(cfg);
    const std::int32_t protocols[] = {767, 769, 775};
    const char* dims[] = {"minecraft:overworld", "minecraft:the_nether"};
    std::map<std::string, client_model> clients;
    int next_player = 0;
    auto add_player = [&] {
      const std::string id = "p" + std::to_string(next_player++);
      auto& p = fx.add(id, protocols[pick(3)], static_cast<double>(pick(600)) - 300.0,
                       static_cast<double>(pick(600)) - 300.0);
      p.view_distance = 2 + static_cast<std::int32_t>(pick(14));
      p.entity_id = 10 + next_player;
      p.dimension = dims[pick(4) == 0 ? 1 : 0];
      clients[id] = client_model{};
    };
    for (int k = 0; k < 5; ++k) {
      add_player();
    }
    // Live sessions: id -> (handles, dimension).
    struct session {
      std::vector<api::handle_id> handles;
      std::string dim;
    };
    std::map<api::session_id, session> sessions;
    std::set<api::handle_id> used;
    api::session_id next_session = 1;

    for (int tick = 0; tick < 120; ++tick) {
      CAPTURE(tick);
      std::vector<api::event> events;
      // New sessions (spawns), then per live session moves, views, updates, removal.
      if (pick(3) == 0) {
        session s;
        s.dim = dims[pick(5) == 0 ? 1 : 0];
        const api::session_id sid = next_session++;
        const core::dvec3 at{static_cast<double>(pick(400)) - 200.0, 64,
                             static_cast<double>(pick(400)) - 200.0};
        const std::uint32_t n = 1 + pick(4);
        for (std::uint32_t k = 0; k < n; ++k) {
          api::handle_id h = 1;
          while (used.count(h) != 0) {
            ++h;
          }
          used.insert(h);
          s.handles.push_back(h);
          auto sp = spawn_event(sid, h, static_cast<api::display_kind>(pick(3)));
          sp.dimension = s.dim;
          sp.position = at;
          sp.visible = pick(2) == 0;
          sp.teleport_duration = static_cast<std::int32_t>(pick(3));
          if (pick(3) == 0) {
            sp.entity_nbt = "{Glowing:1b,view_range:0.5f}";
          }
          events.push_back(sp);
        }
        sessions[sid] = s;
      }
      std::vector<api::handle_id> to_free;
      for (auto it = sessions.begin(); it != sessions.end();) {
        const api::session_id sid = it->first;
        session& s = it->second;
        if (pick(4) == 0) {
          api::ev_display_move mv;
          mv.session = sid;
          mv.position = {static_cast<double>(pick(400)) - 200.0, 64,
                         static_cast<double>(pick(400)) - 200.0};
          mv.teleport_duration = static_cast<std::int32_t>(pick(3));
          events.push_back(mv);
        }
        if (pick(5) == 0) {
          api::ev_display_view vw;
          vw.session = sid;
          vw.yaw = static_cast<float>(pick(720)) - 360.0f;
          vw.teleport_duration = static_cast<std::int32_t>(pick(3));
          events.push_back(vw);
        }
        for (api::handle_id h : s.handles) {
          if (pick(3) != 0) {
            continue;
          }
          api::ev_display_update up;
          up.handle = h;
          if (pick(2) == 0) {
            auto t = identity_transform();
            t.translation = {static_cast<float>(pick(3)), pick(2) == 0 ? -0.0f : 0.0f, 0};
            t.scale = {1, static_cast<float>(1 + pick(2)), 1};
            up.transform = t;
            up.interpolation_duration = static_cast<std::int32_t>(pick(3));
          }
          if (pick(3) == 0) {
            up.visible = pick(2) == 0;
          }
          if (pick(4) == 0) {
            up.nbt = pick(2) == 0 ? "{billboard:\"center\"}" : "{}";
          }
          events.push_back(up);
        }
        if (pick(8) == 0) {
          api::ev_display_remove rm;
          rm.session = sid;
          rm.handles = s.handles;
          events.push_back(rm);
          to_free.insert(to_free.end(), s.handles.begin(), s.handles.end());
          it = sessions.erase(it);
        } else {
          ++it;
        }
      }
      if (pick(6) == 0 && !fx.players.empty()) {
        api::ev_player_visibility vis;
        vis.player = fx.players[pick(static_cast<std::uint32_t>(fx.players.size()))].id;
        vis.hidden = pick(2) == 0;
        vis.blank_equipment = vis.hidden;
        events.push_back(vis);
      }
      // Players walk, join, leave, reset, lose their protocol; sometimes a resync.
      for (auto& p : fx.players) {
        if (pick(3) == 0) {
          p.pos.x += static_cast<double>(pick(200)) - 100.0;
          p.pos.z += static_cast<double>(pick(200)) - 100.0;
        }
        if (pick(30) == 0) {
          p.dimension = dims[pick(2)];
          ++p.client_epoch;
          clients[p.id] = client_model{};
        }
        if (pick(40) == 0) {
          p.protocol = p.protocol ? std::nullopt : std::optional<std::int32_t>(protocols[pick(3)]);
          clients[p.id] = client_model{};
        }
      }
      if (pick(15) == 0) {
        add_player();
      }
      if (pick(25) == 0 && fx.players.size() > 1) {
        const std::string gone = fx.players[pick(static_cast<std::uint32_t>(fx.players.size()))].id;
        fx.remove(gone);
        clients.erase(gone);
      }
      bool resync_all = false;
      if (pick(20) == 0) {
        fx.r->resync_all();
        resync_all = true;
      }

      const auto list = fx.step(events);
      for (std::uint32_t h : to_free) {
        used.erase(static_cast<api::handle_id>(h));
      }

      // Replay every entry into each recipient's client model.
      for (const got& g : list) {
        const version_table& v = *find_version(g.protocol);
        for (const std::string& id : g.to) {
          REQUIRE(clients.count(id) != 0);
          client_model& c = clients[id];
          const decoded& d = g.pkt;
          switch (d.kind) {
          case pk::bundle_delimiter:
            c.in_bundle = !c.in_bundle;
            break;
          case pk::spawn_entity: {
            REQUIRE(c.in_bundle);
            REQUIRE_MESSAGE(c.entities.count(d.entity_id) == 0, "spawn of a tracked id");
            entity_model m;
            for (std::size_t k = 0; k < entity_kind_count; ++k) {
              if (v.entity_types[k] == d.type) {
                m.kind = static_cast<entity_kind>(k);
              }
            }
            m.x = d.x;
            m.y = d.y;
            m.z = d.z;
            m.yaw = d.yaw;
            c.entities[d.entity_id] = m;
            break;
          }
          case pk::entity_metadata:
            if (d.entity_id >= cfg.entity_id_base) {
              REQUIRE_MESSAGE(c.entities.count(d.entity_id) != 0, "metadata of an unknown id");
              for (const auto& e : d.metadata) {
                c.entities[d.entity_id].meta[e.index] = std::to_string(e.serializer) + ":" + e.raw;
              }
            }
            break;
          case pk::entity_destroy:
            for (std::int32_t eid : d.ids) {
              REQUIRE_MESSAGE(c.entities.erase(eid) == 1, "destroy of an unknown id");
            }
            break;
          case pk::sync_entity_position:
          case pk::entity_teleport: {
            REQUIRE(c.entities.count(d.entity_id) != 0);
            auto& m = c.entities[d.entity_id];
            m.x = d.x;
            m.y = d.y;
            m.z = d.z;
            m.yaw = d.kind == pk::entity_teleport ? d.yaw : angle_byte(d.yaw_f);
            break;
          }
          case pk::entity_look:
            REQUIRE(c.entities.count(d.entity_id) != 0);
            c.entities[d.entity_id].yaw = d.yaw;
            break;
          case pk::entity_equipment:
            CHECK(d.entity_id < cfg.entity_id_base);
            break;
          }
        }
      }
      (void)resync_all;

      // Tracked = live displays in range, per viewer.
      const auto live = fx.r->displays();
      std::map<std::int32_t, std::pair<std::string, const version_table*>> holder; // first tracker
      for (const auto& p : fx.players) {
        client_model& c = clients[p.id];
        CHECK_FALSE(c.in_bundle);
        std::set<std::int32_t> want;
        if (p.protocol) {
          const std::int32_t vd = std::max(2, std::min(p.view_distance.value_or(10), 10));
          const double r = std::min(160.0, vd * 16.0);
          for (const auto& d : live) {
            const double dx = d.position.x - p.pos.x;
            const double dz = d.position.z - p.pos.z;
            if (d.dimension == p.dimension && dx * dx + dz * dz <= r * r) {
              want.insert(static_cast<std::int32_t>(cfg.entity_id_base + d.handle));
            }
          }
        }
        std::set<std::int32_t> have;
        for (const auto& [eid, m] : c.entities) {
          have.insert(eid);
        }
        CAPTURE(p.id);
        CHECK(have == want);
        if (!p.protocol) {
          continue;
        }
        const version_table& v = *find_version(*p.protocol);
        for (const auto& [eid, m] : c.entities) {
          auto [it, first] = holder.try_emplace(eid * 16 + *p.protocol % 16, p.id, &v);
          if (first) {
            continue;
          }
          const entity_model& other = clients[it->second.first].entities[eid];
          CHECK(m.x == other.x);
          CHECK(m.z == other.z);
          CHECK(m.yaw == other.yaw);
          CHECK(normalized(v, m) == normalized(v, other));
        }
      }
    }
  }
}
