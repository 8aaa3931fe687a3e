#include "server/daemon/hub.hpp"

#include "server/host/build_info.hpp"
#include "server/host/content_loader.hpp"

#include "engine/json/state_json.hpp"
#include "engine/playback/playback.hpp"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace emote::server {

using settings::clock_mode;
using settings::listen_address;

namespace asio = boost::asio;
using clock_type = std::chrono::steady_clock;

namespace {

std::string_view role_name(protocol::client_role r) {
  return r == protocol::client_role::observer ? "observer" : "controller";
}

std::string bye_line(std::string_view reason) {
  std::string out;
  protocol::encode_bye(out, reason);
  return out;
}

} // namespace

std::int64_t observer_slots(const limits_config& limits) noexcept {
  return std::max<std::int64_t>(1, limits.max_connections - limits.reserved_controller_connections);
}

std::int64_t pending_cap(const limits_config& limits) noexcept {
  return std::min(limits.max_pending_connections, observer_slots(limits));
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  // Walk the longer length in full so that the time says nothing about where they differ.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned diff = a.size() == b.size() ? 0U : 1U;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

hub::hub(asio::io_context& io, hub_settings settings, protocol::sim_host& host, server::metrics& m,
         recorder* rec)
    : io_(io), settings_(std::move(settings)), host_(host), metrics_(m), rec_(rec), timer_(io),
      stop_timer_(io) {
  conn_limits_.max_line_bytes = static_cast<std::size_t>(settings_.limits.max_line_bytes);
  conn_limits_.max_inbound_messages =
      static_cast<std::size_t>(settings_.limits.max_inbound_messages);
  conn_limits_.max_inbound_bytes = static_cast<std::size_t>(settings_.limits.max_inbound_bytes);
  conn_limits_.max_outbound_bytes = static_cast<std::size_t>(settings_.limits.max_outbound_bytes);
  conn_limits_.linger = settings_.linger;
  metrics_.tick = host_.tick();
  encoder_.set_caches(settings_.caches);
}

hub::~hub() {
  stopping_ = true;
  listeners_.clear();
  timer_.cancel();
  stop_timer_.cancel();
  // Close what is still open without calling back into a half-destroyed hub.
  auto clients = std::move(clients_);
  clients_.clear();
  for (auto& [id, cl] : clients) {
    if (cl.conn) {
      cl.conn->close_now();
    }
  }
}

std::optional<std::string> hub::listen(const std::vector<listen_address>& addresses) {
  for (const auto& a : addresses) {
    auto l = listener::open(io_, a, [this](connection::socket_type s, std::string peer) {
      accept(std::move(s), std::move(peer));
    });
    if (!l) {
      return l.error();
    }
    bound_.push_back(l.value()->bound());
    listeners_.push_back(std::move(l).value());
    spdlog::info("listening on {}", bound_.back().text());
  }
  return std::nullopt;
}

std::vector<listen_address> hub::bound() const {
  return bound_;
}

void hub::start() {
  if (settings_.clock == clock_mode::realtime) {
    schedule_.emplace(clock_type::now(), settings_.tps, settings_.max_behind);
    arm_timer();
  }
}

// ---------------------------------------------------------------------------------------------
// Connections

void hub::accept(connection::socket_type socket, std::string peer) {
  if (stopping_) {
    return;
  }
  const std::uint64_t id = ++next_id_;
  auto conn = std::make_shared<connection>(std::move(socket), *this, conn_limits_, id, peer);
  ++metrics_.connections_accepted_total;
  std::string address = peer_address(peer);
  // protocol.md §2: pending connections are capped globally (below the controllers' reservation)
  // and per address; over a cap, or at max_connections, the oldest pending connection (of this
  // address, when that cap is the one reached) is closed to make room, so connections that never
  // say hello cannot keep a controller out.
  const auto of_address = pending_by_address_.find(address);
  const bool over_address = of_address != pending_by_address_.end() &&
                            of_address->second >= settings_.limits.max_pending_per_address;
  if (over_address || metrics_.connections_pending >= pending_cap(settings_.limits) ||
      clients_.size() >= static_cast<std::size_t>(settings_.limits.max_connections)) {
    evict_oldest_pending(over_address ? &address : nullptr);
  }
  if (clients_.size() >= static_cast<std::size_t>(settings_.limits.max_connections)) {
    ++metrics_.connections_refused_total;
    if (const auto n = limited_log(peer, clock_type::now())) {
      spdlog::warn("connection {} from {} refused: max_connections ({}) reached{}", id, peer,
                   settings_.limits.max_connections, *n);
    }
    conn->start(std::chrono::milliseconds(0));
    conn->close_after(make_line(bye_line("max_connections")), close_reason::max_connections);
    return;
  }
  client cl;
  cl.id = id;
  cl.conn = conn;
  cl.address = std::move(address);
  ++pending_by_address_[cl.address];
  clients_.emplace(id, std::move(cl));
  ++metrics_.connections_pending;
  spdlog::debug("connection {} from {}", id, peer);
  conn->start(settings_.hello_timeout);
}

void hub::evict_oldest_pending(const std::string* address) {
  std::shared_ptr<connection> victim;
  for (const auto& [id, cl] : clients_) { // by id: the oldest first
    // Closing ones too (a refused hello still flushing its error to a peer that does not read).
    if (!cl.hello && cl.conn && (address == nullptr || cl.address == *address)) {
      victim = cl.conn;
      break;
    }
  }
  if (!victim) {
    return;
  }
  ++metrics_.connections_evicted_total;
  // At once, without a goodbye: a peer that never said hello may not read either, and its slot
  // is needed now (on_closed forgets it before this returns).
  victim->close_after(nullptr, close_reason::evicted);
  victim->close_now();
}

void hub::pending_done(client& cl) {
  --metrics_.connections_pending;
  auto it = pending_by_address_.find(cl.address);
  if (it != pending_by_address_.end() && --it->second <= 0) {
    pending_by_address_.erase(it);
  }
}

void hub::on_line(connection& c, std::string line) {
  auto it = clients_.find(c.id());
  if (it == clients_.end()) {
    c.applied(line.size());
    return;
  }
  client& cl = it->second;
  if (!cl.hello) {
    c.applied(line.size());
    handle_hello(cl, line);
    return;
  }
  c.hold(queue_line(c.id(), line) - line.size());
  schedule_drain();
}

std::size_t hub::queue_line(std::uint64_t id, const std::string& line) {
  // protocol.md §1: what waits is the decoded request, not the line: its fixed size (about
  // 1.2 KiB, the largest request's) plus about the line's length of strings and arrays copied
  // out of it. That is what the connection's flow control counts, so a flood of short lines
  // pauses reading at limits.max_inbound_bytes of them too.
  const std::size_t held = sizeof(inbound) + line.size();
  queue_.push_back(inbound{id, inbound::kind::line, held, protocol::decode_request(line)});
  return held;
}

void hub::on_line_too_long(connection& c) {
  auto it = clients_.find(c.id());
  if (it == clients_.end()) {
    c.applied(0);
    return;
  }
  client& cl = it->second;
  if (!cl.hello) {
    c.applied(0);
    refuse(cl, {},
           api::error{api::error_code::line_too_long,
                      "the line is longer than limits.max_line_bytes", "", std::nullopt},
           close_reason::line_too_long);
    return;
  }
  queue_.push_back(inbound{c.id(), inbound::kind::too_long, 0, std::nullopt});
  schedule_drain();
}

void hub::on_eof(connection& c) {
  auto it = clients_.find(c.id());
  if (it == clients_.end() || !it->second.hello) {
    c.close_after(nullptr, close_reason::peer);
    return;
  }
  queue_.push_back(inbound{c.id(), inbound::kind::eof, 0, std::nullopt});
  schedule_drain();
}

void hub::on_closed(connection& c) {
  const auto known = clients_.find(c.id());
  log_closed(c, known != clients_.end() && known->second.hello);
  closed_bytes_in_ += c.stats().bytes_in;
  closed_bytes_out_ += c.stats().bytes_out;
  auto it = clients_.find(c.id());
  if (it == clients_.end()) {
    check_stopped();
    return;
  }
  client& cl = it->second;
  if (cl.hello) {
    --(cl.role == protocol::client_role::observer ? metrics_.connections_observer
                                                  : metrics_.connections_controller);
  } else {
    pending_done(cl);
  }
  cl.conn.reset();
  if (!cl.hello || stopping_) {
    clients_.erase(it);
  } else if (!cl.disconnected) {
    // Its players leave at the next tick boundary, after what it sent before.
    queue_.push_back(inbound{c.id(), inbound::kind::closed, 0, std::nullopt});
    schedule_drain();
  } else {
    clients_.erase(it);
  }
  check_stopped();
}

void hub::handle_hello(client& cl, const std::string& line) {
  auto decoded = protocol::decode_request(line);
  if (!decoded) {
    refuse(cl, decoded.error().id, decoded.error().error, close_reason::bad_hello,
           &decoded.error().subject);
    return;
  }
  const auto* hello = std::get_if<protocol::hello_request>(&decoded->body);
  if (hello == nullptr) {
    const auto about = protocol::subject_of(*decoded);
    refuse(cl, decoded->id,
           api::error{api::error_code::bad_request, "the first message must be hello", "$.op",
                      std::nullopt},
           close_reason::bad_hello, &about);
    return;
  }
  const protocol::error_subject hello_subject{"hello", {}, {}};
  const std::string& token = hello->role == protocol::client_role::observer
                                 ? settings_.auth.observer_token
                                 : settings_.auth.controller_token;
  // protocol.md §2: failed logins are throttled per address and role (login_throttle); a right
  // token is never refused by it, so a client with a stale token locks out nobody else.
  const std::string peer = cl.conn ? cl.conn->peer() : "";
  const std::string address = peer_address(peer);
  const std::string login_key = address + " " + std::string(role_name(hello->role));
  const auto now = clock_type::now();
  if (!token.empty() && !constant_time_equal(hello->token.value_or(std::string()), token)) {
    ++metrics_.logins_failed_total;
    if (const auto left = logins_.blocked_for(login_key, now)) {
      ++metrics_.log_lines_suppressed_total;
      refuse(cl, decoded->id,
             api::error{api::error_code::unauthorized,
                        "too many failed logins from this address; try again in " +
                            std::to_string((left->count() + 999) / 1000) + " s",
                        "$.token", std::nullopt},
             close_reason::unauthorized, &hello_subject);
      return;
    }
    if (const auto note = logins_.failed(login_key, now); note.warn) {
      spdlog::warn("connection {} ({}): unauthorized hello as {} ({} failed logins from {} since "
                   "the last warning, {} in a row)",
                   cl.id, peer, role_name(hello->role), note.since_last_warning, address,
                   note.in_a_row);
    } else {
      ++metrics_.log_lines_suppressed_total;
    }
    refuse(cl, decoded->id,
           api::error{api::error_code::unauthorized,
                      std::string("a valid token is required for the ") +
                          std::string(role_name(hello->role)) + " role",
                      "$.token", std::nullopt},
           close_reason::unauthorized, &hello_subject);
    return;
  }
  if (hello->role == protocol::client_role::observer &&
      metrics_.connections_observer >= observer_slots(settings_.limits)) {
    // protocol.md §2: the last limits.reserved_controller_connections slots are the controller's.
    ++metrics_.connections_refused_total;
    if (const auto n = limited_log(peer, now)) {
      spdlog::warn("connection {} ({}) refused: observers hold {} of {} connections ({} reserved "
                   "for controllers){}",
                   cl.id, peer, metrics_.connections_observer, settings_.limits.max_connections,
                   settings_.limits.reserved_controller_connections, *n);
    }
    if (const auto conn = cl.conn) {
      conn->close_after(make_line(bye_line("max_connections")), close_reason::max_connections);
    }
    return;
  }
  if (!token.empty()) {
    logins_.succeeded(login_key);
  }
  cl.hello = true;
  cl.role = hello->role;
  cl.name = hello->client;
  pending_done(cl);
  ++(cl.role == protocol::client_role::observer ? metrics_.connections_observer
                                                : metrics_.connections_controller);
  if (cl.conn) {
    cl.conn->hello_done(settings_.idle_timeout);
  }
  const auto tick = host_.tick();
  protocol::welcome_info w;
  w.server_version = EMOTE_SIM_VERSION;
  w.build = build_id();
  w.tick = tick;
  w.tps = settings_.tps;
  w.manual_clock = settings_.clock == clock_mode::manual;
  w.observer = cl.role == protocol::client_role::observer;
  w.emotes = host_.emote_count();
  std::string out;
  protocol::encode_welcome(out, w);
  send(cl, std::move(out));
  if (rec_ != nullptr) {
    rec_->connect(tick, cl.id, role_name(cl.role), cl.name);
  }
  spdlog::info("connection {} ({}): {} '{}'", cl.id, cl.conn ? cl.conn->peer() : "",
               role_name(cl.role), cl.name);
}

// ---------------------------------------------------------------------------------------------
// The inbound queue

void hub::schedule_drain() {
  // Realtime: applied at the start of the next tick. Manual: now (after this read).
  if (settings_.clock != clock_mode::manual || drain_posted_ || step_ || stopping_) {
    return;
  }
  drain_posted_ = true;
  asio::post(io_, [this] {
    drain_posted_ = false;
    drain();
  });
}

void hub::drain() {
  while (!queue_.empty() && !step_) {
    inbound item = std::move(queue_.front());
    queue_.pop_front();
    process(std::move(item));
  }
}

void hub::process(inbound item) {
  auto it = clients_.find(item.conn);
  if (it == clients_.end()) {
    return;
  }
  client& cl = it->second;
  if (cl.conn && (item.type == inbound::kind::line || item.type == inbound::kind::too_long)) {
    cl.conn->applied(item.bytes);
  }
  if (cl.disconnected) {
    return;
  }
  switch (item.type) {
  case inbound::kind::line:
    handle_request(cl, *item.decoded);
    break;
  case inbound::kind::too_long:
    send_error(cl, {},
               api::error{api::error_code::line_too_long,
                          "the line is longer than limits.max_line_bytes (" +
                              std::to_string(settings_.limits.max_line_bytes) + " bytes)",
                          "", std::nullopt});
    break;
  case inbound::kind::eof:
  case inbound::kind::closed:
    disconnect(cl, close_reason::peer);
    break;
  }
}

void hub::handle_request(client& cl, const decoded_line& decoded) {
  const auto tick = host_.tick();
  if (!decoded) {
    send_error(cl, decoded.error().id, decoded.error().error, &decoded.error().subject);
    return;
  }
  const protocol::request& r = *decoded;
  if (std::holds_alternative<protocol::hello_request>(r.body)) {
    const auto about = protocol::subject_of(r);
    send_error(cl, r.id,
               api::error{api::error_code::bad_request, "hello was already received", "$.op",
                          std::nullopt},
               &about);
    return;
  }
  if (cl.role == protocol::client_role::observer && protocol::controller_only(r)) {
    const auto about = protocol::subject_of(r);
    send_error(cl, r.id, protocol::forbidden_error(r.op), &about);
    return;
  }
  ++metrics_.messages_total;
  if (rec_ != nullptr) {
    rec_->message(tick, cl.id, r.record);
  }
  if (std::holds_alternative<protocol::bye_request>(r.body)) {
    if (cl.conn) {
      send(cl, bye_line({}));
    }
    disconnect(cl, close_reason::bye);
    return;
  }
  if (const auto* s = std::get_if<protocol::subscribe_request>(&r.body)) {
    cl.sub = s->subscription;
    if (cl.conn) {
      cl.conn->stop_idle_watch(); // protocol.md §2: a subscriber may stay quiet
    }
    // render.md §4 rule 6: a new packets subscriber gets a snapshot of its own with the next
    // frame; nothing anyone else receives changes.
    cl.snapshot_pending = cl.sub->filter.packets;
    if (protocol::needs_reply(r.id, true)) {
      std::string out;
      protocol::encode_ok(out, r.id, tick);
      send(cl, std::move(out));
    }
    return;
  }
  if (const auto* step = std::get_if<protocol::clock_step_request>(&r.body)) {
    if (settings_.clock != clock_mode::manual) {
      const auto about = protocol::subject_of(r);
      send_error(cl, r.id,
                 api::error{api::error_code::clock_not_manual,
                            "clock.step needs a manual clock (the server runs in realtime)", "",
                            std::nullopt},
                 &about);
      return;
    }
    step_ = step_job{cl.id, r.id, step->ticks};
    asio::post(io_, [this] { continue_steps(); });
    return;
  }
  if (const auto* in = std::get_if<api::input>(&r.body)) {
    // gate.md §9: a gate's players are the gate's; other connections may not change them.
    const std::string* player = nullptr;
    std::visit(
        [&](const auto& i) {
          using T = std::decay_t<decltype(i)>;
          if constexpr (std::is_same_v<T, api::player_join> ||
                        std::is_same_v<T, api::player_update> ||
                        std::is_same_v<T, api::player_event> ||
                        std::is_same_v<T, api::player_leave>) {
            player = &i.player;
          }
        },
        *in);
    if (player != nullptr) {
      const auto owner = owners_.owner(*player);
      const auto o = owner ? clients_.find(*owner) : clients_.end();
      if (o != clients_.end() && o->second.internal && o->first != cl.id) {
        send_error(cl, r.id,
                   api::error{api::error_code::forbidden,
                              "player '" + *player +
                                  "' is a gate's player: its state comes from "
                                  "its Minecraft connection (gate.md §9)",
                              "$.player", std::nullopt});
        return;
      }
    }
  }
  std::string out;
  const auto result = dispatch(host_, owners_, cl.id, r, out);
  if (!result.handled) {
    const auto about = protocol::subject_of(r);
    send_error(cl, r.id,
               api::error{api::error_code::internal, "request not handled", "", std::nullopt},
               &about);
    return;
  }
  account(cl, &r, result);
  if (!out.empty()) {
    if (rec_ != nullptr) {
      rec_->reply(tick, cl.id, out); // replay compares it (protocol.md §8)
    }
    send(cl, std::move(out));
  }
}

void hub::disconnect(client& cl, close_reason why) {
  if (cl.disconnected) {
    return;
  }
  cl.disconnected = true;
  const auto tick = host_.tick();
  if (rec_ != nullptr) {
    rec_->disconnect(tick, cl.id);
  }
  const auto left = disconnect_players(host_, owners_, cl.id);
  spdlog::debug("connection {} disconnected at tick {}; {} players left", cl.id, tick, left);
  const auto id = cl.id;
  if (const auto conn = cl.conn) {
    // May close at once and call on_closed, which can erase `cl`: touch nothing of it after.
    conn->close_after(nullptr, why);
  }
  forget_if_done(id);
}

std::uint64_t hub::attach_internal(std::string name,
                                   std::function<void(std::string_view)> on_line) {
  const std::uint64_t id = ++next_id_;
  client cl;
  cl.id = id;
  cl.hello = true;
  cl.role = protocol::client_role::controller;
  cl.name = std::move(name);
  cl.internal = std::move(on_line);
  if (rec_ != nullptr) {
    rec_->connect(host_.tick(), id, "controller", cl.name);
  }
  clients_.emplace(id, std::move(cl));
  return id;
}

void hub::internal_line(std::uint64_t id, std::string line) {
  if (stopping_) {
    return;
  }
  queue_line(id, line);
  schedule_drain();
}

void hub::forget_if_done(std::uint64_t id) {
  auto it = clients_.find(id);
  if (it != clients_.end() && it->second.disconnected && !it->second.conn) {
    clients_.erase(it);
  }
}

// ---------------------------------------------------------------------------------------------
// Clocks and ticks

void hub::arm_timer() {
  timer_.expires_at(schedule_->next_due());
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !stopping_) {
      on_timer();
    }
  });
}

void hub::on_timer() {
  const auto t0 = clock_type::now();
  const auto wake = schedule_->begin_tick(t0);
  metrics_.ticks_behind = wake.behind;
  if (wake.skipped > 0) {
    metrics_.ticks_skipped_total += static_cast<std::uint64_t>(wake.skipped);
    spdlog::warn("the server is {} ticks behind the realtime clock; skipped {} tick deadlines",
                 wake.behind, wake.skipped);
  }
  drain();
  run_tick();
  metrics_.tick_duration.observe(std::chrono::duration<double>(clock_type::now() - t0).count());
  arm_timer();
}

void hub::continue_steps() {
  if (!step_ || stopping_) {
    return;
  }
  const auto t0 = clock_type::now();
  run_tick();
  metrics_.tick_duration.observe(std::chrono::duration<double>(clock_type::now() - t0).count());
  if (--step_->remaining > 0) {
    // One tick per turn of the event loop, so frames flush while a long step runs.
    asio::post(io_, [this] { continue_steps(); });
    return;
  }
  const step_job job = std::move(*step_);
  step_.reset();
  auto it = clients_.find(job.conn);
  if (it != clients_.end() && protocol::needs_reply(job.id, true)) {
    // The reply's tick is the tick now accepting inputs, which is also its result.
    std::string out;
    protocol::encode_ok(out, job.id, host_.tick());
    send(it->second, std::move(out));
  }
  drain();
}

bool hub::packets_wanted() const {
  if (rec_ != nullptr && !rec_->failed() && rec_->with_frames()) {
    return true;
  }
  if (on_tick_ && (!on_tick_wants_ || on_tick_wants_())) {
    return true;
  }
  return std::any_of(clients_.begin(), clients_.end(), [](const auto& c) {
    return c.second.sub && c.second.sub->filter.packets && c.second.conn && !c.second.disconnected;
  });
}

void hub::run_tick() {
  const bool wanted = packets_wanted();
  host_.want_packets(wanted);
  metrics_.render_unbuilt_ticks_total += wanted ? 0 : 1;
  const protocol::tick_output& t = host_.step();
  const api::frame& f = *t.frame;
  const bool has_events = t.has_events();
  const protocol::frame_packets& packets = t.packets;
  encoder_.begin(t);
  if (has_events) {
    ++metrics_.frames_total;
  }
  // protocol.md §8: the state digest of every tick, a dump every record_state_every ticks.
  // After a write error the recording has stopped: nothing more is computed for it.
  const bool recording = rec_ != nullptr && !rec_->failed();
  std::optional<std::string> state;
  if (recording) {
    if (const auto d = host_.state_digest()) {
      state = core::state_digest_hex(*d);
    }
  }
  // render.md §6: digests cover events only; recorded frames carry the packets too.
  if (recording && (has_events || (rec_->with_frames() && !packets.empty()))) {
    protocol::frame_filter with_packets = protocol::full_filter();
    with_packets.packets = true;
    rec_->frame(f.tick, encoder_.encode(protocol::full_filter())->line,
                rec_->with_frames() ? encoder_.encode(with_packets)->line : std::string_view{},
                state);
  } else if (state) {
    rec_->state(f.tick, *state);
  }
  if (state && rec_->dump_due(f.tick)) {
    std::string dump;
    json::state_json sink(dump);
    host_.describe_state(sink);
    rec_->state_dump(f.tick, dump);
  }
  std::optional<protocol::frame_packets> snapshot; // made at most once per tick
  std::int64_t snapshots_waiting = 0;
  for (auto& [id, cl] : clients_) {
    if (!cl.sub || !cl.conn || cl.disconnected) {
      continue;
    }
    if (cl.snapshot_pending && cl.sub->filter.packets) {
      // render.md §4 rule 6: at most one snapshot per connection per snapshot_window ticks.
      if (cl.last_snapshot && f.tick < *cl.last_snapshot + snapshot_window) {
        ++snapshots_waiting;
      } else {
        if (!snapshot) {
          snapshot = host_.packet_snapshot();
        }
        send_with_snapshot(cl, t, *snapshot);
        continue;
      }
    }
    // render.md §6: a frame with packets goes to a packets subscriber even without events.
    const bool has_packets = cl.sub->filter.packets && !packets.empty();
    if (!has_events && !has_packets && !cl.sub->empty_frames) {
      continue;
    }
    auto encoded = encoder_.encode(cl.sub->filter);
    if (encoded->event_count == 0 && encoded->packet_count == 0 && !cl.sub->empty_frames) {
      continue;
    }
    // Aliasing: the line shares ownership of the encoder's buffer; no copy per subscriber.
    const shared_line line(encoded, &encoded->line);
    const auto conn = cl.conn; // send_frame may close it, which resets cl.conn
    note(*conn, conn->send_frame(line, cl.sub->lossy));
  }
  if (on_tick_) {
    on_tick_(t);
  }
  if (rec_ != nullptr) {
    rec_->flush();
  }
  metrics_.render_snapshots_waiting = snapshots_waiting;
  const render::render_counts rc = host_.render_counts();
  metrics_.render_resync_requests_total = rc.resync_requests;
  metrics_.render_resyncs_total = rc.resyncs;
  ++metrics_.ticks_total;
  metrics_.tick = host_.tick();
  metrics_.memos = {playback::decomposition_memo_stats(), protocol::transform_text_memo_stats()};
}

void hub::send_with_snapshot(client& cl, const protocol::tick_output& t,
                             const protocol::frame_packets& snapshot) {
  const protocol::frame_packets& shared = t.packets;
  // This tick's entries, then the snapshot (render.md §4 rule 6), encoded for this connection
  // alone: the shared encoder's lines stay what every other subscriber gets.
  render::render_output merged;
  if (shared.output != nullptr) {
    merged = *shared.output;
  }
  if (snapshot.output != nullptr) {
    merged.append(*snapshot.output);
  }
  protocol::frame_encoder own;
  protocol::tick_output with_snapshot = t;
  with_snapshot.packets = protocol::frame_packets{&merged, snapshot.names};
  own.begin(with_snapshot);
  const auto encoded = own.encode(cl.sub->filter);
  cl.snapshot_pending = false;
  cl.last_snapshot = t.tick();
  ++metrics_.render_snapshots_total;
  if (encoded->event_count == 0 && encoded->packet_count == 0 && !cl.sub->empty_frames) {
    return; // no viewer and nothing happened: nothing to bring up to date
  }
  const shared_line line(encoded, &encoded->line);
  const auto conn = cl.conn;
  note(*conn, conn->send_frame(line, cl.sub->lossy));
}

// ---------------------------------------------------------------------------------------------
// Output

void hub::send(client& cl, std::string text) {
  if (cl.internal) {
    cl.internal(text);
    return;
  }
  if (!cl.conn) {
    return;
  }
  const auto conn = cl.conn;
  note(*conn, conn->send(make_line(std::move(text))));
}

void hub::note(const connection& c, connection::send_result r) {
  if (r == connection::send_result::dropped) {
    ++metrics_.frames_dropped_total;
  } else if (r == connection::send_result::slow_consumer) {
    ++metrics_.slow_consumer_disconnects_total;
    spdlog::warn("connection {} ({}): slow consumer (over {} outbound bytes); disconnecting",
                 c.id(), c.peer(), settings_.limits.max_outbound_bytes);
  }
}

void hub::send_error(client& cl, const protocol::request_id& id, const api::error& err,
                     const protocol::error_subject* about) {
  std::string out;
  protocol::encode_error(out, id, host_.tick(), err, about);
  account(cl, nullptr, protocol::outcome{true, err});
  send(cl, std::move(out));
}

void hub::refuse(client& cl, const protocol::request_id& id, const api::error& err,
                 close_reason why, const protocol::error_subject* about) {
  std::string out;
  protocol::encode_error(out, id, host_.tick(), err, about);
  account(cl, nullptr, protocol::outcome{true, err});
  if (const auto conn = cl.conn) {
    conn->close_after(make_line(std::move(out)), why);
  }
}

void hub::account(const client& cl, const protocol::request* r, const protocol::outcome& o) {
  if (o.error) {
    metrics_.count_error(o.error->code);
  }
  if (o.error && r != nullptr &&
      (o.error->code == api::error_code::internal ||
       o.error->code == api::error_code::molang_error)) {
    // protocol.md §3: failures the operator must see (a bug, or content failing at run time),
    // one line per op and code per 10 s.
    const auto n = failures_.hit(std::string(api::name(o.error->code)) + " " + std::string(r->op),
                                 clock_type::now());
    if (n.log) {
      spdlog::warn("connection {}: {} failed ({}): {} [{:.200}]{}", cl.id, r->op,
                   api::name(o.error->code), o.error->message, r->record,
                   n.events > 1 ? " (" + std::to_string(n.events) + " since the last line)"
                                : std::string());
    }
  }
  if (r != nullptr && std::holds_alternative<protocol::emote_reload_request>(r->body)) {
    ++(o.ok() ? metrics_.reloads_total : metrics_.reload_failures_total);
    const std::string when = "emote.reload by connection " + std::to_string(cl.id);
    if (o.reload) {
      log_skipped_files(when, o.reload->skipped);
    }
    if (o.error) {
      spdlog::warn("{} failed ({}): {}", when, api::name(o.error->code), o.error->message);
    } else if (o.reload) {
      spdlog::info("{}: {} emotes ({} files skipped)", when, o.reload->loaded,
                   skipped_count(o.reload->skipped));
    }
  }
}

void hub::log_closed(const connection& c, bool welcomed) {
  const auto why = c.why_closed();
  const auto level =
      why == close_reason::peer || why == close_reason::bye || why == close_reason::server_stopping
          ? spdlog::level::debug
          : spdlog::level::info;
  if (!spdlog::should_log(level)) {
    return;
  }
  if (why == close_reason::unauthorized) {
    return; // the failed login's own (rate-limited) warning is its line
  }
  if (welcomed) {
    spdlog::log(level, "connection {} ({}) closed: {}", c.id(), c.peer(), close_reason_names(why));
  } else if (const auto n = limited_log(c.peer(), clock_type::now())) {
    // protocol.md §2: connections that never got in are logged once per address per 10 s.
    spdlog::log(level, "connection {} ({}) closed before hello: {}{}", c.id(), c.peer(),
                close_reason_names(why), *n);
  }
}

std::optional<std::string> hub::limited_log(const std::string& peer,
                                            std::chrono::steady_clock::time_point now) {
  const auto n = refusals_.hit(peer_address(peer), now);
  if (!n.log) {
    ++metrics_.log_lines_suppressed_total;
    return std::nullopt;
  }
  return n.events > 1 ? " (" + std::to_string(n.events) + " from this address since the last line)"
                      : std::string();
}

// ---------------------------------------------------------------------------------------------
// Shutdown

void hub::stop(std::function<void()> done) {
  if (stopping_) {
    return;
  }
  spdlog::info("stopping: no new connections; stopping every playback");
  for (auto& l : listeners_) {
    l->close();
  }
  timer_.cancel();
  if (step_) {
    // A manual clock.step in progress ends here.
    auto it = clients_.find(step_->conn);
    const auto id = step_->id;
    step_.reset();
    if (it != clients_.end()) {
      const protocol::error_subject about{"clock.step", {}, {}};
      send_error(it->second, id,
                 api::error{api::error_code::shutting_down,
                            "the server is stopping; the remaining ticks did not run", "",
                            std::nullopt},
                 &about);
    }
  }
  // What clients sent before the signal is applied, then every playback stops.
  drain();
  stopping_ = true;
  stop_done_ = std::move(done);
  host_.shutdown();
  if (rec_ != nullptr) {
    rec_->disconnect(host_.tick(), server_conn);
  }
  run_tick();
  const auto bye = make_line(bye_line("server_stopping"));
  for (auto& [id, cl] : clients_) {
    if (cl.conn) {
      const auto conn = cl.conn;
      conn->close_after(bye, close_reason::server_stopping);
    }
  }
  stop_timer_.expires_after(settings_.linger + std::chrono::milliseconds(500));
  stop_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && stop_done_) {
      spdlog::warn("stopping: {} connections did not close in time", clients_.size());
      auto done_fn = std::move(stop_done_);
      stop_done_ = nullptr;
      done_fn();
    }
  });
  check_stopped();
}

void hub::check_stopped() {
  if (!stopping_ || !stop_done_) {
    return;
  }
  for (const auto& [id, cl] : clients_) {
    if (cl.conn) {
      return;
    }
  }
  stop_timer_.cancel();
  auto done_fn = std::move(stop_done_);
  stop_done_ = nullptr;
  asio::post(io_, std::move(done_fn));
}

std::size_t hub::queued_outbound_bytes() const noexcept {
  std::size_t n = 0;
  for (const auto& [id, cl] : clients_) {
    if (cl.conn) {
      n += cl.conn->queued_bytes();
    }
  }
  return n;
}

std::string hub::render_metrics() {
  const protocol::sim_host::gauges g = host_.gauge();
  metrics_.sessions = g.sessions;
  metrics_.players = g.players;
  metrics_.displays = g.displays;
  metrics_.emotes = host_.emote_count();
  metrics_.recording_failed = rec_ == nullptr ? -1 : static_cast<std::int64_t>(rec_->failed());
  std::uint64_t in = closed_bytes_in_;
  std::uint64_t out = closed_bytes_out_;
  for (const auto& [id, cl] : clients_) {
    if (cl.conn) {
      in += cl.conn->stats().bytes_in;
      out += cl.conn->stats().bytes_out;
    }
  }
  metrics_.bytes_in_total = in;
  metrics_.bytes_out_total = out;
  return metrics_.render();
}

} // namespace emote::server
