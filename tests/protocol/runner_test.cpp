#include "protocol/runner.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace emote;
using namespace emote::protocol;

namespace {

// A stand-in for the Engine: players join and leave; `fx:slide` plays for 10 ticks with one
// display (spawn hidden, shown at S+1, removed at S+10); `fx:slide` has cooldown 100.
class fake_host final : public sim_host {
public:
  api::tick_number tick() const override { return tick_; }

  api::reply apply(const api::input& in) override {
    api::reply r;
    r.tick = tick_;
    if (const auto* j = std::get_if<api::player_join>(&in)) {
      if (!players_.insert(j->player).second) {
        r.err = api::error{api::error_code::player_exists, "Player is already online.", {}, {}};
      }
    } else if (const auto* l = std::get_if<api::player_leave>(&in)) {
      players_.erase(l->player);
    } else if (const auto* p = std::get_if<api::emote_play>(&in)) {
      if (players_.count(p->player) == 0) {
        r.err = api::error{api::error_code::unknown_player, "Player is not online.", {}, {}};
      } else if (p->emote != "fx:slide") {
        r.err = api::error{api::error_code::unknown_emote, "That emote does not exist.", {}, {}};
      } else if (auto it = ready_.find(p->player); it != ready_.end() && it->second > tick_) {
        const std::int64_t left = it->second - tick_;
        r.err = api::error{api::error_code::cooldown,
                           "Emote cooldown: " + std::to_string((left + 19) / 20) + "s remaining.",
                           {},
                           left};
      } else {
        const api::session_id s = ++sessions_;
        ready_[p->player] = tick_ + 100;
        r.payload = api::play_ok{s, p->emote, api::role::solo};
        api::ev_display_spawn sp;
        sp.session = s;
        sp.handle = 1;
        sp.node = "box";
        sp.item = R"({id:"minecraft:stone",count:1})";
        sp.item_display = "none";
        sp.dimension = "minecraft:overworld";
        sp.position = {0, 64, 0};
        sp.transform.matrix = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        sp.transform.scale = {1, 1, 1};
        sp.transform.left_rotation = {0, 0, 0, 1};
        sp.transform.right_rotation = {0, 0, 0, 1};
        pending_[tick_].push_back(sp);
        pending_[tick_].push_back(
            api::ev_playback_started{s, p->player, p->emote, api::role::solo});
        api::ev_display_update u;
        u.handle = 1;
        u.visible = true;
        pending_[tick_ + 1].push_back(u);
        pending_[tick_ + 10].push_back(
            api::ev_playback_stopped{s, p->player, p->emote, api::stop_reason::finished});
        pending_[tick_ + 10].push_back(api::ev_display_remove{s, {1}});
      }
    } else if (std::holds_alternative<api::emote_stop_all>(in)) {
      r.payload = api::count_ok{"stopped", 0};
    }
    return r;
  }

  const tick_output& step() override {
    frame_.tick = tick_;
    frame_.events.clear();
    if (auto it = pending_.find(tick_); it != pending_.end()) {
      frame_.events = std::move(it->second);
      pending_.erase(it);
    }
    ++tick_;
    out_ = frame_;
    return out_;
  }

  sim::state_snapshot state(const sim::state_query& q) const override {
    const std::optional<std::string>& player = q.player;
    sim::state_snapshot s;
    for (const auto& p : players_) {
      if (!player || *player == p) {
        s.players.push_back(
            {p, std::nullopt, std::nullopt, false, "minecraft:overworld", {}, 0, {}});
      }
    }
    return s;
  }
  std::vector<emote_summary> list() const override {
    return {{"fx:slide", "animation", "Slide", "", true, 10, true, 100, false}};
  }
  std::optional<emote_details> info(std::string_view id) const override {
    if (id != "fx:slide") {
      return std::nullopt;
    }
    return emote_details{list().front(), R"(["box"])", "{}", ""};
  }
  std::int64_t emote_count() const override { return 1; }
  reload_outcome reload(const emote_reload_request&) override { return {std::nullopt, 1, {}}; }
  core::result<std::string, api::error> register_emote(std::string_view) override {
    return core::failure{
        api::error{api::error_code::bad_request, "is required", "$.document.id", {}}};
  }
  std::vector<render::display_info> displays() const override { return {}; }
  std::int64_t render_resync(const render_resync_request&) override { return 0; }

private:
  api::tick_number tick_ = 0;
  api::session_id sessions_ = 0;
  std::set<std::string> players_;
  std::map<std::string, std::int64_t> ready_;
  std::map<api::tick_number, std::vector<api::event>> pending_;
  api::frame frame_;
  tick_output out_;
};

host_factory fake_factory() {
  return [](const scenario&) -> core::result<std::unique_ptr<sim_host>, std::string> {
    return std::unique_ptr<sim_host>(std::make_unique<fake_host>());
  };
}

scenario load(std::string_view text) {
  auto s = parse_scenario(text, "fake.json");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error()));
  return std::move(*s);
}

constexpr const char* slide_once = R"({
  "scenario": 1, "name": "a once animation spawns, shows at S+1, finishes at S+D", "ticks": 20,
  "script": [
    {"tick": 0, "op": "player.join", "player": "alice", "position": [0, 64, 0], "yaw": 0},
    {"tick": 1, "op": "emote.play", "player": "alice", "emote": "fx:slide", "id": "p1"}
  ],
  "expect": [
    {"reply": "p1", "ok": true, "role": "solo"},
    {"event": "playback.started", "player": "alice", "emote": "fx:slide", "role": "solo", "tick": 1},
    {"event": "display.spawn", "node": "box", "kind": "item", "visible": false, "tick": 1},
    {"count": {"event": "display.spawn"}, "equals": 1},
    {"event": "display.update", "visible": true, "tick": 2},
    {"event": "playback.stopped", "player": "alice", "reason": "FINISHED", "tick": 11},
    {"event": "display.remove", "tick": 11}
  ]
})";

} // namespace

TEST_CASE("a run prints replies before their tick's frame, frames only for ticks with events") {
  const run_result r = run_scenario(load(slide_once), fake_factory());
  CHECK(r.passed);
  CHECK(r.failure.empty());
  CHECK(
      r.output ==
      R"({"op":"reply","id":"p1","tick":1,"ok":true,"session":1,"emote":"fx:slide","role":"solo"})"
      "\n"
      R"({"op":"frame","tick":1,"events":[{"type":"display.spawn","session":1,"handle":1,"node":"box","space":"scene","kind":"item","item":"{id:\"minecraft:stone\",count:1}","item_display":"none","dimension":"minecraft:overworld","position":[0,64,0],"yaw":0,"teleport_duration":0,"transform":{"translation":[0,0,0],"left_rotation":[0,0,0,1],"scale":[1,1,1],"right_rotation":[0,0,0,1],"matrix":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]},"visible":false},{"type":"playback.started","session":1,"player":"alice","emote":"fx:slide","role":"solo"}]})"
      "\n"
      R"({"op":"frame","tick":2,"events":[{"type":"display.update","handle":1,"visible":true}]})"
      "\n"
      R"({"op":"frame","tick":11,"events":[{"type":"playback.stopped","session":1,"player":"alice","emote":"fx:slide","reason":"FINISHED"},{"type":"display.remove","session":1,"handles":[1]}]})"
      "\n");
}

TEST_CASE("the same scenario run twice gives identical bytes") {
  const scenario s = load(slide_once);
  CHECK(run_scenario(s, fake_factory()).output == run_scenario(s, fake_factory()).output);
}

TEST_CASE("a failing expectation fails the run with every unmet one") {
  const run_result r = run_scenario(load(R"({"ticks": 20, "script": [
      {"tick": 0, "op": "player.join", "player": "alice", "position": [0, 64, 0]},
      {"tick": 1, "op": "emote.play", "player": "alice", "emote": "fx:slide", "id": "p1"}],
    "expect": [{"reply": "p1", "ok": true},
               {"event": "playback.stopped", "reason": "FINISHED", "by": 10},
               {"event": "display.spawn", "tick": 5}]})"),
                                    fake_factory());
  CHECK_FALSE(r.passed);
  CHECK(
      r.failure ==
      R"(expect[1] {"event":"playback.stopped","reason":"FINISHED","by":10}: no matching event (0 playback.stopped in the window, 1 outside))"
      "\n  "
      R"(expect[2] {"event":"display.spawn","tick":5}: no matching event (0 display.spawn in the window, 1 outside))");
}

TEST_CASE("script lines go through the decoder: errors are replies, with or without id") {
  const run_result r = run_scenario(load(R"({"ticks": 3, "script": [
      {"tick": 0, "op": "player.join", "player": "alice", "position": [0, 64, 0]},
      {"tick": 0, "op": "player.join", "player": "alice", "position": [0, 64, 0]},
      {"tick": 0, "op": "player.join", "id": 1, "player": "bob"},
      {"tick": 0, "op": "teleport", "id": 2},
      {"tick": 1, "op": "emote.play", "player": "alice", "emote": "fx:nope"},
      {"tick": 1, "op": "emote.play", "id": "c", "player": "carol", "emote": "fx:slide"},
      {"tick": 1, "op": "ping", "id": "p"},
      {"tick": 1, "op": "ping"},
      {"tick": 2, "op": "subscribe", "id": "s", "events": ["display."]},
      {"tick": 2, "op": "emote.stop_all", "id": "all"}],
    "expect": [{"reply": 1, "ok": false, "error": {"code": "bad_request", "path": "$.position"}},
               {"reply": 2, "error": {"code": "unknown_op"}},
               {"reply": "c", "error": {"code": "unknown_player"}},
               {"reply": "p", "ok": true, "tick": 1},
               {"reply": "s", "ok": true},
               {"reply": "all", "stopped": 0}]})"),
                                    fake_factory());
  CHECK_MESSAGE(r.passed, r.failure);
  CHECK(
      r.output ==
      R"({"op":"reply","tick":0,"ok":false,"error":{"code":"player_exists","message":"Player is already online.","op":"player.join","player":"alice","detail":"player.join player \"alice\": a player with this key is already online"}})"
      "\n"
      R"({"op":"reply","id":1,"tick":0,"ok":false,"error":{"code":"bad_request","message":"is required","path":"$.position","op":"player.join","player":"bob","detail":"player.join player \"bob\": $.position: is required"}})"
      "\n"
      R"({"op":"reply","id":2,"tick":0,"ok":false,"error":{"code":"unknown_op","message":"unknown op: teleport","detail":"unknown op: teleport"}})"
      "\n"
      R"({"op":"reply","tick":1,"ok":false,"error":{"code":"unknown_emote","message":"That emote does not exist.","op":"emote.play","player":"alice","emote":"fx:nope","detail":"emote.play player \"alice\" emote \"fx:nope\": no emote with this id is loaded"}})"
      "\n"
      R"({"op":"reply","id":"c","tick":1,"ok":false,"error":{"code":"unknown_player","message":"Player is not online.","op":"emote.play","player":"carol","emote":"fx:slide","detail":"emote.play player \"carol\" emote \"fx:slide\": no player with this key is online"}})"
      "\n"
      R"({"op":"reply","id":"p","tick":1,"ok":true})"
      "\n"
      R"({"op":"reply","id":"s","tick":2,"ok":true})"
      "\n"
      R"({"op":"reply","id":"all","tick":2,"ok":true,"stopped":0})"
      "\n");
}

TEST_CASE("cooldown refusals carry remaining_ticks") {
  const run_result r = run_scenario(load(R"({"ticks": 30, "script": [
      {"tick": 0, "op": "player.join", "player": "alice", "position": [0, 64, 0]},
      {"tick": 1, "op": "emote.play", "player": "alice", "emote": "fx:slide", "id": "a"},
      {"tick": 20, "op": "emote.play", "player": "alice", "emote": "fx:slide", "id": "b"}],
    "expect": [{"reply": "b", "ok": false, "error": {"code": "cooldown", "message": "Emote cooldown: 5s remaining.", "remaining_ticks": 81}}]})"),
                                    fake_factory());
  CHECK_MESSAGE(r.passed, r.failure);
}

TEST_CASE("query and content ops are executed through the host") {
  const run_result r = run_scenario(load(R"({"ticks": 1, "script": [
      {"tick": 0, "op": "player.join", "player": "alice", "position": [0, 64, 0]},
      {"tick": 0, "op": "state.get", "id": "st"},
      {"tick": 0, "op": "emote.list", "id": "ls"},
      {"tick": 0, "op": "emote.info", "id": "in", "emote": "fx:slide"},
      {"tick": 0, "op": "emote.info", "id": "no", "emote": "fx:nope"},
      {"tick": 0, "op": "emote.reload", "id": "rl"},
      {"tick": 0, "op": "emote.register", "id": "rg", "document": {}}],
    "expect": [{"reply": "st", "players": [{"player": "alice", "session": null}]},
               {"reply": "ls", "emotes": [{"id": "fx:slide", "duration_ticks": 10}]},
               {"reply": "in", "nodes": ["box"]},
               {"reply": "no", "error": {"code": "unknown_emote", "path": "$.emote"}},
               {"reply": "rl", "loaded": 1, "skipped": []},
               {"reply": "rg", "error": {"code": "bad_request", "path": "$.document.id"}}]})"),
                                    fake_factory());
  CHECK_MESSAGE(r.passed, r.failure);
}

TEST_CASE("execute leaves the connection ops to the caller") {
  fake_host host;
  std::string out;
  for (const char* line : {R"({"op":"hello"})", R"({"op":"bye"})", R"({"op":"subscribe"})",
                           R"({"op":"clock.step","ticks":3})"}) {
    auto r = decode_request(line);
    REQUIRE(r.ok());
    CHECK_FALSE(execute(host, *r, out).handled);
  }
  CHECK(out.empty());
  auto ping = decode_request(R"({"op":"ping","id":9})");
  CHECK(execute(host, *ping, out).ok());
  CHECK(out == "{\"op\":\"reply\",\"id\":9,\"tick\":0,\"ok\":true}\n");
}

TEST_CASE("execute reports each request's outcome with the reply's error") {
  fake_host host;
  std::string out;
  auto run = [&](const char* line) {
    auto r = decode_request(line);
    REQUIRE(r.ok());
    return execute(host, *r, out);
  };
  auto info = run(R"({"op":"emote.info","id":1,"emote":"fx:none"})");
  REQUIRE(info.error.has_value());
  CHECK(info.error->code == api::error_code::unknown_emote);
  CHECK(info.error->path == "$.emote");
  CHECK(run(R"({"op":"player.join","player":"a","position":[0,64,0]})").ok());
  auto again = run(R"({"op":"player.join","id":2,"player":"a","position":[0,64,0]})");
  REQUIRE(again.error.has_value());
  CHECK(again.error->code == api::error_code::player_exists);
  CHECK(run(R"({"op":"emote.reload","id":3})").ok());
  auto reg = run(R"({"op":"emote.register","id":4,"document":{}})");
  CHECK(reg.handled);
  CHECK(reg.error.has_value());
}

TEST_CASE("a host that cannot start fails the scenario with its reason") {
  host_factory broken =
      [](const scenario&) -> core::result<std::unique_ptr<sim_host>, std::string> {
    return core::failure{std::string("cannot load content: missing folder")};
  };
  const run_result r = run_scenario(load(slide_once), broken);
  CHECK_FALSE(r.passed);
  CHECK(r.failure == "cannot load content: missing folder");
  CHECK(r.output.empty());
}

TEST_CASE("a run without expectations passes and runs every tick") {
  int steps = 0;
  class counting final : public sim_host {
  public:
    explicit counting(int& n) : n_(n) {}
    api::tick_number tick() const override { return n_; }
    api::reply apply(const api::input&) override { return {}; }
    const tick_output& step() override {
      f_.tick = n_++;
      out_ = f_;
      return out_;
    }
    sim::state_snapshot state(const sim::state_query&) const override { return {}; }
    std::vector<emote_summary> list() const override { return {}; }
    std::optional<emote_details> info(std::string_view) const override { return std::nullopt; }
    std::int64_t emote_count() const override { return 0; }
    reload_outcome reload(const emote_reload_request&) override { return {}; }
    core::result<std::string, api::error> register_emote(std::string_view) override {
      return std::string("x:y");
    }
    std::vector<render::display_info> displays() const override { return {}; }
    std::int64_t render_resync(const render_resync_request&) override { return 0; }

  private:
    int& n_;
    api::frame f_;
    tick_output out_;
  };
  host_factory f = [&](const scenario&) -> core::result<std::unique_ptr<sim_host>, std::string> {
    return std::unique_ptr<sim_host>(std::make_unique<counting>(steps));
  };
  const run_result r = run_scenario(load(R"({"script":[{"tick":4,"op":"ping"}]})"), f);
  CHECK(r.passed);
  CHECK(steps == 204);
  CHECK(r.output.empty()); // no events, no replies
}
