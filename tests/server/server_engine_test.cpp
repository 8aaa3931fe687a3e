// The server in process with the real Engine and the test content (tests/data/server/emotes):
// every op and the Engine's error codes of protocol.md §3 through a socket, with the connection
// usable after each. These cases need the Engine and are skipped in builds without it.
#include "engine_server.hpp"
#include "process.hpp"
#include "render/tables.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>
#include <unistd.h>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::server::testing;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

struct conversation {
  explicit conversation(line_client& client) : c(client) {}
  line_client& c;
  int next = 0;
  std::vector<std::string> other; ///< frames and other lines read while waiting for replies

  /// Send `body` (without op braces' id) and return the reply line.
  std::string ask(const std::string& op_fields) {
    const std::string id = std::to_string(++next);
    c.send_line(R"({"id":)" + id + "," + op_fields + "}");
    for (;;) {
      auto line = c.read_line(5s);
      REQUIRE(line.has_value());
      if (line->starts_with(R"({"op":"reply","id":)" + id + ",")) {
        return *line;
      }
      other.push_back(*line);
    }
  }
  void ok(const std::string& op_fields) {
    const auto r = ask(op_fields);
    CHECK_MESSAGE(r.find(R"("ok":true)") != std::string::npos, r);
  }
  void fails(const std::string& op_fields, const std::string& code, const std::string& message) {
    const auto r = ask(op_fields);
    CHECK_MESSAGE(r.find(R"("code":")" + code + "\"") != std::string::npos, r);
    CHECK_MESSAGE(r.find(R"("message":")" + message) != std::string::npos, r);
    ok(R"("op":"ping")"); // still usable
  }
};

} // namespace

TEST_CASE("[engine] server: every op against the Engine") {
  engine_server s;
  auto c = s.client();
  conversation t(c);
  t.ok(R"("op":"subscribe","events":["playback.","partner."])");
  t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5],"yaw":0)");
  t.ok(R"("op":"player.update","player":"alice","sneaking":true)");
  t.ok(R"("op":"player.update","player":"alice","sneaking":false)");
  const auto play = t.ask(R"("op":"emote.play","player":"alice","emote":"t:wave")");
  CHECK(play.find(R"("ok":true,"session":1,"emote":"t:wave","role":"solo")") != std::string::npos);
  t.ok(R"("op":"clock.step","ticks":2)");
  CHECK(t.ask(R"("op":"state.get","player":"alice")").find(R"("session":1)") != std::string::npos);
  CHECK(t.ask(R"("op":"emote.stop","player":"alice")").find(R"("session":1)") != std::string::npos);
  t.ok(R"("op":"player.event","player":"alice","event":"jump")");
  CHECK(t.ask(R"("op":"emote.stop_all")").find(R"("stopped":0)") != std::string::npos);
  const auto list = t.ask(R"("op":"emote.list")");
  CHECK(list.find(R"("id":"t:handshake","type":"sequence")") != std::string::npos);
  CHECK(t.ask(R"("op":"emote.info","emote":"t:random")").find(R"("steps":)") != std::string::npos);
  CHECK(t.ask(R"("op":"world.blocks","set":[{"from":[0,60,0],"to":[1,60,1],"block":"solid"}])")
            .find(R"("changed":4)") != std::string::npos);
  CHECK(t.ask(R"("op":"world.clear")").find(R"("cleared":)") != std::string::npos);
  t.ok(R"("op":"cooldown.clear")");
  const auto reg = t.ask(
      R"("op":"emote.register","document":{"type":"animation","schema_version":4,"id":"t:runtime",)"
      R"("metadata":{"name":"Runtime","description":""},"settings":{"standalone":true,"cooldown":"0t",)"
      R"("player":{"hidden":false,"stop_conditions":{"movement_distance":1,"jump":true,"submerge":true,)"
      R"("ride":true,"damage":true,"attack":true,"game_mode_change":true}},"playback":{"mode":"once"}},)"
      R"("nodes":{"r":{"type":"anchor","space":"initiator","transform":{"position":[0,0,0],)"
      R"("rotation":[0,0,0],"scale":[1,1,1]}}},"timeline":{"duration":"5t","tracks":{},"events":{}}})");
  CHECK_MESSAGE(reg.find(R"("emote":"t:runtime")") != std::string::npos, reg);
  const auto reload = t.ask(R"("op":"emote.reload")");
  CHECK_MESSAGE(reload.find(R"("loaded":)") != std::string::npos, reload);
  t.ok(R"("op":"emote.play","player":"alice","emote":"t:runtime")"); // survived the reload
  t.ok(R"("op":"emote.unregister","emote":"t:runtime")");
  t.ok(R"("op":"player.leave","player":"alice")");
}

TEST_CASE("[engine] server: the Engine's error codes, the connection usable after each") {
  SUBCASE("unknown_player, player_exists, unknown_emote, not_standalone, no_permission, "
          "cooldown, not_playing") {
    engine_server s;
    auto c = s.client();
    conversation t(c);
    t.fails(R"("op":"emote.play","player":"ghost","emote":"t:wave")", "unknown_player",
            "Player is not online.");
    t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5])");
    t.fails(R"("op":"player.join","player":"alice","position":[0.5,64,0.5])", "player_exists", "");
    t.fails(R"("op":"emote.play","player":"alice","emote":"t:nope")", "unknown_emote",
            "That emote does not exist.");
    t.fails(R"("op":"emote.play","player":"alice","emote":"t:pose_a")", "not_standalone",
            "This emote can only be played as part of a sequence.");
    t.ok(
        R"("op":"player.join","player":"pleb","position":[5.5,64,0.5],"permissions":{"emote.default":false})");
    t.fails(R"("op":"emote.play","player":"pleb","emote":"t:wave")", "no_permission",
            "You do not have permission to use this emote.");
    t.ok(R"("op":"emote.play","player":"alice","emote":"t:cool")");
    const auto cd = t.ask(R"("op":"emote.play","player":"alice","emote":"t:cool")");
    CHECK(cd.find(R"("code":"cooldown")") != std::string::npos);
    CHECK(cd.find(R"("remaining_ticks":40)") != std::string::npos);
    t.fails(R"("op":"emote.stop","player":"pleb")", "not_playing", "");
  }
  SUBCASE("disabled") {
    emote::sim::engine_config cfg;
    cfg.disabled = {"t:big"};
    engine_server s(cfg);
    auto c = s.client();
    conversation t(c);
    t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5])");
    t.fails(R"("op":"emote.play","player":"alice","emote":"t:big")", "disabled",
            "This emote is currently unavailable.");
  }
  SUBCASE("already_playing (cooldown mode stop)") {
    emote::sim::engine_config cfg;
    cfg.cooldown_mode = emote::sim::cooldown_mode::stop;
    engine_server s(cfg);
    auto c = s.client();
    conversation t(c);
    t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5])");
    t.ok(R"("op":"emote.play","player":"alice","emote":"t:cool")");
    t.fails(R"("op":"emote.play","player":"alice","emote":"t:cool")", "already_playing",
            "This emote is already playing.");
  }
  SUBCASE("display_limit") {
    emote::sim::engine_config cfg;
    cfg.max_active_display_entities = 2;
    engine_server s(cfg);
    auto c = s.client();
    conversation t(c);
    t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5])");
    t.fails(R"("op":"emote.play","player":"alice","emote":"t:big")", "display_limit",
            "Too many emotes are active right now. Try again shortly.");
  }
}

TEST_CASE("[engine] server: a disconnect makes the connection's players leave with "
          "DISCONNECTED") {
  engine_server s;
  auto watcher = s.client();
  conversation w(watcher);
  w.ok(R"("op":"subscribe","events":["playback.stopped"])");
  {
    auto c = s.client();
    conversation t(c);
    t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5])");
    t.ok(R"("op":"emote.play","player":"alice","emote":"t:wave")");
  }
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(10ms);
    if (w.ask(R"("op":"state.get")").find("alice") == std::string::npos) {
      break;
    }
  }
  w.ok(R"("op":"clock.step","ticks":1)");
  bool seen = false;
  for (const auto& line : w.other) {
    seen = seen || line.find(R"("player":"alice","emote":"t:wave","reason":"DISCONNECTED")") !=
                       std::string::npos;
  }
  CHECK(seen);
}

TEST_CASE("[engine] server: emote.reload swaps the catalog; a failed reload keeps the old one") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("emote_sim_reload_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::copy(test_emotes(), dir, std::filesystem::copy_options::recursive);
  engine_server s({}, dir);
  auto c = s.client();
  conversation t(c);
  t.ok(R"("op":"subscribe","events":["playback.stopped"])");
  t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5])");
  t.ok(R"("op":"emote.play","player":"alice","emote":"t:wave")");
  // A reload stops every playback with RELOAD and loads the folder as it is now.
  std::filesystem::remove(dir / "t.big.json");
  const auto r = t.ask(R"("op":"emote.reload")");
  CHECK_MESSAGE(r.find(R"("loaded":10)") != std::string::npos, r);
  t.ok(R"("op":"clock.step","ticks":1)");
  bool reload_stop = false;
  for (const auto& line : t.other) {
    reload_stop = reload_stop || line.find(R"("reason":"RELOAD")") != std::string::npos;
  }
  CHECK(reload_stop);
  t.fails(R"("op":"emote.play","player":"alice","emote":"t:big")", "unknown_emote", "");
  // The folder is gone: the reload fails and the running catalog stays.
  std::filesystem::remove_all(dir);
  const auto failed = t.ask(R"("op":"emote.reload")");
  CHECK_MESSAGE(failed.find(R"("ok":false)") != std::string::npos, failed);
  t.ok(R"("op":"emote.play","player":"alice","emote":"t:wave")");
  std::promise<std::string> text;
  asio::post(s.io, [&] { text.set_value(s.server->render_metrics()); });
  CHECK(text.get_future().get().find("emote_sim_reload_failures_total 1") != std::string::npos);
}

TEST_CASE(
    "[engine] server: a reload whose folder vanished is `content_unavailable`; the catalog and "
    "the "
    "connection stay usable") {
  const auto dir = std::filesystem::temp_directory_path() / "emote_server_reload_internal";
  std::filesystem::remove_all(dir);
  std::filesystem::copy(test_emotes(), dir, std::filesystem::copy_options::recursive);
  {
    engine_server s({}, dir);
    auto c = s.client();
    conversation t(c);
    std::filesystem::remove_all(dir);
    t.fails(R"("op":"emote.reload")", "content_unavailable", "reload failed: ");
    t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5])");
    const auto play = t.ask(R"("op":"emote.play","player":"alice","emote":"t:wave")");
    CHECK_MESSAGE(play.find(R"("ok":true)") != std::string::npos, play);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("[engine] server: viewers get packets; state.get has the displays; render.resync "
          "(render.md §4, §6)") {
  engine_server s;
  auto c = s.client();
  conversation t(c);
  // K27: packets and lossy do not go together.
  t.fails(R"("op":"subscribe","packets":true,"lossy":true)", "bad_request", "cannot be combined");
  t.ok(R"("op":"subscribe","packets":true,"events":["playback."])");
  // K22: an unsupported protocol names the supported list.
  t.fails(R"("op":"player.join","player":"x","position":[0,64,0],"protocol":700)", "bad_request",
          "is not a supported Minecraft protocol (supported: 767");
  t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5],"protocol":769,)"
       R"("entity_id":42,"name":"Alice")");
  t.ok(R"("op":"player.join","player":"bob","position":[2,64,0],"protocol":775,"entity_id":43)");
  t.ok(R"("op":"player.join","player":"carol","position":[2,64,2])"); // never a viewer
  t.ok(R"("op":"emote.play","player":"alice","emote":"t:wave")");
  t.ok(R"("op":"clock.step","ticks":2)");
  bool alice = false, bob = false, carol = false, packets_only = false;
  for (const auto& line : t.other) {
    if (!line.starts_with(R"({"op":"frame")")) {
      continue;
    }
    rapidjson::Document d;
    d.Parse(line.c_str());
    REQUIRE(d.IsObject());
    if (!d.HasMember("packets")) {
      continue;
    }
    packets_only |= d["events"].Empty();
    for (const auto& e : d["packets"].GetArray()) {
      for (const auto& who : e["to"].GetArray()) {
        const std::string name = who.GetString();
        alice |= name == "alice";
        bob |= name == "bob";
        carol |= name == "carol";
        CHECK(e["protocol"].GetInt() == (name == "alice" ? 769 : 775));
      }
      CHECK(e["data"].GetStringLength() > 0);
    }
  }
  CHECK(alice);
  CHECK(bob);
  CHECK_FALSE(carol);  // never joined as a viewer: no packets
  CHECK(packets_only); // the tick after the spawn has packets without a playback.* event
  const auto st = t.ask(R"("op":"state.get")");
  CHECK_MESSAGE(st.find(R"("displays":[{"handle":)") != std::string::npos, st);
  CHECK(st.find(R"("next")") == std::string::npos);
  // Paged (protocol.md §4): alice's page has her session's displays and says where to go on;
  // the page after it has bob and carol, no session, no display, no next.
  const auto p1 = t.ask(R"("op":"state.get","limit":1)");
  CHECK_MESSAGE(p1.find(R"("players":[{"player":"alice")") != std::string::npos, p1);
  CHECK(p1.find(R"("displays":[{"handle":)") != std::string::npos);
  CHECK(p1.find(R"("next":"alice")") != std::string::npos);
  const auto p2 = t.ask(R"("op":"state.get","limit":5,"after":"alice")");
  CHECK_MESSAGE(p2.find(R"("players":[{"player":"bob")") != std::string::npos, p2);
  CHECK(p2.find(R"({"player":"carol")") != std::string::npos);
  CHECK(p2.find(R"("sessions":[],"cooldowns":[],"displays":[])") != std::string::npos);
  CHECK(p2.find(R"("next")") == std::string::npos);
  CHECK(t.ask(R"("op":"render.resync","players":["alice","carol","nobody"])")
            .find(R"("viewers":1)") != std::string::npos);
  CHECK(t.ask(R"("op":"render.resync")").find(R"("viewers":2)") != std::string::npos);
}

namespace {

/// The bytes of base64 text (RFC 4648, padded).
std::string from_base64(std::string_view b64) {
  const std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : b64) {
    if (c == '=') {
      break;
    }
    const auto k = alphabet.find(c);
    REQUIRE(k != std::string_view::npos);
    acc = (acc << 6) | static_cast<std::uint32_t>(k);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

/// The first byte of base64 text (the packet id of an entry: every id here is below 0x80).
std::int32_t first_byte(std::string_view b64) {
  return static_cast<std::uint8_t>(from_base64(b64).at(0));
}

/// The number of ids in the entity_destroy entries a frame line sends to `who` (each count
/// below 0x80: the byte after the packet id).
std::size_t destroyed_ids_for(const std::string& frame, const std::string& who,
                              std::int32_t destroy_id) {
  std::size_t n = 0;
  rapidjson::Document d;
  d.Parse(frame.c_str());
  for (const auto& e : d["packets"].GetArray()) {
    for (const auto& to : e["to"].GetArray()) {
      const std::string bytes = from_base64(e["data"].GetString());
      if (who == to.GetString() && static_cast<std::uint8_t>(bytes.at(0)) == destroy_id) {
        n += static_cast<std::uint8_t>(bytes.at(1));
      }
    }
  }
  return n;
}

/// The packet ids of the entries a frame line sends to `who`, in order (render.md §6).
std::vector<std::int32_t> packet_ids_for(const std::string& frame, const std::string& who) {
  std::vector<std::int32_t> ids;
  rapidjson::Document d;
  d.Parse(frame.c_str());
  if (!d.IsObject() || !d.HasMember("packets")) {
    return ids;
  }
  for (const auto& e : d["packets"].GetArray()) {
    bool listed = false;
    for (const auto& to : e["to"].GetArray()) {
      listed |= who == to.GetString();
    }
    if (listed) {
      ids.push_back(first_byte(e["data"].GetString()));
    }
  }
  return ids;
}

std::vector<std::string> frames_of(const std::vector<std::string>& lines) {
  std::vector<std::string> f;
  for (const auto& l : lines) {
    if (l.starts_with(R"({"op":"frame")")) {
      f.push_back(l);
    }
  }
  return f;
}

} // namespace

TEST_CASE("[engine] server: a packets subscriber gets a snapshot for itself only; an observer "
          "that subscribes again and again changes nothing others receive (render.md §4 rule 6)") {
  engine_server s;
  auto plugin = s.client();
  conversation p(plugin);
  p.ok(R"("op":"subscribe","packets":true)");
  p.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5],"protocol":769,)"
       R"("entity_id":42)");
  p.ok(R"("op":"player.join","player":"bob","position":[2,64,0],"protocol":769,"entity_id":43)");
  p.ok(R"("op":"emote.play","player":"alice","emote":"t:wave")");
  p.ok(R"("op":"clock.step","ticks":2)"); // spawned
  const auto* v = emote::render::find_version(769);
  const std::int32_t spawn = v->packet_ids[static_cast<std::size_t>(emote::render::packet_kind::spawn_entity)];
  const std::int32_t destroy = v->packet_ids[static_cast<std::size_t>(emote::render::packet_kind::entity_destroy)];
  std::size_t spawned = 0;
  for (const auto& f : frames_of(p.other)) {
    const auto ids = packet_ids_for(f, "bob");
    spawned += static_cast<std::size_t>(std::count(ids.begin(), ids.end(), spawn));
  }
  REQUIRE(spawned > 0); // the emote's displays, once each
  p.other.clear();

  // An observer subscribes with packets on every tick: the plugin's stream is as before (no
  // destroy, no spawn: the emote only moves), and the observer gets one snapshot per window.
  auto watcher = s.client("observer");
  conversation o(watcher);
  for (int k = 0; k < 5; ++k) {
    o.ok(R"("op":"subscribe","packets":true)");
    p.ok(R"("op":"clock.step","ticks":1)");
  }
  for (const auto& f : frames_of(p.other)) {
    const auto ids = packet_ids_for(f, "bob");
    CHECK(std::count(ids.begin(), ids.end(), spawn) == 0);
    CHECK(std::count(ids.begin(), ids.end(), destroy) == 0);
  }
  // The observer's first frame: after the tick's entries, per viewer one destroy of what it
  // tracks and the spawn bundles again, in join order.
  o.ok(R"("op":"ping")");
  const auto seen = frames_of(o.other);
  REQUIRE_FALSE(seen.empty());
  const auto first = packet_ids_for(seen.front(), "bob");
  CHECK(std::count(first.begin(), first.end(), destroy) == 1);
  const std::size_t tracked = destroyed_ids_for(seen.front(), "bob", destroy);
  CHECK(tracked > 0);
  CHECK(static_cast<std::size_t>(std::count(first.begin(), first.end(), spawn)) == tracked);
  std::size_t snapshots = 0;
  for (const auto& f : seen) {
    const auto ids = packet_ids_for(f, "alice");
    snapshots += std::count(ids.begin(), ids.end(), destroy) > 0 ? 1 : 0;
  }
  CHECK(snapshots == 1); // five subscribes within 20 ticks: one snapshot, the rest waiting
  std::promise<std::string> text;
  boost::asio::post(s.io, [&] { text.set_value(s.m.render()); });
  const std::string metrics = text.get_future().get();
  // The plugin's own subscription had its snapshot too (empty then: no viewer yet).
  CHECK_MESSAGE(metrics.find("emote_sim_render_snapshots_total 2\n") != std::string::npos, metrics);
  CHECK(metrics.find("emote_sim_render_snapshots_waiting 1\n") != std::string::npos);
}

TEST_CASE("[engine] server: with nobody receiving packets none are built; a later subscriber's "
          "snapshot brings it up to date (render.md §6)") {
  engine_server s;
  auto plugin = s.client();
  conversation p(plugin);
  p.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5],"protocol":769,)"
       R"("entity_id":42)");
  p.ok(R"("op":"emote.play","player":"alice","emote":"t:wave")");
  p.ok(R"("op":"clock.step","ticks":3)"); // spawned and moving, nobody receiving
  const auto metric = [&](const std::string& name) {
    std::promise<std::string> text;
    boost::asio::post(s.io, [&] { text.set_value(s.m.render()); });
    const std::string all = text.get_future().get();
    const auto at = all.find("\n" + name + " ");
    REQUIRE_MESSAGE(at != std::string::npos, all);
    return std::stoll(all.substr(at + name.size() + 2));
  };
  CHECK(metric("emote_sim_render_unbuilt_ticks_total") == 3);
  p.ok(R"("op":"subscribe","packets":true)");
  p.other.clear();
  p.ok(R"("op":"clock.step","ticks":2)");
  CHECK(metric("emote_sim_render_unbuilt_ticks_total") == 3); // a subscriber: built
  const auto* v = emote::render::find_version(769);
  const std::int32_t spawn =
      v->packet_ids[static_cast<std::size_t>(emote::render::packet_kind::spawn_entity)];
  const auto frames = frames_of(p.other);
  REQUIRE_FALSE(frames.empty());
  // The snapshot spawns what alice tracks: the emote's displays, spawned while nobody received.
  const auto first = packet_ids_for(frames.front(), "alice");
  CHECK(std::count(first.begin(), first.end(), spawn) > 0);
}

TEST_CASE("[engine] server: render.resync resyncs a viewer at most once per 20 ticks "
          "(render.md §4 rule 5)") {
  engine_server s;
  auto c = s.client();
  conversation t(c);
  t.ok(R"("op":"subscribe","packets":true)");
  t.ok(R"("op":"player.join","player":"alice","position":[0.5,64,0.5],"protocol":769)");
  t.ok(R"("op":"emote.play","player":"alice","emote":"t:wave")");
  t.ok(R"("op":"clock.step","ticks":2)");
  t.other.clear();
  const auto* v = emote::render::find_version(769);
  const std::int32_t destroy =
      v->packet_ids[static_cast<std::size_t>(emote::render::packet_kind::entity_destroy)];
  std::vector<int> destroy_ticks;
  for (int k = 0; k < 25; ++k) {
    t.ok(R"("op":"render.resync","players":["alice"])");
    t.ok(R"("op":"clock.step","ticks":1)");
  }
  int tick = 0;
  for (const auto& f : frames_of(t.other)) {
    ++tick;
    const auto ids = packet_ids_for(f, "alice");
    if (std::count(ids.begin(), ids.end(), destroy) > 0) {
      destroy_ticks.push_back(tick);
    }
  }
  // The first request resyncs at once; the next ones wait for the window: 20 ticks later.
  REQUIRE(destroy_ticks.size() == 2);
  CHECK(destroy_ticks[1] - destroy_ticks[0] == 20);
}

TEST_CASE("[engine] python: the client's packet helpers on a viewer's frames") {
  if (std::system("python3 -c pass > /dev/null 2>&1") != 0) {
    MESSAGE("python3 is not installed; skipped");
    return;
  }
  engine_server s;
  const std::string addr = s.server->bound()[0].text();
  const std::string script = std::string(R"(
import sys; sys.path.insert(0, ")") +
                             EMOTE_SIM_SOURCE_DIR + R"(/clients/python")
from emote_sim import Client, viewer_packets, packet_id
with Client(")" + addr + R"(", client="py-packets") as c:
    c.subscribe(packets=True)
    c.join("alice", position=[0, 64, 0], protocol=769, entity_id=42)
    c.join("carol", position=[1, 64, 0])
    c.play("alice", "t:wave")
    c.step(3)
    assert c.resync(["alice", "carol"]) == 1
    c.step(1)
    frames = list(c.frames(timeout=1))
    mine = [p for f in frames for p in viewer_packets(f, "alice")]
    assert mine and all(proto == 769 for proto, _ in mine), mine
    ids = [packet_id(p) for _, p in mine]
    assert ids[0] == 0x00 and ids[1] == 0x01, ids   # a spawn bundle opens
    assert 0x47 in ids, ids                          # the resync destroys (1.21.4 remove_entities)
    assert not [p for f in frames for p in viewer_packets(f, "carol")]
print("packets ok")
)";
  // A folder of this process's own: test runs of several checkouts at once do not collide.
  const auto path = scratch_dir("py_packets") / "packets.py";
  { std::ofstream(path) << script; }
  const std::string cmd = "python3 " + path.string() + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr) {
    out += buf;
  }
  const int rc = pclose(p);
  CHECK_MESSAGE(rc == 0, out);
  CHECK(out.find("packets ok") != std::string::npos);
  std::filesystem::remove(path);
}
