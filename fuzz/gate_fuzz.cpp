// libFuzzer target over the gate (gate.md): the frame splitter, the packet codec, the packet
// readers and writers, and the connection state machine. The first byte picks the mode (low 2
// bits) and the version (the rest, modulo the supported versions):
//   0  a session brought to play (compression on when bit 7 of the second byte is set) by
//      well-formed login packets, then the rest fed in chunks: each chunk's first byte says the
//      side (bit 0) and the length (the other bits) — what a client and a backend could send
//   1  a fresh session fed the input as client bytes, then as backend bytes (handshake parsing)
//   2  every reader, append_emote_command and hide_in_metadata on the input as one packet
//   3  the splitter and codec on the input as a stream of frames, with a threshold
// Beyond the sanitizers it checks the bounds the gate promises: what it buffers and writes stays
// proportional to what it read.
#include "gate/packets.hpp"
#include "gate/session.hpp"
#include "render/framing.hpp"
#include "render/wire.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace emote;
using namespace emote::gate;

std::string framed(const std::string& p, std::int32_t threshold) {
  std::string out;
  render::packet_framer f(threshold);
  f.append(out, p);
  return out;
}

template <class F>
std::string packet(std::int32_t id, F&& fields) {
  std::string p;
  render::byte_writer w(p);
  w.varint(id);
  fields(w);
  return p;
}

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

/// Handshake, login and configuration up to play, for `v`.
void to_play(session& s, const render::version_table& v, std::int32_t threshold) {
  session_output out;
  std::int32_t t = -1;
  s.from_client(framed(packet(0, [&](render::byte_writer& w) {
                  w.varint(v.protocol);
                  w.string("h");
                  w.i16(1);
                  w.varint(2);
                }), t), out);
  if (threshold >= 0) {
    s.from_backend(framed(packet(id_of(v, gate_packet::login_compress),
                                 [&](render::byte_writer& w) { w.varint(threshold); }), t), out);
    t = threshold;
  }
  s.from_backend(framed(packet(id_of(v, gate_packet::login_success), [&](render::byte_writer& w) {
                   w.uuid({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
                   w.string("fuzz");
                   w.varint(0);
                   if (v.gate.login_success == render::login_success_layout::strict_error_handling) {
                     w.boolean(false);
                   }
                 }), t), out);
  s.from_client(framed(packet(id_of(v, gate_packet::login_acknowledged), [](auto&) {}), t), out);
  s.from_client(framed(packet(id_of(v, gate_packet::config_finish), [](auto&) {}), t), out);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) {
    return 0;
  }
  const auto all = render::versions();
  const render::version_table& v = *all[(data[0] >> 2) % all.size()];
  const std::string_view input(reinterpret_cast<const char*>(data + 2), size - 2);
  std::unordered_set<std::int32_t> hidden{1, 42};
  switch (data[0] & 3) {
  case 0: {
    session s(4096, &hidden);
    to_play(s, v, (data[1] & 0x80) != 0 ? 64 : -1);
    session_output out;
    std::size_t i = 0;
    std::size_t fed = 0;
    while (i < input.size()) {
      const auto c = static_cast<std::uint8_t>(input[i++]);
      const std::size_t n = std::min<std::size_t>(c >> 1, input.size() - i);
      const std::string_view chunk = input.substr(i, n);
      i += n;
      fed += n;
      if ((c & 1) != 0) {
        s.from_backend(chunk, out);
      } else {
        s.from_client(chunk, out);
      }
      if (!out.tabs.empty()) {
        s.answer_tab(out.tabs.back(), {"a", "b"}, out);
      }
      s.inject("\x01\x02\x03", out);
      s.tell("t", out);
      check(s.buffered() <= fed);
      // Rewritten packets grow by at most the emote tree (and a frame's re-compression); ours
      // add a few dozen bytes per call.
      check(out.to_client.size() + out.to_backend.size() <= 4 * fed + 512 * (i + 1));
      out.to_client.clear();
      out.to_backend.clear();
      out.inputs.clear();
      out.commands.clear();
      out.tabs.clear();
    }
    s.closed(out);
    break;
  }
  case 1: {
    session s(4096, &hidden);
    session_output out;
    s.from_client(input, out);
    s.from_backend(input, out);
    s.backend_down("down", out);
    check(out.to_backend.size() <= input.size());
    break;
  }
  case 2: {
    const std::string_view f = input;
    (void)read_handshake(f);
    (void)read_login_success(v, f);
    (void)read_compress(f);
    (void)read_play_login(f);
    (void)read_respawn(f);
    (void)read_player_position(v, f);
    (void)read_health(f);
    (void)read_game_state(f);
    (void)read_passengers(f);
    (void)read_damage_entity(f);
    (void)read_view_distance(f);
    for (const gate_packet k : {gate_packet::move_position, gate_packet::move_position_look,
                                gate_packet::move_look, gate_packet::move_flying}) {
      (void)read_movement(v, k, f);
    }
    (void)read_entity_action(f);
    (void)read_player_input(f);
    (void)read_command(f);
    (void)read_tab_request(f);
    if (const auto p = append_emote_command(v, f)) {
      check(p->size() <= f.size() + 128);
    }
    if (const auto p = hide_in_metadata(v, f, 42)) {
      check(p->size() == f.size());
    }
    break;
  }
  case 3: {
    frame_splitter sp(1 << 16);
    packet_codec codec;
    codec.set_threshold((data[1] & 0x80) != 0 ? (data[1] & 0x7f) : -1);
    sp.feed(input);
    std::string out;
    while (const auto fr = sp.next()) {
      (void)codec.peek_id(fr->body);
      if (codec.decode(fr->body, out)) {
        check(out.size() <= max_packet_bytes);
      }
    }
    check(sp.buffered() <= input.size());
    break;
  }
  }
  return 0;
}
