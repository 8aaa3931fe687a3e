// render.md §2: a player's own entity id may not fall inside the display entities' id range
// [render.entity_id_base, base + M]; its viewers' clients would take it for a display.
#include "support.hpp"

using namespace simtest;

namespace {

api::player_fields with_entity_id(std::optional<std::int32_t> id) {
  api::player_fields f;
  f.viewer.entity_id = id;
  return f;
}

} // namespace

TEST_CASE("a player entity_id inside the display range is refused on join and update") {
  sim::engine_config c;
  c.display_entity_ids_first = 1000;
  c.display_entity_ids_last = 1512;
  harness h(c);
  for (const std::int32_t id : {1000, 1200, 1512}) {
    CAPTURE(id);
    const auto r = h.join("p" + std::to_string(id), {0, 64, 0}, 0, with_entity_id(id));
    CHECK(code(r) == "bad_request");
    CHECK(r.err->path == "$.entity_id");
    CHECK(message(r).find("inside the display entities' range [1000, 1512]") != std::string::npos);
  }
  CHECK(code(h.join("alice", {0, 64, 0}, 0, with_entity_id(999))) == "ok");
  CHECK(code(h.join("bob", {0, 64, 0}, 0, with_entity_id(1513))) == "ok");
  CHECK(code(h.update("alice", with_entity_id(1001))) == "bad_request");
  CHECK(code(h.update("alice", with_entity_id(std::nullopt))) == "ok"); // null: no entity id
  CHECK(code(h.update("nobody", with_entity_id(1001))) == "unknown_player");
}
