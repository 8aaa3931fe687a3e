#pragma once
// A renderer with a set of players, frames built by hand, and the output decoded per entry and
// per player (render.md §4-§6).

#include "engine/world/player.hpp"
#include "render/renderer.hpp"
#include "render/tables.hpp"
#include "tests/render/reader.hpp"

#include <doctest/doctest.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace emote::render::test {

inline api::transform_record identity_transform() {
  api::transform_record t;
  t.translation = {0, 0, 0};
  t.left_rotation = {0, 0, 0, 1};
  t.scale = {1, 1, 1};
  t.right_rotation = {0, 0, 0, 1};
  t.matrix = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  return t;
}

inline const std::string stone_item = "{count:1,id:\"minecraft:stone\"}";

inline api::ev_display_spawn spawn_event(api::session_id session, api::handle_id handle,
                                         api::display_kind kind = api::display_kind::item) {
  api::ev_display_spawn sp;
  sp.session = session;
  sp.handle = handle;
  sp.node = "node" + std::to_string(handle);
  sp.kind = kind;
  switch (kind) {
  case api::display_kind::item:
    sp.item = stone_item;
    sp.item_display = "none";
    break;
  case api::display_kind::block:
    sp.block = "{Name:\"minecraft:stone\"}";
    break;
  case api::display_kind::text:
    sp.text_json = "\"hello\"";
    break;
  }
  sp.dimension = "minecraft:overworld";
  sp.position = {0, 64, 0};
  sp.transform = identity_transform();
  sp.visible = true;
  return sp;
}

/// One output entry, decoded.
struct got {
  std::int32_t protocol = 0;
  std::vector<std::string> to;
  std::string bytes;
  decoded pkt;
  bool decoded_ok = false; ///< false: the test reader could not read it (data components)
  std::uint32_t data_begin = 0;
};

struct fixture {
  render_config cfg;
  std::unique_ptr<renderer> r;
  std::deque<world::player_state> players;
  render_output out;
  std::uint64_t serial = 0;
  bool allow_undecoded = false; ///< item stacks with data components (the reader skips none)
  bool build_packets = true;    ///< step()'s: false when nobody receives the packets

  explicit fixture(render_config c = render_config{}) : cfg(c), r(std::make_unique<renderer>(c)) {}

  world::player_state& add(const std::string& id, std::optional<std::int32_t> protocol,
                           double x = 0, double z = 0) {
    world::player_state p;
    p.id = id;
    p.name = id;
    p.protocol = protocol;
    p.pos = {x, 64, z};
    p.join_serial = ++serial;
    players.push_back(p);
    return players.back();
  }
  world::player_state& get(const std::string& id) {
    for (auto& p : players) {
      if (p.id == id) {
        return p;
      }
    }
    FAIL("no player " << id);
    return players.front();
  }
  void remove(const std::string& id) {
    for (auto it = players.begin(); it != players.end(); ++it) {
      if (it->id == id) {
        players.erase(it);
        return;
      }
    }
  }

  api::tick_number tick = 0; ///< the last step's

  std::vector<got> step(std::vector<api::event> events = {}) {
    api::frame f;
    f.tick = ++tick;
    f.events = std::move(events);
    std::vector<const world::player_state*> ptrs;
    for (const auto& p : players) {
      ptrs.push_back(&p);
    }
    r->step(f, ptrs, out, build_packets);
    std::vector<got> list;
    for (const packet_entry& e : out.entries) {
      got g;
      g.protocol = e.protocol;
      for (std::uint32_t i : out.to(e)) {
        REQUIRE(i < ptrs.size());
        g.to.push_back(ptrs[i]->id);
      }
      g.bytes = std::string(out.bytes(e));
      g.data_begin = e.data_begin;
      const version_table* v = find_version(e.protocol);
      REQUIRE(v != nullptr);
      try {
        g.pkt = decode(*v, g.bytes);
        g.decoded_ok = true;
      } catch (const std::exception& ex) {
        if (!allow_undecoded) {
          FAIL("undecodable packet: " << ex.what());
        }
        g.pkt.kind = packet_kind::entity_metadata; // only item stacks with components end here
      }
      list.push_back(std::move(g));
    }
    return list;
  }
};

/// The packets one player receives, in order.
inline std::vector<decoded> received(const std::vector<got>& list, const std::string& id) {
  std::vector<decoded> r;
  for (const got& g : list) {
    for (const std::string& t : g.to) {
      if (t == id) {
        r.push_back(g.pkt);
      }
    }
  }
  return r;
}

inline std::vector<packet_kind> kinds(const std::vector<decoded>& list) {
  std::vector<packet_kind> k;
  for (const auto& d : list) {
    k.push_back(d.kind);
  }
  return k;
}

using pk = packet_kind;

} // namespace emote::render::test
