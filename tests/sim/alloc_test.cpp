// Steady-state ticks of the whole Engine allocate nothing (issue 4): 50 playbacks of corpus-like
// emotes (deep node hierarchies, eased position and rotation tracks, visibility keys, a few
// Molang expressions, looping Animations and looping-segment Sequences) over 1000 ticks, with the
// default access rules (so the idle pass runs every 10 ticks).

#include "engine/sim/stress_run.hpp"
#include "support.hpp"
#include "support/counting_allocator.hpp"

using namespace simtest;

namespace {

const char* const easings[] = {"linear",          "ease_in_out_sine", "ease_out_back",
                               "ease_in_quad",    "ease_out_bounce",  "ease_in_out_cubic",
                               "ease_out_elastic"};

/// A corpus-like Animation: 74 nodes (every sixth an anchor) in chains under one initiator
/// anchor, position and rotation keyframes on a third of them, visibility keys on some,
/// `duration` ticks, looping with a delay.
std::string corpus_like(const std::string& id, int duration, bool molang, bool standalone) {
  std::ostringstream o;
  o << R"({"type":"animation","schema_version":4,"id":")" << id
    << R"(","metadata":{"name":"corpus-like","description":""},"settings":{"standalone":)"
    << json_bool(standalone)
    << R"(,"cooldown":"0t","rotation_deadzone":50,"player":{"hidden":true,"stop_conditions":{"movement_distance":0.1,"jump":true,"submerge":true,"ride":true,"damage":true,"attack":true,"game_mode_change":true}},"playback":{"mode":"loop","loop_delay":")"
    << (standalone ? 5 : 0) << R"(t"}},)";
  if (molang) {
    o << R"("molang":{"initialize":"v.phase = 0;","tick":"v.phase = v.phase + 1;"},)";
  }
  o << R"("nodes":{"root":{"type":"anchor","space":"initiator","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}})";
  std::string parent = "root";
  for (int i = 0; i < 73; ++i) {
    const bool anchor = i % 6 == 0;
    const std::string name = "n" + std::to_string(i);
    const std::string p = i % 5 == 0 ? std::string("root") : parent;
    o << ",\"" << name << R"(":{"type":")" << (anchor ? "anchor" : "item_display")
      << R"(","parent":")" << p << "\"";
    if (!anchor) {
      o << R"(,"item_stack_snbt":"{id:\"minecraft:player_head\",count:1}","item_display":"head")";
    }
    o << R"(,"transform":{"position":[)" << 0.1 * i << "," << 0.05 * i << "," << -0.02 * i
      << R"(],"rotation":[0,)" << i * 5 << R"(,0],"scale":[1,1,1]}})";
    parent = name;
  }
  o << R"(},"timeline":{"duration":")" << duration << R"(t","tracks":{)";
  bool first = true;
  for (int i = 0; i < 73; ++i) {
    if (i % 3 != 0) {
      continue;
    }
    const bool anchor = i % 6 == 0;
    o << (first ? "" : ",") << "\"n" << i << R"(":{"position":[)";
    first = false;
    const int mid = duration / 2;
    o << R"({"time":"0t","value":[0,0,0],"easing":")" << easings[i % 7] << R"("},)"
      << R"({"time":")" << mid << R"(t","value":[0.5,1,0],"easing":")" << easings[(i + 3) % 7]
      << R"("},)"
      << R"({"time":")" << duration << R"(t","value":[0,0,0]}],"rotation":[)";
    if (molang && i % 9 == 0) {
      o << R"({"time":"0t","value":["math.sin(q.anim_time * 180) * 20","v.phase",0]},)";
    } else {
      o << R"({"time":"0t","value":[0,0,0]},)";
    }
    o << R"({"time":")" << mid / 2 << R"(t","value":[30,45,-20],"interpolation":"linear"},)"
      << R"({"time":")" << duration << R"(t","value":[0,360,0]}])";
    if (!anchor && i % 4 == 3) {
      o << R"(,"visible":[{"time":"0t","value":true},{"time":")" << mid
        << R"(t","value":false},{"time":")" << (mid + 5) << R"(t","value":true}])";
    }
    o << "}";
  }
  o << R"(},"events":{}}})";
  return o.str();
}

std::string corpus_sequence(const std::string& id, const std::string& a, const std::string& b) {
  return R"({"type":"sequence","schema_version":4,"id":")" + id +
         R"(","metadata":{"name":"corpus-like sequence","description":""},"settings":{"cooldown":"0t","player":{"hidden":false,"stop_conditions":{"movement_distance":0.1,"jump":true,"submerge":true,"ride":true,"damage":true,"attack":true,"game_mode_change":true}}},"steps":[{"emote":")" +
         a + R"(","repeat":100},{"wait":"3t"},{"emote":")" + b + R"("}]})";
}

} // namespace

TEST_CASE("steady-state ticks of 50 corpus-like playbacks allocate nothing") {
  const std::vector<std::string> docs{
      corpus_like("corpus:sit", 80, false, true),
      corpus_like("corpus:wave", 50, true, true),
      corpus_like("corpus:idle", 60, false, true),
      corpus_like("corpus:part_a", 40, false, false),
      corpus_like("corpus:part_b", 30, true, false),
      corpus_sequence("corpus:seq", "corpus:part_a", "corpus:part_b"),
  };
  const char* const ids[] = {"corpus:sit", "corpus:wave", "corpus:idle", "corpus:seq",
                             "corpus:sit"};
  sim::engine_config cfg;
  cfg.max_active_display_entities = 0;
  sim::engine eng(load(docs, {}, false), cfg);
  for (int i = 0; i < 50; ++i) {
    api::player_join j;
    j.player = "player-" + std::to_string(i) + "-0000-0000-0000-000000000000";
    j.fields.position = dvec3{static_cast<double>(i % 10) * 4.0, 64, (i / 10) * 4.0};
    j.fields.yaw = static_cast<float>(i * 7);
    REQUIRE(eng.apply(j).ok());
    api::emote_play p;
    p.player = j.player;
    p.emote = ids[i % 5];
    REQUIRE(eng.apply(p).ok());
  }
  std::size_t events = 0;
  // Warm-up: every Animation loops at least once and every buffer reaches its size.
  for (int t = 0; t < 300; ++t) {
    events += eng.step().events.size();
  }
  REQUIRE(eng.session_count() == 50);
  const emote::testing::allocation_scope counted;
  for (int t = 0; t < 1000; ++t) {
    events += eng.step().events.size();
  }
  CHECK(eng.session_count() == 50);
  CHECK(events > 50000); // the playbacks really produce output
  CHECK(counted.allocations() == 0);
}

TEST_CASE("steady-state stress ticks allocate nothing, whole or in parts") {
  const std::vector<std::string> docs{
      corpus_like("corpus:sit", 80, false, true),
      corpus_like("corpus:wave", 50, true, true),
      corpus_like("corpus:idle", 60, false, true),
  };
  sim::stress_config cfg;
  cfg.instances = 60;
  sim::stress_run run(load(docs, {}, false), cfg);
  run.create();
  sim::stress_run::part parts[2];
  const auto tick_in_parts = [&] {
    run.begin_step();
    for (auto& p : parts) {
      p.events.clear();
      p.ended.clear();
    }
    run.step_part(0, 30, parts[0]);
    run.step_part(30, 60, parts[1]);
    run.end_step(parts);
    return parts[0].events.size() + parts[1].events.size();
  };
  std::size_t events = 0;
  for (int t = 0; t < 200; ++t) { // warm-up: every Animation loops, every buffer reaches its size
    events += run.step().events.size();
    events += tick_in_parts();
  }
  const emote::testing::allocation_scope counted;
  for (int t = 0; t < 500; ++t) {
    events += run.step().events.size();
    events += tick_in_parts();
  }
  CHECK(run.active() == 60);
  CHECK(events > 100000);
  CHECK(counted.allocations() == 0);
}
