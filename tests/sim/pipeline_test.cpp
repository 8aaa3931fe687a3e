// The play pipeline through the Engine (players.md §6): every result code with its message,
// checks by source, bypass, replacement, the display limit, internal failures; R8–R10, R19–R22.

#include "support.hpp"

using namespace simtest;
using api::play_source;

namespace {

sim::engine_config with_disabled() {
  sim::engine_config c;
  c.disabled = {"demo:disabled", "demo:both", "demo:x"};
  return c;
}

api::player_fields perms(std::map<std::string, bool> p) {
  api::player_fields f;
  f.permissions = std::move(p);
  return f;
}

} // namespace

TEST_CASE("R8 catalog lookup, standalone, disabled, in that order") {
  harness h(with_disabled());
  h.join("alice", {0, 64, 0});
  // Without any permission: an unknown id never reaches the permission check.
  h.join("nobody", {5, 64, 5}, 0, perms({{"emote.default", false}}));

  CHECK(code(h.play("alice", "demo:allowed")) == "ok");
  const auto disabled = h.play("alice", "demo:disabled");
  CHECK(code(disabled) == "disabled");
  CHECK(message(disabled) == "This emote is currently unavailable.");
  const auto internal = h.play("alice", "demo:internal");
  CHECK(code(internal) == "not_standalone");
  CHECK(message(internal) == "This emote can only be played as part of a sequence.");
  const auto missing = h.play("nobody", "demo:missing");
  CHECK(code(missing) == "unknown_emote");
  CHECK(message(missing) == "That emote does not exist.");
  CHECK(code(h.play("alice", "demo:both")) == "not_standalone");
  // A refusal leaves the current playback alone.
  h.step();
  CHECK(h.records(0) == strings{"started(1,alice,demo:allowed,solo)"});
}

TEST_CASE("R9 idle plays: no permission check, standalone and disabled checked, cooldown checked") {
  harness h(with_disabled());
  h.join("alice", {0, 64, 0}, 0, perms({{"emote.default", false}}));
  CHECK(code(h.play("alice", "demo:allowed", play_source::command)) == "no_permission");
  CHECK(code(h.play("alice", "demo:allowed", play_source::idle)) == "ok");
  CHECK(code(h.play("alice", "demo:disabled", play_source::idle)) == "disabled");
  CHECK(code(h.play("alice", "demo:internal", play_source::idle)) == "not_standalone");

  h.join("bob", {5, 64, 5});
  CHECK(code(h.play("bob", "demo:cd20")) == "ok");
  h.run_to(10);
  const auto r = h.play("bob", "demo:cd20", play_source::idle);
  CHECK(code(r) == "cooldown");
  CHECK(message(r) == "Emote cooldown: 1s remaining.");
  REQUIRE(r.err->remaining_ticks.has_value());
  CHECK(*r.err->remaining_ticks == 10);
}

TEST_CASE("R10 api plays skip every check and record nothing") {
  anim_spec x;
  x.id = "demo:x";
  x.standalone = false;
  x.cooldown = 20;
  harness h(with_disabled(), {animation_json(x)});
  h.join("alice", {0, 64, 0}, 0, perms({{"emote.default", false}}));
  const auto a = h.play("alice", "demo:x", play_source::api);
  const auto b = h.play("alice", "demo:x", play_source::api);
  CHECK(code(a) == "ok");
  CHECK(code(b) == "ok");
  CHECK(h.eng.state(std::nullopt).cooldowns.empty());
  h.step();
  CHECK(h.records(0) == strings{"started(1,alice,demo:x,solo)", "stopped(1,alice,demo:x,REPLACED)",
                                "started(2,alice,demo:x,solo)"});
}

TEST_CASE("every emote.play error code with its message") {
  sim::engine_config cfg = with_disabled();
  cfg.max_active_display_entities = 1;
  harness h(cfg);
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5}, 0, perms({{"emote.default", false}}));

  const auto offline = h.play("carol", "demo:allowed");
  CHECK(code(offline) == "unknown_player");
  CHECK(message(offline) == "Player is not online.");
  CHECK(message(h.play("alice", "demo:nope")) == "That emote does not exist.");
  CHECK(message(h.play("alice", "demo:internal")) ==
        "This emote can only be played as part of a sequence.");
  CHECK(message(h.play("alice", "demo:disabled")) == "This emote is currently unavailable.");
  const auto perm = h.play("bob", "demo:allowed");
  CHECK(code(perm) == "no_permission");
  CHECK(message(perm) == "You do not have permission to use this emote.");
  CHECK(code(h.play("alice", "demo:cd20")) == "ok");
  const auto cd = h.play("alice", "demo:cd20");
  CHECK(code(cd) == "cooldown");
  CHECK(message(cd) == "Emote cooldown: 1s remaining.");
  // The limit is 1 and alice's display counts; bob (bypassing permissions) needs another one.
  const auto limit = h.play("bob", "demo:allowed", play_source::command, true);
  CHECK(code(limit) == "display_limit");
  CHECK(message(limit) == "Too many emotes are active right now. Try again shortly.");
  // A player replacing its own playback frees that playback's displays first (players.md §8.1).
  CHECK(code(h.play("alice", "demo:allowed")) == "ok");

  api::player_fields sneak;
  sneak.sneaking = true;
  h.update("alice", sneak);
  const auto err = h.play("alice", "demo:fail_start");
  CHECK(code(err) == "internal");
  CHECK(message(err) == "Something went wrong while starting the emote.");

  // Stop mode refusals.
  sim::engine_config stop_cfg;
  stop_cfg.cooldown_mode = sim::cooldown_mode::stop;
  harness s(stop_cfg);
  s.join("alice", {0, 64, 0});
  CHECK(code(s.play("alice", "demo:cd20")) == "ok");
  const auto playing = s.play("alice", "demo:cd20");
  CHECK(code(playing) == "already_playing");
  CHECK(message(playing) == "This emote is already playing.");
  s.stop("alice");
  const auto cooling = s.play("alice", "demo:cd20");
  CHECK(code(cooling) == "cooldown");
  CHECK(message(cooling) == "You can use this emote again in 1 second.");
}

TEST_CASE("R19 api placement replaces the scene root; other sources ignore it") {
  harness h;
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {3, 64, 3}, 90);
  h.join("carol", {6, 64, 6}, 0);
  h.play("alice", "demo:allowed", play_source::api);
  h.play("bob", "demo:allowed", play_source::api); // reference: root = bob's feet, yaw 90
  h.play("carol", "demo:allowed", play_source::api, false, api::placement{{12, 64, -4}, 90});
  h.join("dave", {9, 64, 9}, 0);
  h.play("dave", "demo:allowed", play_source::command, false, api::placement{{12, 64, -4}, 90});
  const api::frame& f = h.step();
  const auto spawns = all_of<api::ev_display_spawn>(f);
  REQUIRE(spawns.size() == 4);
  CHECK(spawns[0]->position == dvec3{0, 64, 0});
  CHECK(spawns[1]->position == dvec3{3, 64, 3});
  CHECK(spawns[2]->position == dvec3{12, 64, -4});
  CHECK(spawns[2]->transform.matrix == spawns[1]->transform.matrix); // root yaw 90
  CHECK(spawns[2]->transform.matrix != spawns[0]->transform.matrix);
  CHECK(spawns[3]->position == dvec3{9, 64, 9}); // not api: ignored
  CHECK(spawns[3]->transform.matrix == spawns[0]->transform.matrix);
  // The MOVED baseline stays at carol's feet: moving her 1 block stops it.
  h.move("carol", {7, 64, 6});
  h.step();
  CHECK(h.records(1) == strings{"stopped(3,carol,demo:allowed,MOVED)"});
}

TEST_CASE("R20 display-limit refusals reach step 6, record nothing, and succeed once space frees") {
  sim::engine_config cfg;
  cfg.max_active_display_entities = 1;
  cfg.cooldown_mode = sim::cooldown_mode::stop;
  harness h(cfg);
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5});
  CHECK(code(h.play("alice", "demo:allowed")) == "ok");
  CHECK(code(h.play("bob", "demo:cd100")) == "display_limit");
  CHECK(code(h.play("bob", "demo:cd100")) == "display_limit");
  // Step 6 was reached: the step-3 claim was made and released (R4: AVAILABLE).
  CHECK_FALSE(h.cooldown("bob", "demo:cd100").has_value());
  h.stop("alice");
  CHECK(h.eng.active_displays() == 0);
  CHECK(code(h.play("bob", "demo:cd100")) == "ok");
  CHECK(h.cooldown("bob", "demo:cd100")->state == "in_use");
}

TEST_CASE("R21 a failed start: ERROR, no cooldown, a registered session stops with ERROR") {
  harness h;
  api::player_fields sneak;
  sneak.sneaking = true;
  h.join("alice", {0, 64, 0}, 0, sneak);
  const auto r = h.play("alice", "demo:fail_start"); // its NBT selector gives 5 of 2 options
  CHECK(code(r) == "internal");
  CHECK(h.eng.state(std::nullopt).cooldowns.empty());
  CHECK(h.eng.session_count() == 0);
  CHECK(h.eng.active_displays() == 0);
  api::player_fields stand;
  stand.sneaking = false;
  h.update("alice", stand);
  const auto ok = h.play("alice", "demo:fail_start");
  CHECK(code(ok) == "ok");
  CHECK(session_of(ok) == 2); // the failed start used number 1
  h.step();
  CHECK(h.records(0) ==
        strings{"stopped(1,alice,demo:fail_start,ERROR)", "started(2,alice,demo:fail_start,solo)"});
  // The failed session's display was spawned and removed in the same frame.
  CHECK(h.events(0) == strings{"spawn(1,1)", "remove(1)", "spawn(2,2)",
                               "stopped(1,alice,demo:fail_start,ERROR)",
                               "started(2,alice,demo:fail_start,solo)"});
  CHECK(h.cooldown("alice", "demo:fail_start")->remaining_ticks == 99); // ready 100, now 1
}

TEST_CASE("an error while ticking stops with ERROR") {
  harness h;
  h.join("alice", {0, 64, 0});
  CHECK(code(h.play("alice", "demo:fail_tick")) == "ok");
  h.run_to(3);
  CHECK(h.all_records() == strings{"0:started(1,alice,demo:fail_tick,solo)",
                                   "2:stopped(1,alice,demo:fail_tick,ERROR)"});
}

TEST_CASE("R22 a successful start replaces; a refusal leaves the playback running") {
  harness h(with_disabled());
  h.join("alice", {0, 64, 0});
  h.play("alice", "demo:allowed");
  h.step();
  CHECK(code(h.play("alice", "demo:allowed")) == "ok");
  h.step();
  CHECK(h.records(1) ==
        strings{"stopped(1,alice,demo:allowed,REPLACED)", "started(2,alice,demo:allowed,solo)"});
  CHECK(code(h.play("alice", "demo:disabled")) == "disabled");
  h.step();
  CHECK(h.records(2).empty());
  CHECK(h.phase(2) == "SOLO");
}

TEST_CASE("bypass: requested or held, any source, skips every check and records nothing") {
  harness h(with_disabled());
  h.join("alice", {0, 64, 0}, 0, perms({{"emote.default", false}, {"emote.bypass", true}}));
  h.join("bob", {5, 64, 5}, 0, perms({{"emote.default", false}}));
  CHECK(code(h.play("alice", "demo:internal")) == "ok");
  CHECK(code(h.play("alice", "demo:disabled")) == "ok");
  CHECK(code(h.play("alice", "demo:cd100")) == "ok");
  CHECK(code(h.play("alice", "demo:cd100")) == "ok");
  CHECK(code(h.play("bob", "demo:both", play_source::command, true)) == "ok");
  CHECK(code(h.play("bob", "demo:cd100", play_source::idle, true)) == "ok");
  CHECK(code(h.play("bob", "demo:cd100", play_source::idle, true)) == "ok");
  CHECK(h.eng.state(std::nullopt).cooldowns.empty());
}

TEST_CASE("R24 the display limit counts the replaced playback's displays") {
  // limit 512; 400 displays elsewhere + alice's 80 = 480 active; alice asks for 100 / 113.
  std::vector<std::string> docs;
  for (const auto& [id, n] : std::vector<std::pair<std::string, int>>{
           {"demo:n80", 80}, {"demo:n100", 100}, {"demo:n113", 113}, {"demo:n200", 200}}) {
    anim_spec s;
    s.id = id;
    s.displays = n;
    docs.push_back(animation_json(s));
  }
  harness h({}, docs);
  h.join("alice", {0, 64, 0});
  h.join("b1", {5, 64, 5});
  h.join("b2", {10, 64, 10});
  CHECK(code(h.play("b1", "demo:n200")) == "ok");
  CHECK(code(h.play("b2", "demo:n200")) == "ok");
  CHECK(code(h.play("alice", "demo:n80")) == "ok");
  CHECK(h.eng.active_displays() == 480);
  CHECK(code(h.play("alice", "demo:n113")) == "display_limit"); // 480 − 80 + 113 = 513
  CHECK(h.eng.active_displays() == 480);
  CHECK(code(h.play("alice", "demo:n100")) == "ok"); // 500
  CHECK(h.eng.active_displays() == 500);
  h.step();
  CHECK(h.records(0) == strings{"started(1,b1,demo:n200,solo)", "started(2,b2,demo:n200,solo)",
                                "started(3,alice,demo:n80,solo)",
                                "stopped(3,alice,demo:n80,REPLACED)",
                                "started(4,alice,demo:n100,solo)"});
  // Limit 0 is unlimited.
  sim::engine_config unlimited;
  unlimited.max_active_display_entities = 0;
  harness u(unlimited, docs);
  for (int i = 0; i < 60; ++i) {
    u.join("p" + std::to_string(i), {i * 5.0, 64, 0});
    CHECK(code(u.play("p" + std::to_string(i), "demo:n200")) == "ok");
  }
  CHECK(u.eng.active_displays() == 12000);
}

TEST_CASE("a play or stop request marks the player's last action; idle plays do not") {
  sim::engine_config cfg;
  cfg.permissions = {[] {
    sim::access_rule r;
    r.permission = "emote.default";
    r.emotes = {"*"};
    r.idle = sim::access_rule::idle_settings{30, {"demo:short"}, {}};
    return r;
  }()};
  harness h(cfg);
  h.join("alice", {0, 64, 0});
  // scheduled = 0 + 30: idle plays at 30 (5 ticks long), then every 30 ticks: 60, 90.
  h.run_to(97);
  CHECK(h.find("started") == strings{"30:started(1,alice,demo:short,solo)",
                                     "60:started(2,alice,demo:short,solo)",
                                     "90:started(3,alice,demo:short,solo)"});
  // A stop request (even one that finds nothing) is an action: the schedule restarts from it
  // (97 + 30 = 127, so the next pass that plays is 130).
  CHECK(code(h.stop("alice")) == "not_playing");
  h.run_to(131);
  CHECK(h.find("started").size() == 4);
  CHECK(h.find("started").back() == "130:started(4,alice,demo:short,solo)");
}
