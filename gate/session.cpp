#include "gate/session.hpp"

#include "engine/core/identifier.hpp"
#include "render/packets.hpp"
#include "render/tables.hpp"
#include "render/wire.hpp"

#include <algorithm>

namespace emote::gate {
namespace {

constexpr std::string_view usage_text = "Usage: /emote <id> | stop | list";
constexpr std::string_view encryption_text =
    "This server asks for encryption, so emote-sim's gate cannot read the connection. Put the "
    "gate between the proxy and an offline-mode backend (online-mode=false with the proxy's "
    "player-info forwarding); see docs/guide/deployment.md.";

/// `/emote ...` split into the words after `emote`; nullopt when the command is not emote's.
std::optional<std::vector<std::string_view>> emote_words(std::string_view command) {
  if (command.substr(0, 5) != "emote" || (command.size() > 5 && command[5] != ' ')) {
    return std::nullopt;
  }
  std::vector<std::string_view> words;
  std::size_t i = 5;
  while (i < command.size()) {
    while (i < command.size() && command[i] == ' ') {
      ++i;
    }
    const std::size_t b = i;
    while (i < command.size() && command[i] != ' ') {
      ++i;
    }
    if (i > b) {
      words.push_back(command.substr(b, i - b));
    }
  }
  return words;
}

} // namespace

std::string_view name(conn_state s) noexcept {
  switch (s) {
  case conn_state::handshake:
    return "handshake";
  case conn_state::status:
    return "status";
  case conn_state::login:
    return "login";
  case conn_state::configuration:
    return "configuration";
  case conn_state::play:
    return "play";
  case conn_state::passthrough:
    return "passthrough";
  case conn_state::closed:
    return "closed";
  }
  return "?";
}

void session_output::clear() {
  to_backend.clear();
  to_client.clear();
  inputs.clear();
  commands.clear();
  tabs.clear();
  note = notice::none;
  note_protocol = 0;
  close.reset();
  close_detail.clear();
}

session::session(std::size_t max_frame_bytes, const std::unordered_set<std::int32_t>* hidden)
    : hidden_(hidden), client_frames_(max_frame_bytes), backend_frames_(max_frame_bytes) {}

void session::fail(fault why, std::string detail, session_output& out) {
  if (!out.close) {
    out.close = why;
    out.close_detail = std::move(detail);
  }
  closed(out);
}

void session::write_packet(std::string_view packet, std::string& to) {
  if (!framer_ || framer_->threshold() != codec_.threshold()) {
    framer_.emplace(codec_.threshold());
  }
  framer_->append(to, packet); // our packets are far below the 21-bit frame limit
}

bool session::decode(const frame& f, session_output& out) {
  if (!codec_.decode(f.body, packet_)) {
    fail(fault::malformed, "a packet that does not decompress", out);
    return false;
  }
  return true;
}

// ---- client → backend -------------------------------------------------------------------------

void session::from_client(std::string_view bytes, session_output& out) {
  if (state_ == conn_state::closed) {
    return;
  }
  if (state_ == conn_state::passthrough) {
    out.to_backend.append(bytes);
    return;
  }
  client_frames_.feed(bytes);
  while (state_ != conn_state::closed && state_ != conn_state::passthrough) {
    const auto f = client_frames_.next();
    if (!f) {
      break;
    }
    client_frame(*f, out);
  }
  if (client_frames_.error() != frame_error::none && state_ != conn_state::closed) {
    fail(client_frames_.error() == frame_error::too_long ? fault::too_long : fault::malformed,
         std::string("client: ") + std::string(describe(client_frames_.error())), out);
  }
}

void session::go_passthrough(std::string_view rest_client, session_output& out) {
  out.to_backend.append(rest_client);
  out.to_backend.append(client_frames_.take_rest());
  out.to_client.append(backend_frames_.take_rest());
  state_ = conn_state::passthrough;
}

void session::client_frame(const frame& f, session_output& out) {
  if (state_ == conn_state::handshake) {
    // The handshake is never compressed.
    const auto sp = split(f.body);
    const auto h = sp && sp->id == 0 ? read_handshake(sp->fields) : std::nullopt;
    if (!h) {
      fail(fault::malformed, "client: a handshake that does not parse", out);
      return;
    }
    protocol_ = h->protocol;
    if (down_ && (h->next_state == 1 || render::find_version(h->protocol) == nullptr)) {
      fail(fault::backend_down, *down_, out); // nothing the client would read: closed
      return;
    }
    if (h->next_state == 1) {
      state_ = conn_state::status; // status: forwarded, nothing read
      go_passthrough(f.raw, out);
      return;
    }
    v_ = render::find_version(h->protocol);
    if (v_ == nullptr) {
      out.note = notice::passthrough;
      out.note_protocol = h->protocol;
      go_passthrough(f.raw, out);
      return;
    }
    state_ = conn_state::login;
    out.to_backend.append(f.raw);
    if (down_) {
      backend_down(*down_, out);
    }
    return;
  }
  const auto id = codec_.peek_id(f.body);
  if (!id) {
    fail(fault::malformed, "client: a packet id that does not read", out);
    return;
  }
  if (state_ == conn_state::login) {
    if (*id == id_of(*v_, gate_packet::login_acknowledged)) {
      state_ = conn_state::configuration;
    }
    out.to_backend.append(f.raw);
    return;
  }
  if (state_ == conn_state::configuration) {
    if (*id == id_of(*v_, gate_packet::config_settings)) {
      if (!decode(f, out)) {
        return;
      }
      const auto vd = read_view_distance(split(packet_)->fields);
      if (vd) {
        view_distance_ = std::clamp(*vd, 2, 32);
      }
    } else if (*id == id_of(*v_, gate_packet::config_finish)) {
      state_ = conn_state::play;
      if (configured_once_ && joined_) {
        // gate.md §2: back from a return to configuration, a viewer again; everything in range
        // is rendered again by the next tracking pass.
        api::player_fields pf;
        pf.viewer.protocol = std::optional<std::int32_t>(protocol_);
        pf.viewer.view_distance = view_distance_;
        update(std::move(pf), out);
      }
      configured_once_ = true;
    }
    out.to_backend.append(f.raw);
    return;
  }
  play_from_client(*id, f, out);
}

void session::play_from_client(std::int32_t id, const frame& f, session_output& out) {
  const version_table& v = *v_;
  const auto is = [&](gate_packet p) { return id == id_of(v, p); };
  gate_packet move_kind = gate_packet::move_flying;
  bool is_move = false;
  for (const gate_packet p : {gate_packet::move_position, gate_packet::move_position_look,
                              gate_packet::move_look, gate_packet::move_flying}) {
    if (is(p)) {
      move_kind = p;
      is_move = true;
    }
  }
  const bool interesting = is_move || is(gate_packet::entity_action) ||
                           is(gate_packet::player_input) || is(gate_packet::play_settings) ||
                           is(gate_packet::chat_command) || is(gate_packet::chat_command_signed) ||
                           is(gate_packet::tab_complete_request) ||
                           is(gate_packet::configuration_acknowledged);
  if (!interesting) {
    out.to_backend.append(f.raw);
    return;
  }
  if (!decode(f, out)) {
    return;
  }
  const std::string_view fields = split(packet_)->fields;
  if (is_move) {
    const auto m = read_movement(v, move_kind, fields);
    if (!m) {
      fail(fault::malformed, "client: a movement packet that does not parse", out);
      return;
    }
    api::player_fields pf;
    if (m->position && (!position_ || !(*m->position == *position_))) {
      position_ = m->position;
      pf.position = m->position;
    }
    if (m->yaw && (*m->yaw != yaw_ || *m->pitch != pitch_)) {
      yaw_ = *m->yaw;
      pitch_ = *m->pitch;
      pf.yaw = yaw_;
      pf.pitch = pitch_;
    }
    if (m->on_ground != on_ground_) {
      on_ground_ = m->on_ground;
      pf.on_ground = on_ground_;
    }
    update(std::move(pf), out);
  } else if (is(gate_packet::entity_action)) {
    const auto a = read_entity_action(fields);
    api::player_fields pf;
    if (a && *a >= 0) {
      const auto& ids = v.gate.actions;
      if (*a == ids[0] || *a == ids[1]) {
        sneaking_ = *a == ids[0];
        pf.sneaking = sneaking_;
      } else if (*a == ids[2] || *a == ids[3]) {
        sprinting_ = *a == ids[2];
        pf.sprinting = sprinting_;
      }
    }
    update(std::move(pf), out);
  } else if (is(gate_packet::player_input)) {
    const auto bits = read_player_input(fields);
    if (bits && v.gate.actions[0] < 0) { // sneaking is the shift bit only where no action says it
      const bool s = (*bits & 0x20) != 0;
      if (s != sneaking_) {
        sneaking_ = s;
        api::player_fields pf;
        pf.sneaking = s;
        update(std::move(pf), out);
      }
    }
  } else if (is(gate_packet::play_settings)) {
    if (const auto vd = read_view_distance(fields)) {
      const std::int32_t c = std::clamp(*vd, 2, 32);
      if (c != view_distance_) {
        view_distance_ = c;
        api::player_fields pf;
        pf.viewer.view_distance = c;
        update(std::move(pf), out);
      }
    }
  } else if (is(gate_packet::chat_command) || is(gate_packet::chat_command_signed)) {
    const auto c = read_command(fields);
    const auto words = c ? emote_words(*c) : std::nullopt;
    if (words) {
      // gate.md §6: consumed, never forwarded.
      command_request r;
      if (words->size() == 1 && (*words)[0] == "stop") {
        r.what = command_request::kind::stop;
      } else if (words->size() == 1 && (*words)[0] == "list") {
        r.what = command_request::kind::list;
      } else if (words->size() == 1) {
        r.what = command_request::kind::play;
        r.emote = std::string((*words)[0]);
      }
      out.commands.push_back(std::move(r));
      return;
    }
  } else if (is(gate_packet::tab_complete_request)) {
    const auto t = read_tab_request(fields);
    constexpr std::string_view prefix = "/emote ";
    if (t && t->text.substr(0, prefix.size()) == prefix &&
        t->text.find(' ', prefix.size()) == std::string::npos) {
      tab_query q;
      q.transaction = t->transaction;
      q.word = t->text.substr(prefix.size());
      q.start = static_cast<std::int32_t>(prefix.size());
      out.tabs.push_back(std::move(q));
      return;
    }
  } else if (is(gate_packet::configuration_acknowledged)) {
    state_ = conn_state::configuration;
  }
  out.to_backend.append(f.raw);
}

// ---- backend → client -------------------------------------------------------------------------

void session::from_backend(std::string_view bytes, session_output& out) {
  if (state_ == conn_state::closed) {
    return;
  }
  if (state_ == conn_state::passthrough) {
    out.to_client.append(bytes);
    return;
  }
  backend_frames_.feed(bytes);
  while (state_ != conn_state::closed && state_ != conn_state::passthrough) {
    const auto f = backend_frames_.next();
    if (!f) {
      break;
    }
    backend_frame(*f, out);
  }
  if (backend_frames_.error() != frame_error::none && state_ != conn_state::closed) {
    fail(backend_frames_.error() == frame_error::too_long ? fault::too_long : fault::malformed,
         std::string("backend: ") + std::string(describe(backend_frames_.error())), out);
  }
}

void session::backend_frame(const frame& f, session_output& out) {
  if (state_ == conn_state::handshake) {
    // The backend speaks first only in a protocol the gate does not know; forward.
    out.to_client.append(f.raw);
    return;
  }
  const auto id = codec_.peek_id(f.body);
  if (!id) {
    fail(fault::malformed, "backend: a packet id that does not read", out);
    return;
  }
  const version_table& v = *v_;
  if (state_ == conn_state::login) {
    if (*id == id_of(v, gate_packet::encryption_begin)) {
      // gate.md §2: the client gets a disconnect that says what to do; nothing forwarded.
      std::string p = write_login_disconnect(v, encryption_text);
      write_packet(p, out.to_client);
      out.note = notice::encryption;
      fail(fault::encryption, "the backend asked for encryption (online mode)", out);
      return;
    }
    if (*id == id_of(v, gate_packet::login_compress)) {
      if (!decode(f, out)) {
        return;
      }
      const auto t = read_compress(split(packet_)->fields);
      if (!t) {
        fail(fault::malformed, "backend: a set_compression that does not parse", out);
        return;
      }
      out.to_client.append(f.raw);
      codec_.set_threshold(*t < 0 ? -1 : *t);
      return;
    }
    if (*id == id_of(v, gate_packet::login_success)) {
      if (!decode(f, out)) {
        return;
      }
      const auto s = read_login_success(v, split(packet_)->fields);
      if (!s) {
        fail(fault::malformed, "backend: a login_success that does not parse", out);
        return;
      }
      uuid_ = s->uuid;
      key_ = core::uuid_text(s->uuid);
      name_ = s->name;
      textures_ = s->textures;
    }
    out.to_client.append(f.raw);
    return;
  }
  if (state_ == conn_state::configuration) {
    out.to_client.append(f.raw);
    return;
  }
  play_from_backend(*id, f, out);
}

void session::play_from_backend(std::int32_t id, const frame& f, session_output& out) {
  const version_table& v = *v_;
  const auto is = [&](gate_packet p) { return id == id_of(v, p); };
  const std::int32_t bundle = v.packet_ids[static_cast<std::size_t>(render::packet_kind::bundle_delimiter)];
  const std::int32_t metadata = v.packet_ids[static_cast<std::size_t>(render::packet_kind::entity_metadata)];
  const std::int32_t equipment = v.packet_ids[static_cast<std::size_t>(render::packet_kind::entity_equipment)];
  if (id == bundle) {
    out.to_client.append(f.raw);
    bundle_open_ = !bundle_open_;
    if (!bundle_open_ && !held_.empty()) {
      out.to_client.append(held_); // gate.md §5: right after the closing delimiter
      held_.clear();
    }
    return;
  }
  const bool hidden_check = hidden_ != nullptr && !hidden_->empty() && (id == metadata || id == equipment);
  const bool interesting =
      hidden_check || is(gate_packet::play_login) || is(gate_packet::player_position) ||
      is(gate_packet::respawn) || is(gate_packet::update_health) ||
      is(gate_packet::game_state_change) || is(gate_packet::set_passengers) ||
      is(gate_packet::damage_event) || is(gate_packet::start_configuration) ||
      is(gate_packet::declare_commands);
  if (!interesting) {
    out.to_client.append(f.raw);
    return;
  }
  if (!decode(f, out)) {
    return;
  }
  const std::string_view fields = split(packet_)->fields;
  const auto malformed = [&](std::string_view what) {
    fail(fault::malformed, "backend: a " + std::string(what) + " that does not parse", out);
  };
  if (hidden_check) {
    const auto e = entity_of(packet_);
    if (e && hidden_->contains(*e)) {
      // gate.md §7: invisible flag on, equipment blanked.
      if (id == metadata) {
        if (auto p = hide_in_metadata(v, packet_, *e)) {
          write_packet(*p, out.to_client);
          return;
        }
      } else {
        std::string p;
        render::byte_writer w(p);
        render::write_blank_equipment(w, v, *e);
        write_packet(p, out.to_client);
        return;
      }
    }
    out.to_client.append(f.raw);
    return;
  }
  if (is(gate_packet::declare_commands)) {
    if (auto p = append_emote_command(v, packet_)) {
      write_packet(*p, out.to_client);
    } else {
      out.to_client.append(f.raw); // forwarded as it is: the command stays unknown to the client
    }
    return;
  }
  out.to_client.append(f.raw);
  if (is(gate_packet::play_login)) {
    const auto l = read_play_login(fields);
    if (!l) {
      return malformed("play login");
    }
    entity_id_ = l->entity_id;
    api::player_fields pf;
    if (l->dimension != dimension_) {
      dimension_ = l->dimension;
      pf.dimension = dimension_;
    }
    if (l->game_mode != game_mode_) {
      game_mode_ = l->game_mode;
      pf.game_mode = game_mode_;
    }
    pf.viewer.entity_id = std::optional<std::int32_t>(l->entity_id);
    pf.viewer.render_reset = true;
    update(std::move(pf), out);
  } else if (is(gate_packet::player_position)) {
    const auto p = read_player_position(v, fields);
    if (!p) {
      return malformed("player position");
    }
    const api::dvec3 old = position_.value_or(api::dvec3{});
    const api::dvec3 now{(p->relative & 1) ? old.x + p->x : p->x,
                         (p->relative & 2) ? old.y + p->y : p->y,
                         (p->relative & 4) ? old.z + p->z : p->z};
    yaw_ = (p->relative & 8) ? yaw_ + p->yaw : p->yaw;
    pitch_ = (p->relative & 16) ? pitch_ + p->pitch : p->pitch;
    position_ = now;
    if (!joined_) {
      try_join(out);
    } else {
      api::player_fields pf;
      pf.position = now;
      pf.yaw = yaw_;
      pf.pitch = pitch_;
      update(std::move(pf), out);
    }
  } else if (is(gate_packet::respawn)) {
    const auto r = read_respawn(fields);
    if (!r) {
      return malformed("respawn");
    }
    api::player_fields pf;
    dimension_ = r->dimension;
    pf.dimension = dimension_;
    if (r->game_mode != game_mode_) {
      game_mode_ = r->game_mode;
      pf.game_mode = game_mode_;
    }
    if (!alive_) {
      alive_ = true;
      pf.alive = true;
    }
    pf.viewer.render_reset = true;
    update(std::move(pf), out);
  } else if (is(gate_packet::update_health)) {
    const auto h = read_health(fields);
    if (!h) {
      return malformed("health update");
    }
    const bool alive = *h > 0.0F;
    if (alive != alive_) {
      alive_ = alive;
      api::player_fields pf;
      pf.alive = alive;
      update(std::move(pf), out);
    }
  } else if (is(gate_packet::game_state_change)) {
    const auto g = read_game_state(fields);
    if (!g) {
      return malformed("game event");
    }
    constexpr std::uint8_t change_game_mode = 3; // the generator checks the reason's id
    if (g->reason == change_game_mode && g->value >= 0.0F && g->value < 4.0F) {
      const auto m = static_cast<api::game_mode>(static_cast<int>(g->value));
      if (m != game_mode_) {
        game_mode_ = m;
        api::player_fields pf;
        pf.game_mode = m;
        update(std::move(pf), out);
      }
    }
  } else if (is(gate_packet::set_passengers)) {
    const auto p = read_passengers(fields);
    if (!p) {
      return malformed("set_passengers");
    }
    if (!entity_id_) {
      return;
    }
    const bool riding = std::find(p->riders.begin(), p->riders.end(), *entity_id_) != p->riders.end();
    api::player_fields pf;
    if (riding && vehicle_ != p->vehicle) {
      vehicle_ = p->vehicle;
      pf.vehicle = std::optional<std::string>(std::to_string(p->vehicle));
    } else if (!riding && vehicle_ == p->vehicle) {
      vehicle_.reset();
      pf.vehicle = std::optional<std::string>();
    }
    update(std::move(pf), out);
  } else if (is(gate_packet::damage_event)) {
    const auto e = read_damage_entity(fields);
    if (!e) {
      return malformed("damage event");
    }
    if (joined_ && entity_id_ && *e == *entity_id_ && !left_) {
      api::player_event ev;
      ev.player = key_;
      ev.kind = api::player_event_kind::damage;
      ev.amount = 1; // gate.md §4: a proxy does not see the amount
      out.inputs.emplace_back(std::move(ev));
    }
  } else if (is(gate_packet::start_configuration)) {
    // gate.md §2: nothing of ours until finish_configuration; the client drops its entities.
    state_ = conn_state::configuration;
    held_.clear();
    bundle_open_ = false;
    if (joined_) {
      api::player_fields pf;
      pf.viewer.protocol = std::optional<std::int32_t>();
      pf.viewer.render_reset = true;
      update(std::move(pf), out);
    }
  }
}

// ---- the player -------------------------------------------------------------------------------

void session::try_join(session_output& out) {
  if (joined_ || left_ || key_.empty() || !entity_id_ || !position_) {
    return;
  }
  joined_ = true;
  api::player_join j;
  j.player = key_;
  j.uuid = uuid_;
  j.fields.dimension = dimension_;
  j.fields.position = position_;
  j.fields.yaw = yaw_;
  j.fields.pitch = pitch_;
  j.fields.game_mode = game_mode_;
  j.fields.alive = alive_;
  j.fields.on_ground = on_ground_;
  j.fields.sneaking = sneaking_;
  j.fields.sprinting = sprinting_;
  if (vehicle_) {
    j.fields.vehicle = std::optional<std::string>(std::to_string(*vehicle_));
  }
  j.fields.viewer.protocol = std::optional<std::int32_t>(protocol_);
  j.fields.viewer.entity_id = entity_id_;
  j.fields.viewer.view_distance = view_distance_;
  j.fields.viewer.name = name_;
  if (textures_) {
    j.fields.viewer.skin_textures = std::map<std::string, api::skin_texture>{{"default", *textures_}};
  }
  out.inputs.emplace_back(std::move(j));
}

void session::update(api::player_fields fields, session_output& out) {
  if (!joined_ || left_) {
    return;
  }
  api::player_update u;
  u.player = key_;
  u.fields = std::move(fields);
  const auto& f = u.fields;
  if (!f.dimension && !f.position && !f.yaw && !f.pitch && !f.alive && !f.game_mode &&
      !f.vehicle && !f.on_ground && !f.sneaking && !f.sprinting && f.viewer.empty()) {
    return;
  }
  out.inputs.emplace_back(std::move(u));
}

// ---- what the gate writes ---------------------------------------------------------------------

void session::inject(std::string_view packet, session_output& out) {
  if (!viewer()) {
    return;
  }
  if (bundle_open_) {
    write_packet(packet, held_);
  } else {
    write_packet(packet, out.to_client);
  }
}

void session::tell(std::string_view text, session_output& out) {
  if (v_ == nullptr || state_ != conn_state::play) {
    return;
  }
  const std::string p = write_system_chat(*v_, text);
  if (bundle_open_) {
    write_packet(p, held_);
  } else {
    write_packet(p, out.to_client);
  }
}

void session::answer_tab(const tab_query& q, const std::vector<std::string>& matches,
                         session_output& out) {
  if (v_ == nullptr || state_ != conn_state::play) {
    return;
  }
  const std::string p = write_tab_response(*v_, q.transaction, q.start,
                                           static_cast<std::int32_t>(q.word.size()), matches);
  if (bundle_open_) {
    write_packet(p, held_);
  } else {
    write_packet(p, out.to_client);
  }
}

void session::backend_down(std::string_view why, session_output& out) {
  if (state_ == conn_state::handshake) {
    down_ = std::string(why); // answered once the handshake says the client's state
    return;
  }
  const std::string text = "The server behind emote-sim's gate is not reachable: " + std::string(why);
  if (v_ != nullptr) {
    switch (state_) {
    case conn_state::login:
      write_packet(write_login_disconnect(*v_, text), out.to_client);
      break;
    case conn_state::play:
      write_packet(write_play_disconnect(*v_, text), out.to_client);
      break;
    case conn_state::configuration: {
      // The configuration disconnect carries the same NBT text as play's.
      std::string p = write_play_disconnect(*v_, text);
      const auto sp = split(p);
      std::string c;
      render::byte_writer w(c);
      w.varint(id_of(*v_, gate_packet::config_disconnect));
      w.bytes(sp->fields);
      write_packet(c, out.to_client);
      break;
    }
    default:
      break;
    }
  }
  fail(fault::backend_down, std::string(why), out);
}

void session::closed(session_output& out) {
  if (joined_ && !left_) {
    api::player_leave l;
    l.player = key_;
    out.inputs.emplace_back(std::move(l));
  }
  left_ = true;
  state_ = conn_state::closed;
}

} // namespace emote::gate
