// The shifted-index probe (render/tables/README.md, "Adding a version"): not part of the CMake
// build. minecraft/test/shifted-index.mjs generates tables from a copy of minecraft-data in
// which one version's display metadata is moved (generate-tables.mjs --data --namespace
// shifted), compiles this file with those tables against the built render library, and decodes
// what it prints with minecraft-protocol: the renderer must write each field at the index the
// generated table gives, per version.
//
// Output: one line per packet entry, "<protocol> <recipient> <hex bytes>", for one display spawn
// with a translation and one update of it, seen by a viewer on every protocol of the table set.

#include "data.hpp" // the generated tables, namespace emote::render::shifted

#include "engine/world/player.hpp"
#include "render/renderer.hpp"

#include <cstdio>
#include <deque>
#include <vector>

using namespace emote;

int main() {
  const auto& tables = render::shifted::all_versions;
  render::renderer r(render::render_config{},
                     std::span<const render::version_table* const>(tables.data(), tables.size()));

  std::deque<world::player_state> players;
  std::vector<const world::player_state*> ptrs;
  for (const render::version_table* v : tables) {
    world::player_state p;
    p.id = "viewer" + std::to_string(v->protocol);
    p.name = p.id;
    p.protocol = v->protocol;
    p.pos = {0, 64, 0};
    p.join_serial = players.size() + 1;
    players.push_back(p);
    ptrs.push_back(&players.back());
  }

  api::transform_record t;
  t.translation = {0, 1, 0};
  t.left_rotation = {0, 0, 0, 1};
  t.scale = {1, 1, 1};
  t.right_rotation = {0, 0, 0, 1};
  api::ev_display_spawn sp;
  sp.session = 1;
  sp.handle = 1;
  sp.node = "probe";
  sp.kind = api::display_kind::item;
  sp.item = "{count:1,id:\"minecraft:stone\"}";
  sp.item_display = "head";
  sp.dimension = "minecraft:overworld";
  sp.position = {0, 64, 0};
  sp.transform = t;
  sp.visible = true;
  api::ev_display_update up;
  up.handle = 1;
  t.translation = {0, 2, 0};
  up.transform = t;
  up.interpolation_duration = 3;

  render::render_output out;
  api::tick_number tick = 0;
  for (std::vector<api::event> events : {std::vector<api::event>{sp}, std::vector<api::event>{up}}) {
    api::frame f;
    f.tick = ++tick;
    f.events = std::move(events);
    r.step(f, ptrs, out);
    for (const render::packet_entry& e : out.entries) {
      for (const std::uint32_t to : out.to(e)) {
        std::printf("%d %s ", e.protocol, players[to].id.c_str());
        for (const char c : out.bytes(e)) {
          std::printf("%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        }
        std::printf("\n");
      }
    }
  }
  return 0;
}
