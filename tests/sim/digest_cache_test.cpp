// protocol.md §8 state digests: a session keeps the digest of its display part (hands, nodes,
// handles) between changes. Kept wrongly, a replay would miss a divergence there; so at every
// tick of busy sessions the kept digests must equal freshly computed ones.
#include "engine/content/loader.hpp"
#include "engine/sim/stress_run.hpp"
#include "support.hpp"

#include <filesystem>

using namespace simtest;

namespace {

/// A fixed-seed generator for the script (determinism; no std:: distribution differences).
struct lcg {
  std::uint64_t x;
  std::uint64_t next(std::uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  }
};

api::item_stack item(const std::string& id) {
  api::item_stack s;
  s.id = id;
  s.snbt = R"({id:")" + id + R"(",count:1})";
  return s;
}

} // namespace

TEST_CASE("state digests: kept display digests equal fresh ones at every tick (engine)") {
  // The scenarios' emotes: visibility and NBT tracks, hand items, Sequences, two-player offers.
  const auto catalog = content::load_directory(std::filesystem::path(EMOTE_SIM_SOURCE_DIR) /
                                               "tests" / "scenarios" / "emotes");
  REQUIRE(catalog != nullptr);
  sim::engine eng(catalog, sim::engine_config{});
  strings emotes;
  for (const auto& e : catalog->entries()) {
    emotes.push_back(e.id);
  }
  REQUIRE(emotes.size() > 30);
  const strings items = {"minecraft:stick", "minecraft:apple", ""};
  constexpr int players = 12;
  for (int i = 0; i < players; ++i) {
    api::player_join j;
    j.player = "p" + std::to_string(i);
    j.fields.position = dvec3{1.5 * i, 64, 0.5 * (i % 3)};
    j.fields.yaw = 90.0F * static_cast<float>(i);
    (void)eng.apply(j);
  }
  lcg r{7};
  int busy_ticks = 0;
  for (int t = 0; t < 600; ++t) {
    for (int k = 0; k < 3; ++k) {
      const std::string p = "p" + std::to_string(r.next(players));
      switch (r.next(6)) {
      case 0:
      case 1:
        (void)eng.apply(
            api::emote_play{.player = p, .emote = emotes[r.next(emotes.size())], .placement = {}});
        break;
      case 2:
        (void)eng.apply(api::emote_stop{p});
        break;
      case 3: {
        api::player_fields f;
        f.position = dvec3{static_cast<double>(r.next(20)) * 0.5, 64, 0.25};
        (void)eng.apply(api::player_update{p, f});
        break;
      }
      case 4: {
        api::player_fields f;
        f.yaw = static_cast<float>(r.next(360));
        (void)eng.apply(api::player_update{p, f});
        break;
      }
      default: {
        api::player_fields f;
        const std::string& id = items[r.next(items.size())];
        f.right_hand = id.empty() ? api::item_stack{} : item(id);
        (void)eng.apply(api::player_update{p, f});
        break;
      }
      }
    }
    (void)eng.step();
    busy_ticks += eng.session_count() > 0 ? 1 : 0;
    const auto kept = eng.state_digest();
    const auto fresh = eng.state_digest(true);
    REQUIRE_MESSAGE(kept == fresh, "tick " << eng.tick() - 1);
  }
  CHECK(busy_ticks > 500); // the check ran on live sessions, not an idle engine
}

TEST_CASE("state digests: kept display digests equal fresh ones at every tick (stress instances)") {
  const auto catalog =
      content::load_directory(std::filesystem::path(EMOTE_SIM_SOURCE_DIR) / "config" / "emotes");
  REQUIRE(catalog != nullptr);
  sim::stress_config c;
  c.instances = 40;
  sim::stress_run run(catalog, c);
  (void)run.create();
  for (int t = 0; t < 400; ++t) {
    (void)run.step();
    REQUIRE_MESSAGE(run.state_digest() == run.state_digest(true), "tick " << t);
  }
}
