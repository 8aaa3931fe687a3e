#include "gate/packets.hpp"

#include "engine/json/writer.hpp"
#include "gate/byte_reader.hpp"
#include "render/content.hpp"
#include "render/wire.hpp"

namespace emote::gate {
namespace {

using render::byte_writer;

/// A vanilla string bound: 32767 UTF-16 units, at most 3 bytes each.
constexpr std::size_t max_string = std::size_t{32767} * 3;

std::optional<api::game_mode> game_mode_of(std::int32_t m) noexcept {
  switch (m) {
  case 0:
    return api::game_mode::survival;
  case 1:
    return api::game_mode::creative;
  case 2:
    return api::game_mode::adventure;
  case 3:
    return api::game_mode::spectator;
  default:
    return std::nullopt;
  }
}

/// SpawnInfo up to and with the game mode (the prefix the generator checks in every version).
bool read_spawn_prefix(byte_reader& r, std::string& dimension, api::game_mode& mode) {
  r.varint(); // dimension type
  dimension = std::string(r.string(max_string));
  r.i64(); // hashed seed
  const auto m = game_mode_of(r.i8());
  if (r.failed() || !m) {
    return false;
  }
  mode = *m;
  return true;
}

void packet_id(byte_writer& w, const version_table& v, gate_packet p) {
  w.varint(id_of(v, p));
}

} // namespace

std::optional<split_packet> split(std::string_view packet) noexcept {
  byte_reader r(packet);
  const std::int32_t id = r.varint();
  if (r.failed()) {
    return std::nullopt;
  }
  return split_packet{id, r.rest()};
}

std::optional<handshake> read_handshake(std::string_view fields) noexcept {
  byte_reader r(fields);
  handshake h;
  h.protocol = r.varint();
  r.string(max_string); // server host (BungeeCord's forwarding appends its data, skins included)
  r.u16();
  h.next_state = r.varint();
  if (r.failed()) {
    return std::nullopt;
  }
  return h;
}

std::optional<login_success> read_login_success(const version_table& v, std::string_view fields) {
  byte_reader r(fields);
  login_success s;
  s.uuid = r.uuid();
  s.name = std::string(r.string(std::size_t{16} * 3));
  const std::int32_t count = r.varint();
  if (r.failed() || count < 0 || static_cast<std::size_t>(count) > r.remaining()) {
    return std::nullopt;
  }
  for (std::int32_t k = 0; k < count; ++k) {
    const std::string_view name = r.string(max_string);
    const std::string_view value = r.string(max_string);
    std::optional<std::string_view> signature;
    if (r.boolean()) {
      signature = r.string(max_string);
    }
    if (r.failed()) {
      return std::nullopt;
    }
    if (name == "textures" && !s.textures) {
      api::skin_texture t;
      t.value = std::string(value);
      if (signature) {
        t.signature = std::string(*signature);
      }
      s.textures = std::move(t);
    }
  }
  if (v.gate.login_success == render::login_success_layout::strict_error_handling) {
    r.boolean();
  }
  if (r.failed()) {
    return std::nullopt;
  }
  return s;
}

std::optional<std::int32_t> read_compress(std::string_view fields) noexcept {
  byte_reader r(fields);
  const std::int32_t t = r.varint();
  return r.failed() ? std::nullopt : std::optional{t};
}

std::optional<play_login> read_play_login(std::string_view fields) {
  byte_reader r(fields);
  play_login l;
  l.entity_id = r.i32();
  r.boolean(); // hardcore
  const std::int32_t worlds = r.varint();
  if (r.failed() || worlds < 0 || static_cast<std::size_t>(worlds) > r.remaining()) {
    return std::nullopt;
  }
  for (std::int32_t k = 0; k < worlds && !r.failed(); ++k) {
    r.string(max_string);
  }
  r.varint(); // max players
  r.varint(); // view distance (the server's)
  r.varint(); // simulation distance
  r.boolean();
  r.boolean();
  r.boolean();
  if (r.failed() || !read_spawn_prefix(r, l.dimension, l.game_mode)) {
    return std::nullopt;
  }
  return l;
}

std::optional<respawn> read_respawn(std::string_view fields) {
  byte_reader r(fields);
  respawn s;
  if (!read_spawn_prefix(r, s.dimension, s.game_mode)) {
    return std::nullopt;
  }
  return s;
}

std::optional<player_position> read_player_position(const version_table& v,
                                                    std::string_view fields) noexcept {
  byte_reader r(fields);
  player_position p;
  if (v.gate.player_position == render::player_position_layout::absolute_first) {
    p.x = r.f64();
    p.y = r.f64();
    p.z = r.f64();
    p.yaw = r.f32();
    p.pitch = r.f32();
    p.relative = r.u8();
    r.varint(); // teleport id
  } else {
    r.varint(); // teleport id
    p.x = r.f64();
    p.y = r.f64();
    p.z = r.f64();
    r.f64(); // velocity
    r.f64();
    r.f64();
    p.yaw = r.f32();
    p.pitch = r.f32();
    p.relative = r.u32();
  }
  if (r.failed()) {
    return std::nullopt;
  }
  return p;
}

std::optional<float> read_health(std::string_view fields) noexcept {
  byte_reader r(fields);
  const float h = r.f32();
  return r.failed() ? std::nullopt : std::optional{h};
}

std::optional<game_state> read_game_state(std::string_view fields) noexcept {
  byte_reader r(fields);
  game_state g;
  g.reason = r.u8();
  g.value = r.f32();
  return r.failed() ? std::nullopt : std::optional{g};
}

std::optional<passengers> read_passengers(std::string_view fields) {
  byte_reader r(fields);
  passengers p;
  p.vehicle = r.varint();
  const std::int32_t n = r.varint();
  if (r.failed() || n < 0 || static_cast<std::size_t>(n) > r.remaining()) {
    return std::nullopt;
  }
  p.riders.reserve(static_cast<std::size_t>(n));
  for (std::int32_t k = 0; k < n; ++k) {
    p.riders.push_back(r.varint());
  }
  if (r.failed()) {
    return std::nullopt;
  }
  return p;
}

std::optional<std::int32_t> read_damage_entity(std::string_view fields) noexcept {
  byte_reader r(fields);
  const std::int32_t e = r.varint();
  return r.failed() ? std::nullopt : std::optional{e};
}

std::optional<std::int32_t> read_view_distance(std::string_view fields) noexcept {
  byte_reader r(fields);
  r.string(std::size_t{16} * 3); // locale
  const std::int32_t vd = r.i8();
  return r.failed() ? std::nullopt : std::optional{vd};
}

std::optional<movement> read_movement(const version_table& v, gate_packet kind,
                                      std::string_view fields) noexcept {
  byte_reader r(fields);
  movement m;
  if (kind == gate_packet::move_position || kind == gate_packet::move_position_look) {
    const double x = r.f64();
    const double y = r.f64();
    const double z = r.f64();
    m.position = api::dvec3{x, y, z};
  }
  if (kind == gate_packet::move_look || kind == gate_packet::move_position_look) {
    m.yaw = r.f32();
    m.pitch = r.f32();
  }
  const std::uint8_t g = r.u8();
  m.on_ground = v.gate.movement == render::movement_layout::on_ground_bool ? g != 0 : (g & 1) != 0;
  if (r.failed()) {
    return std::nullopt;
  }
  return m;
}

std::optional<std::int32_t> read_entity_action(std::string_view fields) noexcept {
  byte_reader r(fields);
  r.varint(); // entity id (the player's own)
  const std::int32_t a = r.varint();
  return r.failed() ? std::nullopt : std::optional{a};
}

std::optional<std::uint8_t> read_player_input(std::string_view fields) noexcept {
  byte_reader r(fields);
  const std::uint8_t b = r.u8();
  return r.failed() ? std::nullopt : std::optional{b};
}

std::optional<std::string_view> read_command(std::string_view fields) noexcept {
  byte_reader r(fields);
  const std::string_view c = r.string(max_string);
  return r.failed() ? std::nullopt : std::optional{c};
}

std::optional<tab_request> read_tab_request(std::string_view fields) {
  byte_reader r(fields);
  tab_request t;
  t.transaction = r.varint();
  t.text = std::string(r.string(max_string));
  if (r.failed()) {
    return std::nullopt;
  }
  return t;
}

// ---- writers ----------------------------------------------------------------------------------

namespace {

std::string json_text(std::string_view text) {
  std::string j;
  json::json_out(j).str(text);
  return j;
}

} // namespace

std::string write_system_chat(const version_table& v, std::string_view text) {
  std::string out;
  byte_writer w(out);
  packet_id(w, v, gate_packet::system_chat);
  render::warnings warn;
  render::write_text_component(w, v, json_text(text), warn);
  w.boolean(false);
  return out;
}

std::string write_login_disconnect(const version_table& v, std::string_view text) {
  std::string out;
  byte_writer w(out);
  packet_id(w, v, gate_packet::login_disconnect);
  std::string j = "{\"text\":";
  j += json_text(text);
  j += '}';
  w.string(j);
  return out;
}

std::string write_play_disconnect(const version_table& v, std::string_view text) {
  std::string out;
  byte_writer w(out);
  packet_id(w, v, gate_packet::play_disconnect);
  render::warnings warn;
  render::write_text_component(w, v, json_text(text), warn);
  return out;
}

std::string write_tab_response(const version_table& v, std::int32_t transaction,
                               std::int32_t start, std::int32_t length,
                               const std::vector<std::string>& matches) {
  std::string out;
  byte_writer w(out);
  packet_id(w, v, gate_packet::tab_complete_response);
  w.varint(transaction);
  w.varint(start);
  w.varint(length);
  w.varint(static_cast<std::int32_t>(matches.size()));
  for (const auto& m : matches) {
    w.string(m);
    w.boolean(false); // no tooltip
  }
  return out;
}

namespace {

/// Skip one command node's fields after its flags and children (gate.md §6); false when it does
/// not parse. `flags` as read.
bool skip_node_rest(byte_reader& r, const version_table& v, std::uint8_t flags) {
  if ((flags & 0x08) != 0) {
    r.varint(); // redirect
  }
  const int type = flags & 0x03;
  if (type == 1) {
    r.string(max_string);
  } else if (type == 2) {
    r.string(max_string);
    const std::int32_t parser = r.varint();
    if (r.failed() || parser < 0 || static_cast<std::size_t>(parser) >= v.gate.parsers.size()) {
      return false;
    }
    using render::parser_properties;
    switch (v.gate.parsers[static_cast<std::size_t>(parser)]) {
    case parser_properties::none:
      break;
    case parser_properties::float_range:
    case parser_properties::integer_range: {
      const std::uint8_t f = r.u8();
      if (f & 1) {
        r.bytes(4);
      }
      if (f & 2) {
        r.bytes(4);
      }
      break;
    }
    case parser_properties::double_range:
    case parser_properties::long_range: {
      const std::uint8_t f = r.u8();
      if (f & 1) {
        r.bytes(8);
      }
      if (f & 2) {
        r.bytes(8);
      }
      break;
    }
    case parser_properties::string_kind:
      r.varint();
      break;
    case parser_properties::flags_byte:
      r.u8();
      break;
    case parser_properties::time:
      r.i32();
      break;
    case parser_properties::registry:
      r.string(max_string);
      break;
    }
  } else if (type == 3) {
    return false;
  }
  if ((flags & 0x10) != 0) {
    r.string(max_string); // suggestions type
  }
  return !r.failed();
}

} // namespace

std::optional<std::string> append_emote_command(const version_table& v, std::string_view packet) {
  const auto sp = split(packet);
  if (!sp || sp->id != id_of(v, gate_packet::declare_commands)) {
    return std::nullopt;
  }
  byte_reader r(sp->fields);
  const std::int32_t count = r.varint();
  if (r.failed() || count <= 0 || static_cast<std::size_t>(count) > r.remaining()) {
    return std::nullopt;
  }
  struct node_span {
    std::size_t begin, children_end; ///< offsets in fields: node start, end of its children
    std::size_t end;
  };
  std::vector<node_span> nodes;
  nodes.reserve(static_cast<std::size_t>(count));
  for (std::int32_t k = 0; k < count; ++k) {
    node_span s{};
    s.begin = r.position();
    const std::uint8_t flags = r.u8();
    const std::int32_t children = r.varint();
    if (r.failed() || children < 0 || static_cast<std::size_t>(children) > r.remaining()) {
      return std::nullopt;
    }
    for (std::int32_t c = 0; c < children; ++c) {
      const std::int32_t child = r.varint();
      if (child < 0 || child >= count) {
        return std::nullopt;
      }
    }
    s.children_end = r.position();
    if (!skip_node_rest(r, v, flags)) {
      return std::nullopt;
    }
    s.end = r.position();
    nodes.push_back(s);
  }
  const std::int32_t root = r.varint();
  if (r.failed() || !r.at_end() || root < 0 || root >= count) {
    return std::nullopt;
  }
  const std::string_view f = sp->fields;
  const node_span& rs = nodes[static_cast<std::size_t>(root)];
  // The root's flags and children, re-read to rewrite the count.
  byte_reader rr(f.substr(rs.begin, rs.children_end - rs.begin));
  const std::uint8_t root_flags = rr.u8();
  const std::int32_t root_children = rr.varint();
  const std::string_view child_bytes = rr.rest();

  const std::int32_t emote = count;
  std::string out;
  byte_writer w(out);
  packet_id(w, v, gate_packet::declare_commands);
  w.varint(count + 4);
  const std::size_t nodes_begin = nodes.front().begin;
  w.bytes(f.substr(nodes_begin, rs.begin - nodes_begin));
  w.u8(root_flags);
  w.varint(root_children + 1);
  w.bytes(child_bytes);
  w.varint(emote);
  w.bytes(f.substr(rs.children_end, nodes.back().end - rs.children_end));
  // emote: literal, executable, children stop, list, id.
  constexpr std::uint8_t literal = 0x01, argument = 0x02, executable = 0x04, suggestions = 0x10;
  w.u8(literal | executable);
  w.varint(3);
  w.varint(emote + 1);
  w.varint(emote + 2);
  w.varint(emote + 3);
  w.string("emote");
  for (const char* name : {"stop", "list"}) {
    w.u8(literal | executable);
    w.varint(0);
    w.string(name);
  }
  w.u8(argument | executable | suggestions);
  w.varint(0);
  w.string("id");
  w.varint(v.gate.string_parser);
  w.varint(0); // SINGLE_WORD
  w.string("minecraft:ask_server");
  w.varint(root);
  return out;
}

std::optional<std::int32_t> entity_of(std::string_view packet) noexcept {
  byte_reader r(packet);
  r.varint(); // packet id
  const std::int32_t e = r.varint();
  return r.failed() ? std::nullopt : std::optional{e};
}

std::optional<std::string> hide_in_metadata(const version_table& v, std::string_view packet,
                                            std::int32_t entity) {
  byte_reader r(packet);
  const std::int32_t id = r.varint();
  const std::int32_t e = r.varint();
  if (r.failed() || id != v.packet_ids[static_cast<std::size_t>(render::packet_kind::entity_metadata)] ||
      e != entity) {
    return std::nullopt;
  }
  const std::size_t key_at = r.position();
  const std::uint8_t key = r.u8();
  const std::int32_t type = r.varint();
  const std::size_t value_at = r.position();
  r.u8();
  if (r.failed() || key != v.player_flags_index ||
      type != v.serializer_ids[static_cast<std::size_t>(render::serializer::byte)]) {
    return std::nullopt;
  }
  (void)key_at;
  std::string out(packet);
  out[value_at] = static_cast<char>(static_cast<std::uint8_t>(out[value_at]) | 0x20);
  return out;
}

} // namespace emote::gate
