#include "server/stress/stress_sockets.hpp"

#include "server/daemon/connection.hpp"
#include "server/daemon/listener.hpp"
#include "server/stress/stress_readers.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include <sys/resource.h>

namespace emote::server {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using core::failure;
using stream_socket = asio::generic::stream_protocol::socket;
using work_guard = asio::executor_work_guard<asio::io_context::executor_type>;

/// How long open() waits for the listener to accept every reader.
constexpr auto accept_timeout = std::chrono::seconds(10);
/// Reads of the shared buffer per readiness of one socket.
constexpr int drain_reads = 16;
/// File descriptors kept free beside the two per reader (listener, log, stdio, epoll, ...).
constexpr std::size_t spare_descriptors = 64;

/// The readers' end: one socket and one stream_recipient each, all read on one thread that waits
/// for readability and then drains a socket into one shared buffer (hot in this core's cache).
struct reader {
  reader(asio::io_context& io, blocks_fn read, bool stall)
      : socket(io), sums(read), stalled(stall) {}
  stream_socket socket;
  stream_recipient sums;
  bool stalled;
};

class fanout final : public socket_fanout, public connection_handler {
public:
  explicit fanout(const socket_fanout_options& o) : options_(o) {
    limits_.max_outbound_bytes = o.max_outbound_bytes;
    limits_.linger = o.linger;
  }

  ~fanout() override {
    // Without finish() (open() failed half-way): stop the readers without waiting for them.
    reader_io_.stop();
    if (reader_thread_.joinable()) {
      reader_thread_.join();
    }
    if (!folder_.empty()) {
      std::error_code ignored;
      fs::remove_all(folder_, ignored);
    }
  }
  fanout(const fanout&) = delete;
  fanout& operator=(const fanout&) = delete;

  std::optional<std::string> start() {
    if (auto e = raise_descriptor_limit()) {
      return e;
    }
    listen_address address;
    if (options_.over == stress_over::unix_socket) {
      std::string pattern = (fs::temp_directory_path() / "emote-sim-stress-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) {
        return "cannot create a temporary folder for the Unix socket in " +
               fs::temp_directory_path().string();
      }
      folder_ = pattern;
      address.type = listen_address::kind::unix_socket;
      address.path = (folder_ / "stress.sock").string();
      if (address.path.size() > 107) {
        return "the Unix socket path " + address.path +
               " is longer than 107 bytes (set TMPDIR to a shorter folder)";
      }
    } else {
      address.host = "127.0.0.1";
      address.port = 0;
    }
    auto opened =
        listener::open(server_io_, address, [this](connection::socket_type s, std::string peer) {
          accepted(std::move(s), std::move(peer));
        });
    if (!opened) {
      return opened.error();
    }
    listener_ = std::move(opened).value();
    const listen_address bound = listener_->bound();

    // Connect each reader and accept it on this thread (a blocking connect completes from the
    // listen backlog; accepting as we go keeps the backlog short).
    const blocks_fn read = reader_fn(best_reader(options_.simd));
    for (std::size_t i = 0; i < options_.readers; ++i) {
      const bool stalled = i + options_.stalled_readers >= options_.readers;
      readers_.push_back(std::make_unique<reader>(reader_io_, read, stalled));
      if (auto e = connect(*readers_.back(), bound)) {
        return e;
      }
      server_io_.poll();
    }
    const auto give_up = std::chrono::steady_clock::now() + accept_timeout;
    while (accepted_ < options_.readers && std::chrono::steady_clock::now() < give_up) {
      server_io_.run_one_until(give_up);
    }
    if (accepted_ < options_.readers) {
      return "the listener at " + bound.text() + " accepted " + std::to_string(accepted_) + " of " +
             std::to_string(options_.readers) + " readers within " +
             std::to_string(accept_timeout.count()) + " s";
    }
    for (auto& r : readers_) {
      if (!r->stalled) {
        wait_readable(*r);
      }
    }
    reader_thread_ = std::thread([this] { reader_io_.run(); });
    return std::nullopt;
  }

  [[nodiscard]] stress_over over() const noexcept override { return options_.over; }
  [[nodiscard]] std::size_t readers() const noexcept override { return options_.readers; }

  void send(std::span<const std::string_view> pieces) override {
    std::size_t size = 0;
    for (const std::string_view p : pieces) {
      size += p.size();
    }
    auto text = std::make_shared<std::string>();
    text->reserve(size);
    for (const std::string_view p : pieces) {
      text->append(p);
    }
    const shared_line line = std::move(text);
    for (const auto& c : conns_) {
      c->send_frame(line, false);
    }
  }

  void run_until(std::chrono::steady_clock::time_point t) override {
    // The io_context waits in whole milliseconds (rounded up): stop short of `t` and sleep the
    // rest, so that paced ticks start on time.
    const auto short_of = t - std::chrono::milliseconds(1);
    if (std::chrono::steady_clock::now() < short_of) {
      server_io_.run_until(short_of);
    }
    server_io_.poll();
    std::this_thread::sleep_until(t);
  }

  socket_fanout_totals finish() override {
    // Every connection writes what it queued (a slow consumer its bye), then closes; the linger
    // timer bounds a connection whose reader does not read.
    for (const auto& c : conns_) {
      c->close_after(nullptr, close_reason::server_stopping);
    }
    listener_->close();
    while (closed_ < accepted_) {
      server_io_.run_one();
    }
    // The stalled readers read what the kernel still holds; every reader stops at its end of
    // stream, and then the reader thread's io_context runs out of work.
    asio::post(reader_io_, [this] {
      for (auto& r : readers_) {
        if (r->stalled) {
          wait_readable(*r);
        }
      }
    });
    reader_guard_.reset();
    reader_thread_.join();
    server_io_.poll(); // the closed connections' cancelled operations

    socket_fanout_totals t;
    for (const auto& r : readers_) {
      t.readers.push_back({r->sums.sums().checksum(), r->sums.sums().bytes, r->sums.lines()});
    }
    t.slow_consumers = slow_consumers_;
    return t;
  }

private:
  // connection_handler: the readers send nothing; whatever arrives is dropped.
  void on_line(connection& c, std::string line) override { c.applied(line.size()); }
  void on_line_too_long(connection& c) override { c.applied(0); }
  void on_eof(connection&) override {}
  void on_closed(connection& c) override {
    if (c.closed_as_slow_consumer()) {
      ++slow_consumers_;
    }
    ++closed_;
  }

  void accepted(connection::socket_type socket, std::string peer) {
    if (options_.socket_buffer_bytes > 0) {
      boost::system::error_code ignored;
      socket.set_option(asio::socket_base::send_buffer_size(options_.socket_buffer_bytes), ignored);
    }
    auto c = std::make_shared<connection>(std::move(socket), *this, limits_, conns_.size() + 1,
                                          std::move(peer));
    conns_.push_back(c);
    c->start(std::chrono::milliseconds(0));
    ++accepted_;
  }

  std::optional<std::string> connect(reader& r, const listen_address& bound) {
    boost::system::error_code ec;
    asio::generic::stream_protocol::endpoint ep;
    if (bound.type == listen_address::kind::unix_socket) {
      ep = asio::local::stream_protocol::endpoint(bound.path);
    } else {
      ep = asio::ip::tcp::endpoint(asio::ip::make_address_v4(bound.host), bound.port);
    }
    r.socket.open(ep.protocol(), ec);
    if (!ec && options_.socket_buffer_bytes > 0) {
      r.socket.set_option(asio::socket_base::receive_buffer_size(options_.socket_buffer_bytes), ec);
    }
    if (!ec) {
      r.socket.connect(ep, ec);
    }
    if (!ec) {
      r.socket.non_blocking(true, ec);
    }
    if (ec) {
      return "cannot connect a reader to " + bound.text() + ": " + ec.message();
    }
    return std::nullopt;
  }

  void wait_readable(reader& r) {
    r.socket.async_wait(stream_socket::wait_read, [this, &r](const boost::system::error_code& ec) {
      if (ec) {
        r.sums.finish();
        return;
      }
      drain(r);
    });
  }

  /// Reads what the socket holds now (at most drain_reads reads, so that one busy socket does not
  /// keep the others waiting); waits again, or ends at the end of the stream.
  void drain(reader& r) {
    for (int k = 0; k < drain_reads; ++k) {
      boost::system::error_code ec;
      const std::size_t n = r.socket.read_some(asio::buffer(buffer_), ec);
      if (n > 0) {
        r.sums.feed(buffer_.data(), n);
      }
      if (ec == asio::error::would_block || ec == asio::error::try_again) {
        wait_readable(r);
        return;
      }
      if (ec) {
        r.sums.finish(); // end of stream (or a reset): a pending partial line counts
        boost::system::error_code ignored;
        r.socket.close(ignored);
        return;
      }
    }
    asio::post(reader_io_, [this, &r] { drain(r); });
  }

  std::optional<std::string> raise_descriptor_limit() const {
    const std::size_t need = 2 * options_.readers + spare_descriptors;
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= need) {
      return std::nullopt;
    }
    if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= need) {
      lim.rlim_cur = need;
      if (::setrlimit(RLIMIT_NOFILE, &lim) == 0) {
        return std::nullopt;
      }
    }
    return std::to_string(options_.readers) + " readers over sockets need " + std::to_string(need) +
           " file descriptors; the limit is " + std::to_string(lim.rlim_max) + " (ulimit -n)";
  }

  socket_fanout_options options_;
  connection_limits limits_;
  fs::path folder_; ///< the Unix socket's temporary folder

  // Declared first, destroyed last: the sockets below belong to them.
  asio::io_context server_io_; ///< run by the caller's thread (send, run_until, finish)
  asio::io_context reader_io_; ///< run by reader_thread_
  work_guard server_guard_{server_io_.get_executor()};
  work_guard reader_guard_{reader_io_.get_executor()};

  // The server side: the caller's thread only.
  std::unique_ptr<listener> listener_;
  std::vector<std::shared_ptr<connection>> conns_;
  std::size_t accepted_ = 0, closed_ = 0, slow_consumers_ = 0;

  // The readers: reader_thread_ only, once it runs.
  std::vector<std::unique_ptr<reader>> readers_;
  alignas(64) std::array<char, 65536> buffer_{};
  std::thread reader_thread_;
};

} // namespace

core::result<std::unique_ptr<socket_fanout>, std::string>
socket_fanout::open(const socket_fanout_options& options) {
  if (options.readers == 0) {
    return failure{std::string("readers over sockets need at least one recipient")};
  }
  auto f = std::make_unique<fanout>(options);
  if (auto e = f->start()) {
    return failure{std::move(*e)};
  }
  return std::unique_ptr<socket_fanout>(std::move(f));
}

} // namespace emote::server
