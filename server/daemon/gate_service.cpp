#include "server/daemon/gate_service.hpp"

#include "gate/requests.hpp"
#include "gate/session.hpp"
#include "server/daemon/accept_loop.hpp"
#include "server/daemon/log_limit.hpp"
#include "server/daemon/metrics.hpp"
#include "server/daemon/prometheus.hpp"
#include "server/daemon/tcp_bind.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <cerrno>
#include <sys/socket.h>
#include <sys/uio.h>

namespace emote::server {

namespace asio = boost::asio;
namespace gw = ::emote::gate;
using asio::ip::tcp;

struct gate_counters {
  std::int64_t open = 0;
  std::uint64_t accepted = 0;
  std::uint64_t bytes_to_backend = 0;
  std::uint64_t bytes_to_client = 0;
  std::uint64_t malformed = 0;
  std::uint64_t slow_consumer = 0;
  std::uint64_t encryption = 0;
  std::uint64_t backend_down = 0;
  std::uint64_t passthrough = 0;
  std::uint64_t refused_full = 0;
};

/// gate.md §8: the forward delay's buckets, finer than the tick's below a millisecond.
constexpr std::array<double, 14> forward_bounds{0.00005, 0.0001, 0.00025, 0.0005, 0.00075,
                                                0.001,   0.0015, 0.002,   0.0025, 0.005,
                                                0.01,    0.025,  0.05,    0.1};

struct gate_service::gate {
  settings::gate_config config;
  std::shared_ptr<accept_loop<tcp::acceptor, tcp::socket>> acceptor;
  settings::listen_address bound;
  std::uint64_t client_id = 0;             ///< the hub's internal client
  std::unordered_set<std::int32_t> hidden; ///< gate.md §7: hidden players' entity ids
  std::map<std::uint64_t, std::shared_ptr<pair>> pairs;
  std::unordered_map<std::string, std::weak_ptr<pair>> players; ///< player key → pair
  /// Pending `/emote` requests by id: the pair to tell a refusal.
  std::unordered_map<std::string, std::weak_ptr<pair>> requests;
  std::uint64_t next_pair = 0;
  std::uint64_t next_request = 0;
  bool encryption_logged = false;
  std::set<std::int32_t> passthrough_logged;
  gate_counters counters;
  /// gate.md §8: for each write to a client that carries bytes read from the backend, the time
  /// from the read of the oldest of them to the write that hands them to the socket.
  histogram forward_delay{forward_bounds};
  bool closing = false;
  // What the pairs need of the service.
  gate_hub* hub = nullptr;
  protocol::sim_host* host = nullptr;
  std::size_t max_buffered = 0;
  std::size_t max_frame = 0;
  std::int64_t max_connections = 0;
  log_limit full_log; ///< one "full" line per 10 s
  std::chrono::milliseconds connect_timeout{5000};
};

struct gate_service::pair : std::enable_shared_from_this<pair> {
  gate_service& svc;
  gate& g;
  std::uint64_t id;
  tcp::socket client;
  tcp::socket backend;
  tcp::resolver resolver;
  asio::steady_timer connect_timer;
  gw::session s;
  bool backend_ready = false;
  bool closing = false;
  std::string backend_pending; ///< to_backend before the backend connected
  /// gate.md §5: the renderer's packets for this player from the ticks since they were last
  /// injected, unframed, in order (`injecting_sizes` splits them): framed and compressed after
  /// the tick, and always before anything later read from either side is handled.
  std::string injecting;
  std::vector<std::uint32_t> injecting_sizes;
  bool inject_posted = false;         ///< waits in the service's inject queue
  api::tick_number set_aside_at = -1; ///< the last tick that set packets aside for it
  using clock_type = std::chrono::steady_clock;
  struct side {
    std::string queue;   ///< bytes not yet handed to async_write
    std::string writing; ///< bytes in flight
    bool busy = false;
    /// When the oldest backend bytes in `queue` were read (to_client only; the epoch when it
    /// holds none).
    clock_type::time_point queued_since{};
  } to_client, to_backend;
  /// While a backend read is handled: when its bytes reached the kernel (SO_TIMESTAMPNS; what
  /// it sends the client is stamped with it).
  clock_type::time_point backend_read_at{};
  std::array<char, 16384> client_buf{};
  std::array<char, 16384> backend_buf{};

  pair(gate_service& service, gate& gt, std::uint64_t pid, tcp::socket sock, std::size_t max_frame)
      : svc(service), g(gt), id(pid), client(std::move(sock)), backend(service.io_),
        resolver(service.io_), connect_timer(service.io_), s(max_frame, &gt.hidden) {}
};

namespace {

using pair_ptr = std::shared_ptr<gate_service::pair>;
using pair_clock = gate_service::pair::clock_type;

void start_client_read(const pair_ptr& p);
void start_backend_read(const pair_ptr& p);
void apply(const pair_ptr& p, gw::session_output& out);

void close_pair(const pair_ptr& p) {
  if (p->closing) {
    return;
  }
  p->closing = true;
  gw::session_output out;
  p->s.closed(out);
  apply(p, out);
  boost::system::error_code ec;
  p->connect_timer.cancel();
  p->resolver.cancel();
  p->backend.shutdown(tcp::socket::shutdown_both, ec);
  p->backend.close(ec);
  // The client's last bytes (a disconnect message) go out before it closes.
  if (!p->to_client.busy && p->to_client.queue.empty()) {
    p->client.shutdown(tcp::socket::shutdown_both, ec);
    p->client.close(ec);
  }
  --p->g.counters.open;
  p->g.pairs.erase(p->id);
}

void flush(const pair_ptr& p, bool to_client) {
  auto& side = to_client ? p->to_client : p->to_backend;
  tcp::socket& sock = to_client ? p->client : p->backend;
  if (side.busy || side.queue.empty() || !sock.is_open()) {
    return;
  }
  side.busy = true;
  side.writing.swap(side.queue);
  side.queue.clear();
  if (side.queued_since != pair_clock::time_point{}) {
    // gate.md §8: the bytes are handed to the socket now (Asio sends at once what the socket
    // takes; the completion handler runs later, possibly after a tick, and is not the packet's).
    p->g.forward_delay.observe(
        std::chrono::duration<double>(pair_clock::now() - side.queued_since).count());
    side.queued_since = {};
  }
  asio::async_write(sock, asio::buffer(side.writing),
                    [p, to_client](const boost::system::error_code& ec, std::size_t) {
                      auto& sd = to_client ? p->to_client : p->to_backend;
                      sd.busy = false;
                      sd.writing.clear();
                      if (ec) {
                        close_pair(p);
                        return;
                      }
                      if (p->closing && to_client) {
                        if (sd.queue.empty()) {
                          boost::system::error_code ignored;
                          p->client.shutdown(tcp::socket::shutdown_both, ignored);
                          p->client.close(ignored);
                          return;
                        }
                      }
                      flush(p, to_client);
                    });
}

/// Queue `bytes` for one side, in order after everything queued before, and start the write.
void send_to(const pair_ptr& p, bool to_client, std::string_view bytes, std::size_t limit) {
  if (bytes.empty()) {
    return;
  }
  auto& side = to_client ? p->to_client : p->to_backend;
  side.queue.append(bytes);
  if (to_client) {
    if (side.queued_since == pair_clock::time_point{}) {
      side.queued_since = p->backend_read_at; // the epoch unless a backend read sends this
    }
    p->g.counters.bytes_to_client += bytes.size();
  } else {
    p->g.counters.bytes_to_backend += bytes.size();
  }
  if (side.queue.size() + side.writing.size() > limit && !p->closing) {
    // gate.md §8: a side that does not read is cut like a slow socket client.
    ++p->g.counters.slow_consumer;
    spdlog::warn("gate {}: connection {}: the {} does not read ({} bytes queued); closed",
                 p->g.config.name, p->id, to_client ? "client" : "backend",
                 side.queue.size() + side.writing.size());
    side.queue.clear();
    close_pair(p);
    return;
  }
  flush(p, to_client);
}

/// gate.md §5: frame (and compress, or hold behind an open bundle) the packets the ticks left for
/// this client and queue them, in order, after everything queued to it before.
void inject_pending(const pair_ptr& p) {
  if (p->injecting_sizes.empty() || p->closing) {
    p->injecting.clear();
    p->injecting_sizes.clear();
    return;
  }
  gw::session_output out;
  const std::string_view all(p->injecting);
  std::size_t at = 0;
  for (const std::uint32_t n : p->injecting_sizes) {
    p->s.inject(all.substr(at, n), out);
    at += n;
  }
  p->injecting.clear();
  p->injecting_sizes.clear();
  send_to(p, true, out.to_client, p->g.max_buffered);
}

} // namespace

// The player's requests and the answers to its commands (gate.md §6).
namespace {

void send_line(gate_service::gate& g, gate_hub& hub, const api::input& in,
               std::string_view id = {}) {
  hub.line(g.client_id, gw::request_line(in, id));
}

} // namespace

namespace {

std::vector<std::string> emote_ids(protocol::sim_host& host) {
  std::vector<std::string> ids;
  for (const auto& e : host.list()) {
    if (e.standalone) {
      ids.push_back(e.id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

void apply(const pair_ptr& p, gw::session_output& out) {
  gate_service::gate& g = p->g;
  const std::size_t limit = g.max_buffered;
  if (!out.to_backend.empty()) {
    if (p->backend_ready) {
      send_to(p, false, out.to_backend, limit);
    } else {
      p->backend_pending += out.to_backend;
      if (p->backend_pending.size() > limit && !p->closing) {
        ++g.counters.slow_consumer;
        close_pair(p);
        return;
      }
    }
  }
  send_to(p, true, out.to_client, limit);
  for (const api::input& in : out.inputs) {
    if (const auto* j = std::get_if<api::player_join>(&in)) {
      g.players[j->player] = p;
    } else if (const auto* l = std::get_if<api::player_leave>(&in)) {
      g.players.erase(l->player);
    }
    send_line(g, *g.hub, in);
  }
  gw::session_output more;
  for (const auto& c : out.commands) {
    using kind = gw::command_request::kind;
    if (c.what == kind::usage) {
      p->s.tell("Usage: /emote <id> | stop | list", more);
    } else if (c.what == kind::list) {
      const auto ids = emote_ids(*g.host);
      std::string text = ids.empty() ? "No emotes." : "Emotes: ";
      for (std::size_t k = 0; k < ids.size(); ++k) {
        text += (k ? ", " : "") + ids[k];
      }
      p->s.tell(text, more);
    } else if (!p->s.joined()) {
      p->s.tell("Emotes are not ready yet.", more);
    } else {
      const std::string id = "gate:" + std::to_string(++g.next_request);
      g.requests[id] = p;
      if (c.what == kind::stop) {
        send_line(g, *g.hub, api::emote_stop{p->s.player()}, id);
      } else {
        api::emote_play play;
        play.player = p->s.player();
        play.emote = c.emote;
        play.source = api::play_source::command;
        send_line(g, *g.hub, play, id);
      }
    }
  }
  for (const auto& q : out.tabs) {
    std::vector<std::string> matches;
    for (const std::string& m : {std::string("list"), std::string("stop")}) {
      if (m.starts_with(q.word)) {
        matches.push_back(m);
      }
    }
    for (const auto& id : emote_ids(*g.host)) {
      if (id.starts_with(q.word)) {
        matches.push_back(id);
      }
    }
    std::sort(matches.begin(), matches.end());
    p->s.answer_tab(q, matches, more);
  }
  send_to(p, true, more.to_client, limit);
  if (out.note == gw::notice::encryption && !g.encryption_logged) {
    g.encryption_logged = true;
    spdlog::error("gate {}: the backend {} asks for encryption (online mode): the gate must sit "
                  "between the proxy and an offline-mode backend (docs/guide/deployment.md)",
                  g.config.name, g.config.backend.text());
  }
  if (out.note == gw::notice::passthrough) {
    ++g.counters.passthrough;
    if (g.passthrough_logged.insert(out.note_protocol).second) {
      spdlog::warn("gate {}: protocol {} is not supported ({}): its connections pass through "
                   "without emotes",
                   g.config.name, out.note_protocol, render::supported_protocols_text());
    }
  }
  if (out.close && !p->closing) {
    switch (*out.close) {
    case gw::fault::malformed:
    case gw::fault::too_long:
      ++g.counters.malformed;
      break;
    case gw::fault::encryption:
      ++g.counters.encryption;
      break;
    case gw::fault::backend_down:
      ++g.counters.backend_down;
      break;
    case gw::fault::none:
      break;
    }
    spdlog::info("gate {}: connection {} closed: {}", g.config.name, p->id, out.close_detail);
    close_pair(p);
  }
}

void start_client_read(const pair_ptr& p) {
  p->client.async_read_some(asio::buffer(p->client_buf),
                            [p](const boost::system::error_code& ec, std::size_t n) {
                              if (p->closing) {
                                return;
                              }
                              if (ec) {
                                close_pair(p);
                                return;
                              }
                              inject_pending(p); // the ticks' packets come first
                              gw::session_output out;
                              p->s.from_client(std::string_view(p->client_buf.data(), n), out);
                              apply(p, out);
                              if (!p->closing) {
                                start_client_read(p);
                              }
                            });
}

/// One read from the backend with the kernel's receive time of its last bytes (gate.md §8:
/// SO_TIMESTAMPNS, enabled when the backend connected; the read's own time when the kernel gave
/// none): 0 bytes at the end of the stream, nullopt when nothing is there yet, -1 on an error.
std::optional<long> read_backend(gate_service::pair& p, pair_clock::time_point& arrived) {
  iovec iov{p.backend_buf.data(), p.backend_buf.size()};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(timespec))> control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  const ssize_t got = ::recvmsg(p.backend.native_handle(), &msg, MSG_DONTWAIT);
  const auto now = pair_clock::now();
  arrived = now;
  if (got < 0) {
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? std::nullopt
                                                                     : std::optional<long>(-1);
  }
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      timespec ts{};
      std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
      timespec wall{};
      ::clock_gettime(CLOCK_REALTIME, &wall);
      const auto waited = std::chrono::seconds(wall.tv_sec - ts.tv_sec) +
                          std::chrono::nanoseconds(wall.tv_nsec - ts.tv_nsec);
      if (waited > std::chrono::nanoseconds::zero()) {
        arrived = now - std::chrono::duration_cast<pair_clock::duration>(waited);
      }
    }
  }
  return static_cast<long>(got);
}

void start_backend_read(const pair_ptr& p) {
  p->backend.async_wait(tcp::socket::wait_read, [p](const boost::system::error_code& ec) {
    if (p->closing) {
      return;
    }
    if (ec) {
      close_pair(p); // a backend restart: the player leaves
      return;
    }
    pair_clock::time_point arrived{};
    const std::optional<long> n = read_backend(*p, arrived);
    if (!n) {
      start_backend_read(p); // woken without bytes
      return;
    }
    if (*n <= 0) {
      close_pair(p); // the end of the stream or an error: a backend restart, the player leaves
      return;
    }
    inject_pending(p); // the ticks' packets come first
    gw::session_output out;
    p->s.from_backend(std::string_view(p->backend_buf.data(), static_cast<std::size_t>(*n)), out);
    p->backend_read_at = arrived;
    apply(p, out);
    p->backend_read_at = {};
    if (!p->closing) {
      start_backend_read(p);
    }
  });
}

void backend_failed(const pair_ptr& p, const std::string& why) {
  if (p->closing) {
    return;
  }
  spdlog::warn("gate {}: backend {} down for connection {}: {}", p->g.config.name,
               p->g.config.backend.text(), p->id, why);
  gw::session_output out;
  p->s.backend_down(why, out);
  apply(p, out);
  if (!p->closing) {
    // Before its handshake the client is told once it sends one (gate::session::backend_down);
    // a client that sends nothing is closed after this long.
    p->connect_timer.expires_after(std::chrono::seconds(5));
    p->connect_timer.async_wait([p](const boost::system::error_code& ec) {
      if (!ec) {
        close_pair(p);
      }
    });
  }
}

void connect_backend(const pair_ptr& p, std::chrono::milliseconds timeout) {
  p->connect_timer.expires_after(timeout);
  p->connect_timer.async_wait([p](const boost::system::error_code& ec) {
    if (!ec && !p->backend_ready) {
      boost::system::error_code ignored;
      p->resolver.cancel();
      p->backend.close(ignored);
      backend_failed(p, "no connection within limits.gate_connect_timeout_ms");
    }
  });
  const auto& b = p->g.config.backend;
  p->resolver.async_resolve(
      b.host, std::to_string(b.port),
      [p](const boost::system::error_code& ec, const tcp::resolver::results_type& results) {
        if (p->closing || p->backend_ready) {
          return;
        }
        if (ec) {
          backend_failed(p, "cannot resolve: " + ec.message());
          return;
        }
        asio::async_connect(
            p->backend, results, [p](const boost::system::error_code& ec2, const tcp::endpoint&) {
              if (p->closing) {
                return;
              }
              if (ec2) {
                backend_failed(p, ec2.message());
                return;
              }
              p->connect_timer.cancel();
              p->backend_ready = true;
              boost::system::error_code ignored;
              p->backend.set_option(tcp::no_delay(true), ignored);
              // gate.md §8: the kernel stamps what the backend sends on arrival.
              const int on = 1;
              ::setsockopt(p->backend.native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
              std::string pending;
              pending.swap(p->backend_pending);
              send_to(p, false, pending, p->g.max_buffered);
              start_backend_read(p);
            });
      });
}

} // namespace

// ---- the service ------------------------------------------------------------------------------

gate_service::gate_service(asio::io_context& io, gate_hub hub, protocol::sim_host& host,
                           const settings::limits_config& limits)
    : io_(io), hub_(std::move(hub)), host_(host), limits_(limits) {}

gate_service::~gate_service() {
  close();
}

namespace {

/// A client the gate accepted: its pair, connecting to the backend and reading the client.
void start_pair(gate_service& svc, gate_service::gate& g, tcp::socket sock) {
  if (g.closing) {
    return;
  }
  boost::system::error_code ignored;
  if (g.counters.open >= g.max_connections) {
    // gate.md §1: a full gate closes the client at once, before anything is read or forwarded.
    ++g.counters.refused_full;
    sock.close(ignored);
    const log_limit::note n = g.full_log.hit(g.config.name, log_limit::clock_type::now());
    if (n.log) {
      spdlog::warn(
          "gate {}: full ({} connections, limits.gate_max_connections); {} client{} closed",
          g.config.name, g.max_connections, n.events, n.events == 1 ? "" : "s");
    }
    return;
  }
  sock.set_option(tcp::no_delay(true), ignored);
  const std::uint64_t id = ++g.next_pair;
  auto p = std::make_shared<gate_service::pair>(svc, g, id, std::move(sock), g.max_frame);
  g.pairs.emplace(id, p);
  ++g.counters.accepted;
  ++g.counters.open;
  connect_backend(p, g.connect_timeout);
  start_client_read(p);
}

} // namespace

std::optional<std::string> gate_service::open(const std::vector<settings::gate_config>& gates) {
  for (const auto& cfg : gates) {
    auto g = std::make_unique<gate>();
    g->config = cfg;
    g->hub = &hub_;
    g->host = &host_;
    g->max_buffered = static_cast<std::size_t>(limits_.gate_max_buffered_bytes);
    g->max_frame = static_cast<std::size_t>(limits_.gate_max_frame_bytes);
    g->connect_timeout = std::chrono::milliseconds(limits_.gate_connect_timeout_ms);
    g->max_connections = limits_.gate_max_connections;
    auto a = bind_tcp(io_, cfg.listen);
    if (!a) {
      return "gate " + cfg.name + ": " + a.error();
    }
    tcp::acceptor acceptor = std::move(a).value();
    g->bound = cfg.listen;
    g->bound.port = acceptor.local_endpoint().port();
    gate* gp = g.get();
    g->client_id = hub_.attach("gate:" + cfg.name, [this, gp](std::string_view line) {
      // Replies to the gate's requests: a refused /emote is told to its player (gate.md §6);
      // any other failure is a bug in what the gate sent, logged.
      rapidjson::Document d;
      d.Parse(line.data(), line.size());
      if (d.HasParseError() || !d.IsObject() || !d.HasMember("ok") || !d["ok"].IsBool() ||
          d["ok"].GetBool()) {
        if (d.IsObject() && d.HasMember("id") && d["id"].IsString()) {
          gp->requests.erase(d["id"].GetString());
        }
        return;
      }
      std::string message = "refused";
      if (d.HasMember("error") && d["error"].IsObject() && d["error"].HasMember("message") &&
          d["error"]["message"].IsString()) {
        message = d["error"]["message"].GetString();
      }
      if (d.HasMember("id") && d["id"].IsString()) {
        const auto it = gp->requests.find(d["id"].GetString());
        if (it != gp->requests.end()) {
          if (auto p = it->second.lock()) {
            inject_pending(p);
            gw::session_output out;
            p->s.tell(message, out);
            send_to(p, true, out.to_client, gp->max_buffered);
          }
          gp->requests.erase(it);
          return;
        }
      }
      spdlog::warn("gate {}: a request was refused: {}", gp->config.name, std::string(line));
    });
    spdlog::info("gate {} on {} for the backend {}", cfg.name, g->bound.text(), cfg.backend.text());
    // Pairs live in the gate; close() closes the loop before the gates go.
    g->acceptor = accept_loop<tcp::acceptor, tcp::socket>::start(
        io_, std::move(acceptor),
        [this, gp](tcp::socket sock) { start_pair(*this, *gp, std::move(sock)); },
        default_accept_backoff);
    gates_.push_back(std::move(g));
  }
  return std::nullopt;
}

std::vector<settings::listen_address> gate_service::bound() const {
  std::vector<settings::listen_address> out;
  for (const auto& g : gates_) {
    out.push_back(g->bound);
  }
  return out;
}

bool gate_service::wants_packets() const noexcept {
  return std::any_of(gates_.begin(), gates_.end(),
                     [](const auto& g) { return !g->players.empty(); });
}

void gate_service::after_tick(const protocol::tick_output& t) {
  const api::frame& f = *t.frame;
  const protocol::frame_packets& packets = t.packets;
  if (gates_.empty()) {
    return;
  }
  // gate.md §7: hidden players' entity ids, per gate.
  for (const auto& e : f.events) {
    if (const auto* v = std::get_if<api::ev_player_visibility>(&e)) {
      for (auto& g : gates_) {
        const auto it = g->players.find(v->player);
        if (it == g->players.end()) {
          continue;
        }
        if (auto p = it->second.lock(); p && p->s.entity_id()) {
          if (v->hidden) {
            g->hidden.insert(*p->s.entity_id());
          } else {
            g->hidden.erase(*p->s.entity_id());
          }
        }
      }
    }
  }
  if (packets.empty()) {
    return;
  }
  // gate.md §5: each player's packets are set aside in list order (render.md §7) and injected
  // (framed, compressed) once the tick has returned, as one write; the tick does not wait for
  // that nor for the sockets. A player whose set-aside bytes pass the buffer limit (a clock.step
  // of many ticks) is injected at once, where the limit cuts a client that does not read.
  const render::render_output& o = *packets.output;
  const bool inject_idle = inject_queue_.empty(); // no inject_some posted
  recipients_.resize(packets.names.size());
  resolved_.assign(packets.names.size(), 0);
  const auto pair_of = [&](std::uint32_t r) -> gate_service::pair* {
    if (resolved_[r] == 0) {
      resolved_[r] = 1;
      for (auto& g : gates_) {
        const auto it = g->players.find(packets.names[r]);
        if (it != g->players.end()) {
          recipients_[r] = it->second.lock();
          if (recipients_[r]) {
            break; // a player is connected through one gate at a time
          }
        }
      }
    }
    return recipients_[r].get();
  };
  for (const auto& entry : o.entries) {
    const std::string_view bytes = o.bytes(entry);
    for (const std::uint32_t r : o.to(entry)) {
      gate_service::pair* p = pair_of(r);
      if (p == nullptr || p->closing) {
        continue;
      }
      // Once per tick, also when earlier ticks' packets still wait (a clock.step of many ticks),
      // so the buffer limit below sees every player that grew.
      if (p->set_aside_at != t.tick()) {
        p->set_aside_at = t.tick();
        touched_.push_back(recipients_[r]);
      }
      p->injecting.append(bytes);
      p->injecting_sizes.push_back(static_cast<std::uint32_t>(bytes.size()));
    }
  }
  for (auto& p : recipients_) {
    p.reset();
  }
  for (const pair_ptr& p : touched_) {
    if (p->injecting.size() > p->g.max_buffered) {
      inject_pending(p);
    } else if (!p->inject_posted) {
      p->inject_posted = true;
      inject_queue_.push_back(p);
    }
  }
  touched_.clear();
  if (inject_idle && !inject_queue_.empty()) {
    asio::post(io_, [this] { inject_some(); });
  }
}

void gate_service::inject_some() {
  // gate.md §5: a few players per turn of the event loop. A handler posted from a handler runs
  // after the reactor's next poll, so the reads that arrived meanwhile are forwarded between two
  // turns instead of waiting for a hundred players' compression and sends.
  constexpr std::size_t per_turn = 8;
  const std::size_t end = std::min(inject_queue_.size(), inject_next_ + per_turn);
  for (; inject_next_ < end; ++inject_next_) {
    const pair_ptr p = std::move(inject_queue_[inject_next_]);
    p->inject_posted = false;
    inject_pending(p); // nothing left when one of its reads came first
  }
  if (inject_next_ < inject_queue_.size()) {
    asio::post(io_, [this] { inject_some(); });
    return;
  }
  inject_queue_.clear();
  inject_next_ = 0;
}

void gate_service::close() {
  for (auto& g : gates_) {
    g->closing = true;
    if (g->acceptor) {
      g->acceptor->close();
    }
    std::vector<pair_ptr> all;
    for (auto& [id, p] : g->pairs) {
      all.push_back(p);
    }
    for (auto& p : all) {
      close_pair(p);
    }
  }
}

std::string gate_service::render_metrics() const {
  std::string out;
  const auto series = [&](std::string_view name, std::string_view help, std::string_view type,
                          auto value_of) {
    prometheus_header(out, name, help, type);
    for (const auto& g : gates_) {
      out += name;
      out += "{gate=\"" + g->config.name + "\"} " + std::to_string(value_of(g->counters)) + "\n";
    }
  };
  series("emote_sim_gate_connections", "Open gate connection pairs.", "gauge",
         [](const gate_counters& c) { return c.open; });
  series("emote_sim_gate_accepted_total", "Gate connections accepted.", "counter",
         [](const gate_counters& c) { return c.accepted; });
  series("emote_sim_gate_bytes_to_backend_total", "Bytes a gate wrote to its backend.", "counter",
         [](const gate_counters& c) { return c.bytes_to_backend; });
  series("emote_sim_gate_bytes_to_client_total", "Bytes a gate wrote to its clients.", "counter",
         [](const gate_counters& c) { return c.bytes_to_client; });
  series("emote_sim_gate_malformed_total", "Pairs cut for malformed or oversized frames.",
         "counter", [](const gate_counters& c) { return c.malformed; });
  series("emote_sim_gate_slow_consumer_total", "Pairs cut because a side did not read.", "counter",
         [](const gate_counters& c) { return c.slow_consumer; });
  series("emote_sim_gate_refused_encryption_total",
         "Clients refused: the backend asked for encryption.", "counter",
         [](const gate_counters& c) { return c.encryption; });
  series("emote_sim_gate_refused_backend_down_total", "Clients refused: the backend was down.",
         "counter", [](const gate_counters& c) { return c.backend_down; });
  series("emote_sim_gate_passthrough_total", "Connections passed through (unsupported protocol).",
         "counter", [](const gate_counters& c) { return c.passthrough; });
  series("emote_sim_gate_refused_full_total",
         "Clients closed at once: the gate held limits.gate_max_connections pairs.", "counter",
         [](const gate_counters& c) { return c.refused_full; });
  prometheus_header(out, "emote_sim_gate_forward_delay_seconds",
                    "From a backend read to the completed write of its bytes to the client.",
                    "histogram");
  for (const auto& g : gates_) {
    g->forward_delay.render_series(out, "emote_sim_gate_forward_delay_seconds",
                                   "gate=\"" + g->config.name + "\"");
  }
  return out;
}

} // namespace emote::server
