// Cooldowns through the Engine in both modes (players.md §5): R1–R7, R11–R13.

#include "support.hpp"

using namespace simtest;
using api::play_source;

namespace {

sim::engine_config stop_mode() {
  sim::engine_config c;
  c.cooldown_mode = sim::cooldown_mode::stop;
  return c;
}

} // namespace

TEST_CASE("R1 start mode: the cooldown counts from the start") {
  harness h;
  h.join("alice", {0, 64, 0});
  CHECK(code(h.play("alice", "demo:cd100")) == "ok");
  h.run_to(1);
  CHECK(message(h.play("alice", "demo:cd100")) == "Emote cooldown: 5s remaining.");
  h.run_to(81);
  CHECK(message(h.play("alice", "demo:cd100")) == "Emote cooldown: 1s remaining.");
  h.run_to(99);
  const auto r99 = h.play("alice", "demo:cd100");
  CHECK(message(r99) == "Emote cooldown: 1s remaining.");
  CHECK(*r99.err->remaining_ticks == 1);
  h.run_to(100);
  CHECK(code(h.play("alice", "demo:cd100")) == "ok");
  h.step();
  CHECK(h.records(100) ==
        strings{"stopped(1,alice,demo:cd100,REPLACED)", "started(2,alice,demo:cd100,solo)"});
  CHECK(h.cooldown("alice", "demo:cd100")->remaining_ticks == 99);
}

TEST_CASE("R2 stop mode: AVAILABLE, IN_USE, COOLING_DOWN, AVAILABLE") {
  harness h(stop_mode());
  h.join("alice", {0, 64, 0});
  CHECK_FALSE(h.cooldown("alice", "demo:cd20").has_value());
  CHECK(code(h.play("alice", "demo:cd20")) == "ok");
  CHECK(h.cooldown("alice", "demo:cd20")->state == "in_use");
  h.run_to(5);
  CHECK(message(h.play("alice", "demo:cd20")) == "This emote is already playing.");
  h.run_to(10);
  CHECK(code(h.stop("alice")) == "ok");
  const auto c = h.cooldown("alice", "demo:cd20");
  REQUIRE(c.has_value());
  CHECK(c->state == "cooling_down");
  CHECK(c->remaining_ticks == 20);
  CHECK(message(h.play("alice", "demo:cd20")) == "You can use this emote again in 1 second.");
  h.run_to(29);
  const auto r29 = h.play("alice", "demo:cd20");
  CHECK(message(r29) == "You can use this emote again in 1 second.");
  CHECK(*r29.err->remaining_ticks == 1);
  h.run_to(30);
  CHECK_FALSE(h.cooldown("alice", "demo:cd20").has_value());
  CHECK(code(h.play("alice", "demo:cd20")) == "ok");
}

TEST_CASE("R3 stop mode: seconds are plural above one") {
  harness h(stop_mode());
  h.join("alice", {0, 64, 0});
  h.play("alice", "demo:cd100");
  h.run_to(10);
  h.stop("alice");
  CHECK(message(h.play("alice", "demo:cd100")) == "You can use this emote again in 5 seconds.");
}

TEST_CASE("R4 stop mode: a released reservation returns the partner to AVAILABLE") {
  harness h(stop_mode());
  h.join("alice", {0, 64, 0}, 0);
  h.join("bob", {0, 64, 1.2}, 180);
  CHECK(role_of(h.play("alice", "demo:hs_cd")) == "initiator");
  CHECK(role_of(h.play("bob", "demo:hs_cd")) == "partner");
  CHECK(h.cooldown("bob", "demo:hs_cd")->state == "in_use");
  h.step();
  CHECK(code(h.stop("bob")) == "ok"); // released (stopped), silently
  CHECK_FALSE(h.cooldown("bob", "demo:hs_cd").has_value());
  CHECK(h.cooldown("alice", "demo:hs_cd")->state == "in_use");
  h.step();
  CHECK(h.records(1) == strings{"released(1,alice,bob,stopped)"});
}

TEST_CASE("R5 stop mode: one stop cools one entry; cooldowns.clear clears all") {
  harness h(stop_mode());
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5});
  h.play("alice", "demo:wave");
  h.play("bob", "demo:dance");
  h.step();
  h.stop("alice");
  CHECK(h.cooldown("alice", "demo:wave")->state == "cooling_down");
  CHECK(h.cooldown("bob", "demo:dance")->state == "in_use");
  const auto cleared = h.eng.apply(api::cooldown_clear{});
  CHECK(std::get<api::count_ok>(cleared.payload).n == 2);
  CHECK(h.eng.state(std::nullopt).cooldowns.empty());
  // The cleared IN_USE session records nothing when it stops.
  h.stop("bob");
  CHECK(h.eng.state(std::nullopt).cooldowns.empty());
  CHECK(code(h.play("bob", "demo:dance")) == "ok");
}

TEST_CASE("R6 a Sequence uses only its own cooldown") {
  harness h;
  h.join("alice", {0, 64, 0});
  CHECK(code(h.play("alice", "demo:seq0")) == "ok");
  CHECK(code(h.play("alice", "demo:seq0")) == "ok");
  CHECK(h.eng.state(std::nullopt).cooldowns.empty());
  h.run_to(20); // both segments of the second session played
  CHECK(h.eng.state(std::nullopt).cooldowns.empty());
  CHECK(h.find("stopped") ==
        strings{"0:stopped(1,alice,demo:seq0,REPLACED)", "8:stopped(2,alice,demo:seq0,FINISHED)"});
}

TEST_CASE("R7 api plays and bypass holders replace each other and record nothing") {
  harness h;
  api::player_fields f;
  f.permissions = std::map<std::string, bool>{{"emote.bypass", true}};
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5}, 0, f);
  CHECK(code(h.play("alice", "demo:cd20", play_source::api)) == "ok");
  CHECK(code(h.play("alice", "demo:cd20", play_source::api)) == "ok");
  CHECK(code(h.play("bob", "demo:cd20")) == "ok");
  CHECK(code(h.play("bob", "demo:cd20")) == "ok");
  CHECK(h.eng.state(std::nullopt).cooldowns.empty());
  h.step();
  CHECK(h.records(0) == strings{
                            "started(1,alice,demo:cd20,solo)",
                            "stopped(1,alice,demo:cd20,REPLACED)",
                            "started(2,alice,demo:cd20,solo)",
                            "started(3,bob,demo:cd20,solo)",
                            "stopped(3,bob,demo:cd20,REPLACED)",
                            "started(4,bob,demo:cd20,solo)",
                        });
}

TEST_CASE("R11 both modes with cooldown 20") {
  harness h;
  h.join("alice", {0, 64, 0});
  CHECK(code(h.play("alice", "demo:cd20")) == "ok");
  CHECK(message(h.play("alice", "demo:cd20")) == "Emote cooldown: 1s remaining.");
  h.run_to(19);
  CHECK(message(h.play("alice", "demo:cd20")) == "Emote cooldown: 1s remaining.");
  h.run_to(20);
  CHECK(code(h.play("alice", "demo:cd20")) == "ok");

  harness s(stop_mode());
  s.join("alice", {0, 64, 0});
  CHECK(code(s.play("alice", "demo:cd20")) == "ok");
  s.run_to(5);
  CHECK(code(s.play("alice", "demo:cd20")) == "already_playing");
  s.run_to(10);
  s.stop("alice");
  CHECK(code(s.play("alice", "demo:cd20")) == "cooldown");
  s.run_to(29);
  CHECK(code(s.play("alice", "demo:cd20")) == "cooldown");
  s.run_to(30);
  CHECK(code(s.play("alice", "demo:cd20")) == "ok");
}

namespace {

sim::engine_config r12_rules(sim::cooldown_mode mode) {
  sim::engine_config c;
  c.cooldown_mode = mode;
  auto rule = [](std::string perm, std::vector<std::string> emotes,
                 std::optional<sim::access_rule::cooldown_modifier> m) {
    sim::access_rule r;
    r.permission = std::move(perm);
    r.emotes = std::move(emotes);
    r.cooldown = m;
    return r;
  };
  c.permissions = {
      rule("emote.unavailable", {"*"}, sim::access_rule::cooldown_modifier{false, 1.0, 95}),
      rule("emote.unmodified", {"demo:wave"}, std::nullopt),
      rule("emote.vip", {"demo:.*"}, sim::access_rule::cooldown_modifier{true, 0.5, 0}),
      rule("emote.default", {"*"}, sim::access_rule::cooldown_modifier{true, 2.0, 0}),
  };
  return c;
}

std::vector<std::string> r12_content() {
  anim_spec wave;
  wave.id = "demo:wave";
  wave.cooldown = 101;
  wave.mode = "loop";
  wave.duration = 20;
  return {animation_json(wave)};
}

api::player_fields r12_player() {
  api::player_fields f;
  f.permissions = std::map<std::string, bool>{
      {"emote.unavailable", false}, {"emote.unmodified", true}, {"emote.vip", true}};
  return f;
}

} // namespace

TEST_CASE("R12 the first matching, held entry with a modifier decides: 101 × 0.5 → 51") {
  harness h(r12_rules(sim::cooldown_mode::start), r12_content(), false);
  h.join("alice", {0, 64, 0}, 0, r12_player());
  CHECK(code(h.play("alice", "demo:wave")) == "ok");
  CHECK(h.cooldown("alice", "demo:wave")->remaining_ticks == 51);
  h.run_to(50);
  CHECK(code(h.play("alice", "demo:wave")) == "cooldown");
  h.run_to(51);
  CHECK(code(h.play("alice", "demo:wave")) == "ok");

  harness s(r12_rules(sim::cooldown_mode::stop), r12_content(), false);
  s.join("alice", {0, 64, 0}, 0, r12_player());
  CHECK(code(s.play("alice", "demo:wave")) == "ok");
  s.stop("alice");
  s.run_to(50);
  CHECK(code(s.play("alice", "demo:wave")) == "cooldown");
  s.run_to(51);
  CHECK(code(s.play("alice", "demo:wave")) == "ok");
}

TEST_CASE("R13 modifiers: x2 on 100 gives 200; 100t on 80 gives no cooldown") {
  sim::engine_config c;
  sim::access_rule r;
  r.permission = "emote.default";
  r.emotes = {"demo:cd100"};
  r.cooldown = sim::access_rule::cooldown_modifier{true, 2.0, 0};
  sim::access_rule t;
  t.permission = "emote.short";
  t.emotes = {"demo:cd80"};
  t.cooldown = sim::access_rule::cooldown_modifier{false, 1.0, 100};
  c.permissions = {r, t};
  anim_spec cd80;
  cd80.id = "demo:cd80";
  cd80.cooldown = 80;
  harness h(c, {animation_json(cd80)});
  api::player_fields f;
  f.permissions = std::map<std::string, bool>{{"emote.short", true}};
  h.join("alice", {0, 64, 0}, 0, f);
  h.join("bob", {5, 64, 5});
  CHECK(code(h.play("bob", "demo:cd100")) == "ok");
  CHECK(h.cooldown("bob", "demo:cd100")->remaining_ticks == 200);
  CHECK(code(h.play("alice", "demo:cd80")) == "ok");
  CHECK(code(h.play("alice", "demo:cd80")) == "ok");
  CHECK_FALSE(h.cooldown("alice", "demo:cd80").has_value());
}

TEST_CASE("stop mode: RELOAD moves IN_USE to COOLING_DOWN and cooldowns survive the reload") {
  harness h(stop_mode());
  h.join("alice", {0, 64, 0});
  h.join("bob", {5, 64, 5});
  h.play("alice", "demo:cd100");
  h.step();
  h.eng.reload(load());
  h.step();
  CHECK(h.records(1) == strings{"stopped(1,alice,demo:cd100,RELOAD)"});
  CHECK(h.cooldown("alice", "demo:cd100")->state == "cooling_down");
  CHECK(h.cooldown("alice", "demo:cd100")->remaining_ticks == 99);
  CHECK(code(h.play("alice", "demo:cd100")) == "cooldown");

  harness s;
  s.join("alice", {0, 64, 0});
  s.play("alice", "demo:cd100");
  s.step();
  s.eng.reload(load());
  CHECK(code(s.play("alice", "demo:cd100")) == "cooldown");
}
