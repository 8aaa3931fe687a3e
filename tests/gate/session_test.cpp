// The connection state machine (gate.md §2–§7) driven with hand-built packets for 769 and 775.
#include "gate/session.hpp"
#include "support.hpp"

#include "engine/core/identifier.hpp"
#include "render/packets.hpp"

#include <doctest/doctest.h>

using namespace emote;
using namespace emote::gate;
using namespace emote::gate::test;

namespace {

const api::uuid alice_uuid{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef,
                           0x81, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};

std::int32_t pid(const render::version_table& v, gate_packet p) { return id_of(v, p); }

/// A client and a backend driven through one session up to play, with compression `threshold`.
struct pair_fixture {
  const render::version_table& v;
  std::int32_t threshold;
  std::unordered_set<std::int32_t> hidden;
  session s{max_frame_limit, &hidden};
  session_output out;
  std::int32_t t = -1; ///< the threshold in force

  pair_fixture(std::int32_t protocol, std::int32_t th) : v(version(protocol)), threshold(th) {}

  void client(const std::string& p) { s.from_client(framed(p, t), out); }
  void backend(const std::string& p) { s.from_backend(framed(p, t), out); }

  std::string settings(std::int8_t vd) {
    return [&](std::int32_t id) {
      return packet(id, [&](byte_writer& w) {
        w.string("en_us");
        w.i8(vd);
      });
    }(0);
  }

  void to_play(std::int8_t view_distance = 6) {
    client(packet(0, [&](byte_writer& w) {
      w.varint(v.protocol);
      w.string("localhost");
      w.i16(25565);
      w.varint(2);
    }));
    client(packet(0, [](byte_writer& w) {
      w.string("alice");
      w.uuid(alice_uuid);
    })); // login_start, forwarded unread
    if (threshold >= 0) {
      backend(packet(pid(v, gate_packet::login_compress), [&](byte_writer& w) { w.varint(threshold); }));
      t = threshold;
    }
    backend(packet(pid(v, gate_packet::login_success), [&](byte_writer& w) {
      w.uuid(alice_uuid);
      w.string("alice");
      w.varint(1);
      w.string("textures");
      w.string("dGV4dHVyZXM=");
      w.boolean(true);
      w.string("c2ln");
      if (v.gate.login_success == render::login_success_layout::strict_error_handling) {
        w.boolean(true);
      }
    }));
    client(packet(pid(v, gate_packet::login_acknowledged)));
    client(packet(pid(v, gate_packet::config_settings), [&](byte_writer& w) {
      w.string("en_us");
      w.i8(view_distance);
      w.varint(0);
      w.boolean(true);
      w.u8(0x7f);
      w.varint(1);
      w.boolean(false);
      w.boolean(true);
      w.varint(0);
    }));
    client(packet(pid(v, gate_packet::config_finish)));
    REQUIRE(s.state() == conn_state::play);
    backend(packet(pid(v, gate_packet::play_login), [&](byte_writer& w) {
      w.i32(42);
      w.boolean(false);
      w.varint(1);
      w.string("minecraft:overworld");
      w.varint(20);
      w.varint(10);
      w.varint(10);
      w.boolean(false);
      w.boolean(true);
      w.boolean(false);
      w.varint(0);
      w.string("minecraft:overworld");
      w.i64(0);
      w.i8(0);
      w.u8(0xff);
      w.boolean(false);
      w.boolean(false);
      w.boolean(false);
      w.varint(0);
      if (v.protocol >= 768) {
        w.varint(63);
      }
      w.boolean(false);
    }));
    CHECK(out.inputs.empty()); // no position yet
    backend(position(1, 64, 2, 90));
  }

  std::string position(double x, double y, double z, float yaw) {
    return packet(pid(v, gate_packet::player_position), [&](byte_writer& w) {
      if (v.gate.player_position == render::player_position_layout::absolute_first) {
        w.f64(x);
        w.f64(y);
        w.f64(z);
        w.f32(yaw);
        w.f32(0);
        w.u8(0);
        w.varint(1);
      } else {
        w.varint(1);
        w.f64(x);
        w.f64(y);
        w.f64(z);
        w.f64(0);
        w.f64(0);
        w.f64(0);
        w.f32(yaw);
        w.f32(0);
        w.i32(0);
      }
    });
  }

  std::string move(double x, double y, double z, bool on_ground) {
    return packet(pid(v, gate_packet::move_position), [&](byte_writer& w) {
      w.f64(x);
      w.f64(y);
      w.f64(z);
      w.u8(on_ground ? 1 : 0);
    });
  }
};

} // namespace

TEST_CASE("gate session: login to play with compression; the player joins at its first position") {
  for (const std::int32_t protocol : {767, 769, 775}) {
    CAPTURE(protocol);
    pair_fixture p(protocol, 256);
    p.to_play();
    REQUIRE(p.out.inputs.size() == 1);
    const auto* j = std::get_if<api::player_join>(&p.out.inputs[0]);
    REQUIRE(j);
    CHECK(j->player == core::uuid_text(alice_uuid));
    CHECK(j->uuid == alice_uuid);
    CHECK(j->fields.position == api::dvec3{1, 64, 2});
    CHECK(j->fields.yaw == 90.0F);
    CHECK(j->fields.dimension == "minecraft:overworld");
    CHECK(j->fields.viewer.protocol == std::optional<std::int32_t>(protocol));
    CHECK(j->fields.viewer.entity_id == std::optional<std::int32_t>(42));
    CHECK(j->fields.viewer.view_distance == 6);
    CHECK(j->fields.viewer.name == "alice");
    REQUIRE(j->fields.viewer.skin_textures);
    CHECK(j->fields.viewer.skin_textures->at("default").value == "dGV4dHVyZXM=");
    CHECK(j->fields.viewer.skin_textures->at("default").signature == "c2ln");
    CHECK(p.s.viewer());
    CHECK(p.s.threshold() == 256);
    CHECK(p.out.close == std::nullopt);
  }
}

TEST_CASE("gate session: every frame is forwarded unchanged both ways") {
  pair_fixture p(769, 64);
  p.to_play();
  p.out.clear();
  const std::string chunk = framed(packet(0x27, [](byte_writer& w) { w.bytes(std::string(500, 'c')); }), 64);
  p.s.from_backend(chunk, p.out);
  CHECK(p.out.to_client == chunk);
  const std::string sw = framed(packet(0x3a, [](byte_writer& w) { w.varint(0); }), 64);
  p.s.from_client(sw, p.out);
  CHECK(p.out.to_backend == sw);
}

TEST_CASE("gate session: a jump is the position and on_ground in one update; sneak by version") {
  for (const std::int32_t protocol : {769, 775}) {
    CAPTURE(protocol);
    pair_fixture p(protocol, -1);
    p.to_play();
    p.out.clear();
    p.client(p.move(1, 64.42, 2, false));
    REQUIRE(p.out.inputs.size() == 1);
    const auto* u = std::get_if<api::player_update>(&p.out.inputs[0]);
    REQUIRE(u);
    CHECK(u->fields.position == api::dvec3{1, 64.42, 2});
    CHECK(u->fields.on_ground == false);
    p.out.clear();
    if (p.v.gate.actions[0] >= 0) {
      p.client(packet(pid(p.v, gate_packet::entity_action), [&](byte_writer& w) {
        w.varint(42);
        w.varint(p.v.gate.actions[0]);
        w.varint(0);
      }));
    } else {
      p.client(packet(pid(p.v, gate_packet::player_input), [](byte_writer& w) { w.u8(0x20); }));
    }
    REQUIRE(p.out.inputs.size() == 1);
    CHECK(std::get<api::player_update>(p.out.inputs[0]).fields.sneaking == true);
  }
}

TEST_CASE("gate session: /emote commands and their completion are consumed, others forwarded") {
  pair_fixture p(775, 256);
  p.to_play();
  p.out.clear();
  const auto cmd = [&](std::string text) {
    return packet(pid(p.v, gate_packet::chat_command), [&](byte_writer& w) { w.string(text); });
  };
  p.client(cmd("emote sample:wave"));
  p.client(cmd("emote stop"));
  p.client(cmd("emote list"));
  p.client(cmd("emote"));
  p.client(cmd("emote a b"));
  CHECK(p.out.to_backend.empty());
  REQUIRE(p.out.commands.size() == 5);
  CHECK(p.out.commands[0].what == command_request::kind::play);
  CHECK(p.out.commands[0].emote == "sample:wave");
  CHECK(p.out.commands[1].what == command_request::kind::stop);
  CHECK(p.out.commands[2].what == command_request::kind::list);
  CHECK(p.out.commands[3].what == command_request::kind::usage);
  CHECK(p.out.commands[4].what == command_request::kind::usage);
  p.client(cmd("emotes"));
  p.client(cmd("help"));
  CHECK(p.out.commands.size() == 5);
  CHECK_FALSE(p.out.to_backend.empty());
  p.out.clear();
  p.client(packet(pid(p.v, gate_packet::tab_complete_request), [](byte_writer& w) {
    w.varint(7);
    w.string("/emote sa");
  }));
  CHECK(p.out.to_backend.empty());
  REQUIRE(p.out.tabs.size() == 1);
  CHECK(p.out.tabs[0].transaction == 7);
  CHECK(p.out.tabs[0].word == "sa");
  CHECK(p.out.tabs[0].start == 7);
  p.s.answer_tab(p.out.tabs[0], {"sample:wave"}, p.out);
  frame_splitter fs(max_frame_limit);
  fs.feed(p.out.to_client);
  const auto f = fs.next();
  REQUIRE(f);
  packet_codec c;
  c.set_threshold(256);
  std::string back;
  REQUIRE(c.decode(f->body, back));
  CHECK(back == write_tab_response(p.v, 7, 7, 2, {"sample:wave"}));
}

TEST_CASE("gate session: injected packets never land inside a backend bundle") {
  pair_fixture p(769, -1);
  p.to_play();
  p.out.clear();
  const std::string delim = packet(p.v.packet_ids[0]);
  const std::string ours = packet(0x5d, [](byte_writer& w) { w.varint(1000000001); w.u8(0xff); });
  const std::string theirs = packet(0x01, [](byte_writer& w) { w.bytes("spawn"); });
  p.backend(delim);
  p.backend(theirs);
  CHECK(p.s.bundle_open());
  p.s.inject(ours, p.out);
  CHECK(p.out.to_client == framed(delim) + framed(theirs));
  p.backend(delim);
  CHECK_FALSE(p.s.bundle_open());
  CHECK(p.out.to_client == framed(delim) + framed(theirs) + framed(delim) + framed(ours));
  p.s.inject(ours, p.out);
  CHECK(p.out.to_client.ends_with(framed(ours) + framed(ours)));
}

TEST_CASE("gate session: a return to configuration stops our packets and re-renders after it") {
  pair_fixture p(769, 256);
  p.to_play();
  p.out.clear();
  p.backend(packet(pid(p.v, gate_packet::start_configuration)));
  REQUIRE(p.out.inputs.size() == 1);
  const auto& u = std::get<api::player_update>(p.out.inputs[0]);
  CHECK(u.fields.viewer.protocol == std::optional<std::optional<std::int32_t>>(std::optional<std::int32_t>()));
  CHECK(u.fields.viewer.render_reset);
  p.client(packet(pid(p.v, gate_packet::configuration_acknowledged)));
  CHECK(p.s.state() == conn_state::configuration);
  const std::string before = p.out.to_client;
  p.s.inject(packet(0x5d), p.out);
  CHECK(p.out.to_client == before); // nothing while configuring
  p.out.clear();
  p.client(packet(pid(p.v, gate_packet::config_finish)));
  REQUIRE(p.out.inputs.size() == 1);
  CHECK(std::get<api::player_update>(p.out.inputs[0]).fields.viewer.protocol ==
        std::optional<std::optional<std::int32_t>>(769));
  CHECK(p.s.viewer());
}

TEST_CASE("gate session: death, respawn, game mode, riding and damage from the backend") {
  pair_fixture p(775, -1);
  p.to_play();
  p.out.clear();
  p.backend(packet(pid(p.v, gate_packet::update_health), [](byte_writer& w) { w.f32(0); w.varint(0); w.f32(0); }));
  p.backend(packet(pid(p.v, gate_packet::respawn), [](byte_writer& w) {
    w.varint(0);
    w.string("minecraft:overworld");
    w.i64(0);
    w.i8(1);
    w.u8(0);
    w.boolean(false);
    w.boolean(false);
    w.boolean(false);
    w.varint(0);
    w.varint(63);
    w.u8(0);
  }));
  p.backend(packet(pid(p.v, gate_packet::game_state_change), [](byte_writer& w) { w.u8(3); w.f32(2); }));
  p.backend(packet(pid(p.v, gate_packet::set_passengers), [](byte_writer& w) { w.varint(77); w.varint(1); w.varint(42); }));
  p.backend(packet(pid(p.v, gate_packet::damage_event), [](byte_writer& w) { w.varint(42); w.varint(1); w.varint(0); w.varint(0); w.boolean(false); }));
  p.backend(packet(pid(p.v, gate_packet::damage_event), [](byte_writer& w) { w.varint(43); w.varint(1); w.varint(0); w.varint(0); w.boolean(false); }));
  REQUIRE(p.out.inputs.size() == 5);
  CHECK(std::get<api::player_update>(p.out.inputs[0]).fields.alive == false);
  const auto& r = std::get<api::player_update>(p.out.inputs[1]);
  CHECK(r.fields.alive == true);
  CHECK(r.fields.game_mode == api::game_mode::creative);
  CHECK(r.fields.viewer.render_reset);
  CHECK(std::get<api::player_update>(p.out.inputs[2]).fields.game_mode == api::game_mode::adventure);
  CHECK(std::get<api::player_update>(p.out.inputs[3]).fields.vehicle ==
        std::optional<std::optional<std::string>>(std::optional<std::string>("77")));
  CHECK(std::get<api::player_event>(p.out.inputs[4]).kind == api::player_event_kind::damage);
}

TEST_CASE("gate session: hidden players' metadata and equipment are rewritten") {
  pair_fixture p(769, -1);
  p.to_play();
  p.hidden.insert(55);
  p.out.clear();
  const auto& v = p.v;
  const auto meta = [&](std::int32_t e) {
    return packet(v.packet_ids[2], [&](byte_writer& w) {
      w.varint(e);
      w.u8(v.player_flags_index);
      w.varint(v.serializer_ids[0]);
      w.u8(0x02);
      w.u8(0xff);
    });
  };
  p.backend(meta(55));
  std::string expect = meta(55);
  expect[expect.size() - 2] = static_cast<char>(0x22);
  CHECK(p.out.to_client == framed(expect));
  p.out.clear();
  p.backend(meta(56));
  CHECK(p.out.to_client == framed(meta(56)));
  p.out.clear();
  p.backend(packet(v.packet_ids[7], [](byte_writer& w) { w.varint(55); w.i8(0); w.varint(1); w.varint(800); w.varint(0); w.varint(0); }));
  std::string blank;
  byte_writer bw(blank);
  render::write_blank_equipment(bw, v, 55);
  CHECK(p.out.to_client == framed(blank));
}

TEST_CASE("gate session: declare_commands gets the emote tree appended under the root") {
  const auto& v = version(769);
  // root(0) -> help(1) literal; time(2) argument with an integer range
  const std::string original = packet(pid(v, gate_packet::declare_commands), [&](byte_writer& w) {
    w.varint(3);
    w.u8(0x00);
    w.varint(2);
    w.varint(1);
    w.varint(2);
    w.u8(0x01 | 0x04);
    w.varint(0);
    w.string("help");
    w.u8(0x02 | 0x04);
    w.varint(0);
    w.string("n");
    w.varint(3); // brigadier:integer
    w.u8(0x03);
    w.i32(0);
    w.i32(10);
    w.varint(0);
  });
  const auto rewritten = append_emote_command(v, original);
  REQUIRE(rewritten);
  const std::string expect = packet(pid(v, gate_packet::declare_commands), [&](byte_writer& w) {
    w.varint(7);
    w.u8(0x00);
    w.varint(3);
    w.varint(1);
    w.varint(2);
    w.varint(3);
    w.u8(0x05);
    w.varint(0);
    w.string("help");
    w.u8(0x06);
    w.varint(0);
    w.string("n");
    w.varint(3);
    w.u8(0x03);
    w.i32(0);
    w.i32(10);
    w.u8(0x05);
    w.varint(3);
    w.varint(4);
    w.varint(5);
    w.varint(6);
    w.string("emote");
    w.u8(0x05);
    w.varint(0);
    w.string("stop");
    w.u8(0x05);
    w.varint(0);
    w.string("list");
    w.u8(0x16);
    w.varint(0);
    w.string("id");
    w.varint(v.gate.string_parser);
    w.varint(0);
    w.string("minecraft:ask_server");
    w.varint(0);
  });
  CHECK(*rewritten == expect);
  // A child index out of range, or trailing bytes: not rewritten.
  CHECK_FALSE(append_emote_command(v, original + "x"));
}

TEST_CASE("gate session: encryption is refused with a message, an unknown protocol passes through") {
  {
    pair_fixture p(769, -1);
    p.client(packet(0, [](byte_writer& w) { w.varint(769); w.string("h"); w.i16(1); w.varint(2); }));
    p.backend(packet(pid(p.v, gate_packet::encryption_begin), [](byte_writer& w) { w.string(""); w.varint(0); w.varint(0); w.boolean(true); }));
    CHECK(p.out.close == fault::encryption);
    CHECK(p.out.note == notice::encryption);
    CHECK(p.out.to_client.find("offline-mode backend") != std::string::npos);
    CHECK(p.s.state() == conn_state::closed);
  }
  {
    session s(max_frame_limit, nullptr);
    session_output out;
    const std::string hs = framed(packet(0, [](byte_writer& w) { w.varint(765); w.string("h"); w.i16(1); w.varint(2); }));
    const std::string more = "\x05\x00\x01\x02\x03\x04 anything after";
    s.from_client(hs + more, out);
    CHECK(out.note == notice::passthrough);
    CHECK(out.note_protocol == 765);
    CHECK(out.to_backend == hs + more);
    CHECK(s.state() == conn_state::passthrough);
    out.clear();
    s.from_backend("\xff\xff\xff\xff raw", out);
    CHECK(out.to_client == "\xff\xff\xff\xff raw");
    CHECK(out.close == std::nullopt);
  }
}

TEST_CASE("gate session: malformed input cuts the pair; the player leaves once") {
  pair_fixture p(769, 256);
  p.to_play();
  p.out.clear();
  p.s.from_client(std::string("\x05\x80\x80\x80\x80\x80", 6), p.out); // data length VarInt too long
  CHECK(p.out.close == fault::malformed);
  REQUIRE(p.out.inputs.size() == 1);
  CHECK(std::get_if<api::player_leave>(&p.out.inputs[0]));
  p.out.clear();
  p.s.closed(p.out);
  CHECK(p.out.inputs.empty());
  {
    session s(128, nullptr);
    session_output out;
    s.from_client(framed(std::string(200, 'a')), out);
    CHECK(out.close == fault::too_long);
  }
}

TEST_CASE("gate session: a backend that is down gets the client a disconnect for its state") {
  pair_fixture p(769, -1);
  p.client(packet(0, [](byte_writer& w) { w.varint(769); w.string("h"); w.i16(1); w.varint(2); }));
  p.s.backend_down("connection refused", p.out);
  CHECK(p.out.close == fault::backend_down);
  frame_splitter fs(max_frame_limit);
  fs.feed(p.out.to_client);
  const auto f = fs.next();
  REQUIRE(f);
  const auto sp = split(f->body);
  REQUIRE(sp);
  CHECK(sp->id == pid(p.v, gate_packet::login_disconnect));
  CHECK(std::string(sp->fields).find("not reachable: connection refused") != std::string::npos);
}

TEST_CASE("gate session: a backend down before the client's handshake is told once it arrives") {
  const auto& v = version(775);
  session s(max_frame_limit, nullptr);
  session_output out;
  s.backend_down("connection refused", out);
  CHECK(out.close == std::nullopt);
  CHECK(out.to_client.empty());
  s.from_client(framed(packet(0, [](byte_writer& w) { w.varint(775); w.string("h"); w.i16(1); w.varint(2); })), out);
  CHECK(out.close == fault::backend_down);
  frame_splitter fs(max_frame_limit);
  fs.feed(out.to_client);
  const auto f = fs.next();
  REQUIRE(f);
  CHECK(split(f->body)->id == id_of(v, gate_packet::login_disconnect));
  // A status ping gets no answer, only the close.
  session st(max_frame_limit, nullptr);
  session_output o2;
  st.backend_down("down", o2);
  st.from_client(framed(packet(0, [](byte_writer& w) { w.varint(775); w.string("h"); w.i16(1); w.varint(1); })), o2);
  CHECK(o2.close == fault::backend_down);
  CHECK(o2.to_client.empty());
}
