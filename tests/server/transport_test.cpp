// The connection and listener layer on real sockets (loopback TCP and a Unix socket), driven by
// the blocking line_client. The handler here is a small echo service, so framing, budgets and
// flow control are tested without the protocol layer.
#include "server/daemon/connection.hpp"

#include "server/daemon/listener.hpp"
#include "server/qa/line_client.hpp"

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace emote::server;
using namespace emote::settings;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

class echo_service final : public connection_handler {
public:
  explicit echo_service(connection_limits limits) : limits_(limits) {}

  void on_line(connection& c, std::string line) override {
    if (hold_) {
      c.hold(hold_extra_);
      held_.emplace_back(c.shared_from_this(), std::move(line));
      return;
    }
    handle(c, line);
  }
  void on_line_too_long(connection& c) override {
    c.send(make_line(R"({"error":"line_too_long"})"));
    c.applied(0);
  }
  void on_eof(connection& c) override { c.close_after(nullptr, close_reason::bye); }
  void on_closed(connection& c) override {
    std::lock_guard lock(mu_);
    closed_[c.id()] = c.closed_as_slow_consumer();
    max_queued_ = std::max(max_queued_, c.queued_bytes());
    conns_.erase(c.id());
  }

  void accept(connection::socket_type s, std::string peer) {
    auto c = std::make_shared<connection>(std::move(s), *this, limits_, ++next_id_, peer);
    conns_[c->id()] = c;
    c->start(hello_timeout_);
  }

  // Test controls (called on the io thread through run_on).
  void hold(bool h) { hold_ = h; }
  /// Each held line also holds this many bytes (as the hub's decoded requests do).
  void hold_extra(std::size_t n) { hold_extra_ = n; }
  void release_held() {
    hold_ = false;
    auto held = std::move(held_);
    for (auto& [c, line] : held) {
      handle(*c, line, hold_extra_);
    }
  }
  std::size_t held_count() const { return held_.size(); }
  std::shared_ptr<connection> only_connection() const {
    return conns_.empty() ? nullptr : conns_.begin()->second;
  }

  std::chrono::milliseconds hello_timeout_{0};
  std::mutex mu_;
  std::map<std::uint64_t, bool> closed_;
  std::size_t max_queued_ = 0;

private:
  void handle(connection& c, const std::string& line, std::size_t extra = 0) {
    c.applied(line.size() + extra);
    if (line.starts_with("flood ")) {
      // flood COUNT SIZE lossy|strict
      int count = 0;
      int size = 0;
      char mode[16] = {};
      std::sscanf(line.c_str(), "flood %d %d %15s", &count, &size, mode);
      const bool lossy = std::string(mode) == "lossy";
      for (int i = 0; i < count; ++i) {
        auto frame =
            make_line(R"({"op":"frame","tick":)" + std::to_string(next_tick_++) + R"(,"pad":")" +
                      std::string(static_cast<std::size_t>(size), 'x') + "\"}");
        if (c.send_frame(frame, lossy) == connection::send_result::slow_consumer) {
          break;
        }
        std::lock_guard lock(mu_);
        max_queued_ = std::max(max_queued_, c.queued_bytes());
      }
      c.send(make_line(R"({"op":"flood_done"})"));
      return;
    }
    c.send(make_line(line));
  }

  connection_limits limits_;
  std::uint64_t next_id_ = 0;
  std::map<std::uint64_t, std::shared_ptr<connection>> conns_;
  bool hold_ = false;
  std::size_t hold_extra_ = 0;
  long long next_tick_ = 0;
  std::vector<std::pair<std::shared_ptr<connection>, std::string>> held_;
};

struct fixture {
  explicit fixture(connection_limits limits = {}) : svc(limits) {}

  void start(const std::vector<listen_address>& addrs) {
    for (const auto& a : addrs) {
      auto l = listener::open(io, a, [this](connection::socket_type s, std::string peer) {
        svc.accept(std::move(s), std::move(peer));
      });
      REQUIRE_MESSAGE(l.ok(), (l.ok() ? "" : l.error()));
      bound.push_back(l.value()->bound());
      listeners.push_back(std::move(l).value());
    }
    guard.emplace(io.get_executor());
    thread = std::thread([this] { io.run(); });
  }

  template <class F>
  auto run_on(F f) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto fut = task.get_future();
    asio::post(io, [&task] { task(); });
    return fut.get();
  }

  ~fixture() {
    asio::post(io, [this] {
      listeners.clear();
      guard.reset();
      io.stop();
    });
    thread.join();
  }

  line_client client(std::size_t i = 0) {
    auto c = line_client::connect(bound.at(i), 2s);
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error()));
    return std::move(c).value();
  }

  asio::io_context io;
  echo_service svc;
  std::vector<std::unique_ptr<listener>> listeners;
  std::vector<listen_address> bound;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  std::thread thread;
};

listen_address loopback() {
  return *parse_listen_address("127.0.0.1:0");
}

listen_address temp_unix(const char* name) {
  const auto p = std::filesystem::temp_directory_path() /
                 (std::string("emote_sim_") + name + "_" + std::to_string(::getpid()) + ".sock");
  return *parse_listen_address("unix:" + p.string());
}

} // namespace

TEST_CASE("transport: lines over TCP and a Unix socket, CRLF, blank lines, last line at EOF") {
  fixture f;
  f.start({loopback(), temp_unix("echo")});
  CHECK(f.bound[0].port != 0);
  for (std::size_t i = 0; i < 2; ++i) {
    auto c = f.client(i);
    REQUIRE(c.send_raw("one\r\n\n  \r\ntw"));
    REQUIRE(c.send_raw("o\nthree"));
    c.shutdown_write();
    CHECK(c.read_line(2s) == "one");
    CHECK(c.read_line(2s) == "two");
    CHECK(c.read_line(2s) == "three");
    CHECK_FALSE(c.read_line(2s).has_value());
    CHECK(c.eof());
  }
}

TEST_CASE("transport: a stale Unix socket file is replaced, a live one refused") {
  const auto addr = temp_unix("stale");
  {
    fixture a;
    a.start({addr});
    asio::io_context other;
    auto second = listener::open(other, addr, [](connection::socket_type, std::string) {});
    REQUIRE_FALSE(second.ok());
    CHECK(second.error().find("another server") != std::string::npos);
  }
  // The first listener removed its file on close; leave a stale socket file behind on purpose.
  {
    asio::io_context io;
    asio::local::stream_protocol::acceptor stale(io,
                                                 asio::local::stream_protocol::endpoint(addr.path));
    stale.close();
  }
  CHECK(std::filesystem::exists(addr.path));
  fixture b;
  b.start({addr});
  auto c = b.client();
  REQUIRE(c.send_line("ping"));
  CHECK(c.read_line(2s) == "ping");
}

TEST_CASE(
    "transport: an over-long line is discarded to its newline and the connection stays usable") {
  connection_limits limits;
  limits.max_line_bytes = 64;
  fixture f(limits);
  f.start({loopback()});
  auto c = f.client();
  // Exactly the limit is fine; one byte more is too long, also when split over several writes.
  const std::string at_limit(64, 'a');
  REQUIRE(c.send_line(at_limit));
  CHECK(c.read_line(2s) == at_limit);
  REQUIRE(c.send_raw(at_limit + "\r\n")); // the '\r' does not count
  CHECK(c.read_line(2s) == at_limit);
  REQUIRE(c.send_line(std::string(65, 'b')));
  CHECK(c.read_line(2s) == R"({"error":"line_too_long"})");
  REQUIRE(c.send_raw(std::string(1000, 'c')));
  REQUIRE(c.send_raw(std::string(100000, 'c')));
  REQUIRE(c.send_raw(std::string(10, 'c') + "\nafter\n"));
  CHECK(c.read_line(2s) == R"({"error":"line_too_long"})");
  CHECK(c.read_line(2s) == "after");
}

TEST_CASE("transport: a consumer that never reads is disconnected with bye slow_consumer, memory "
          "bounded") {
  connection_limits limits;
  limits.max_outbound_bytes = 256 * 1024;
  fixture f(limits);
  f.start({loopback()});
  auto slow = f.client();
  slow.set_receive_buffer(4096);
  auto other = f.client();
  // 4 MiB of frames at a client that does not read.
  REQUIRE(slow.send_line("flood 4096 1024 strict"));
  // The other client is unaffected.
  REQUIRE(other.send_line("hello"));
  CHECK(other.read_line(2s) == "hello");
  // Wait for the server to give up on the slow one.
  for (int i = 0; i < 100; ++i) {
    std::lock_guard lock(f.svc.mu_);
    if (f.svc.closed_.size() == 1) {
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  {
    std::lock_guard lock(f.svc.mu_);
    REQUIRE(f.svc.closed_.size() == 1);
    CHECK(f.svc.closed_.begin()->second); // as a slow consumer
    // At most the budget plus the one message that found the queue within it.
    CHECK(f.svc.max_queued_ <= limits.max_outbound_bytes + 2048);
  }
  // Whatever reached the socket arrives in order; the last line, if it made it, is the bye.
  std::string last;
  int frames = 0;
  while (auto line = slow.read_line(2s)) {
    if (line->starts_with(R"({"op":"frame")")) {
      ++frames;
    }
    last = *line;
  }
  CHECK(frames < 4096);
  if (!last.starts_with(R"({"op":"frame")")) {
    CHECK(last == R"({"op":"bye","reason":"slow_consumer"})");
  }
  REQUIRE(other.send_line("still here"));
  CHECK(other.read_line(2s) == "still here");
}

TEST_CASE("transport: a prompt reader is never cut for one message larger than the budget") {
  connection_limits limits;
  limits.max_outbound_bytes = 64 * 1024;
  fixture f(limits);
  f.start({loopback()});
  auto c = f.client();
  // One frame of 1 MiB, sixteen times the budget, then a small one: both arrive.
  REQUIRE(c.send_line("flood 1 1048576 strict"));
  auto big = c.read_line(5s);
  REQUIRE(big.has_value());
  CHECK(big->size() > 1048576);
  CHECK(big->starts_with(R"({"op":"frame")"));
  CHECK(c.read_line(5s) == R"({"op":"flood_done"})");
  REQUIRE(c.send_line("hello"));
  CHECK(c.read_line(2s) == "hello");
  std::lock_guard lock(f.svc.mu_);
  CHECK(f.svc.closed_.empty());
}

TEST_CASE("transport: a lossy consumer drops whole frames and the next frame says how many") {
  connection_limits limits;
  limits.max_outbound_bytes = 64 * 1024;
  fixture f(limits);
  f.start({loopback()});
  auto c = f.client();
  c.set_receive_buffer(4096);
  int received = 0;
  std::uint64_t dropped = 0;
  long long expect_tick = 0;
  bool ticks_consistent = true;
  auto drain = [&] {
    bool done = false;
    while (auto line = c.read_line(2s)) {
      if (*line == R"({"op":"flood_done"})") {
        done = true;
        break;
      }
      REQUIRE(line->starts_with(R"({"op":"frame",)"));
      ++received;
      std::uint64_t d = 0;
      long long tick = 0;
      if (std::sscanf(line->c_str(), R"({"op":"frame","dropped":%lu,"tick":%lld)", &d, &tick) !=
          2) {
        d = 0;
        REQUIRE(std::sscanf(line->c_str(), R"({"op":"frame","tick":%lld)", &tick) == 1);
      }
      dropped += d;
      // The dropped count is exactly the gap in the frame sequence.
      ticks_consistent = ticks_consistent && tick == expect_tick + static_cast<long long>(d);
      expect_tick = tick + 1;
    }
    return done;
  };
  // All frames are queued in one go, far over the budget: the tail is dropped.
  REQUIRE(c.send_line("flood 2000 1024 lossy"));
  CHECK(drain());
  CHECK(received < 2000);
  // The next delivered frame reports the drops.
  REQUIRE(c.send_line("flood 1 10 lossy"));
  CHECK(drain());
  CHECK(ticks_consistent);
  CHECK(dropped > 0);
  CHECK(received + static_cast<int>(dropped) == 2001);
  // Still connected and usable.
  REQUIRE(c.send_line("ok"));
  CHECK(c.read_line(2s) == "ok");
}

TEST_CASE("transport: inbound backpressure stops reading and never drops input") {
  connection_limits limits;
  limits.max_inbound_messages = 8;
  fixture f(limits);
  f.start({loopback()});
  f.run_on([&] {
    f.svc.hold(true);
    return 0;
  });
  auto c = f.client();
  // Enough data to fill the kernel buffers once the server stops reading.
  const int n = 20000;
  std::thread writer([&] {
    for (int i = 0; i < n; ++i) {
      c.send_line("line " + std::to_string(i) + " " + std::string(200, 'p'));
    }
  });
  std::this_thread::sleep_for(500ms);
  const auto [held, paused] = f.run_on([&] {
    auto conn = f.svc.only_connection();
    return std::make_pair(f.svc.held_count(), conn && conn->reading_paused());
  });
  CHECK(paused);
  CHECK(held < static_cast<std::size_t>(n));
  CHECK(held > limits.max_inbound_messages); // a whole read chunk is kept, never cut
  CHECK(held < limits.max_inbound_messages + 400);
  // Applying the backlog resumes reading; every line arrives, in order.
  int got = 0;
  bool in_order = true;
  while (got < n) {
    f.run_on([&] {
      f.svc.release_held();
      f.svc.hold(true);
      return 0;
    });
    while (auto line = c.read_line(50ms)) {
      in_order = in_order && line->starts_with("line " + std::to_string(got) + " ");
      ++got;
    }
  }
  writer.join();
  CHECK(in_order);
  CHECK(got == n);
}

TEST_CASE("transport: what the handler holds beside a line counts toward max_inbound_bytes") {
  // 40,000 short lines are 440 KB, well within the byte limit on their own: only the 1,200
  // bytes the handler holds for each (the hub's decoded request) make the backlog pass it.
  connection_limits limits;
  limits.max_inbound_messages = 1000000;
  limits.max_inbound_bytes = 1 << 20;
  fixture f(limits);
  f.start({loopback()});
  f.run_on([&] {
    f.svc.hold(true);
    f.svc.hold_extra(1200);
    return 0;
  });
  auto c = f.client();
  const int n = 40000;
  std::thread writer([&] {
    for (int i = 0; i < n; ++i) {
      c.send_line("line " + std::to_string(i));
    }
  });
  std::this_thread::sleep_for(500ms);
  const auto [held, paused] = f.run_on([&] {
    auto conn = f.svc.only_connection();
    return std::make_pair(f.svc.held_count(), conn && conn->reading_paused());
  });
  CHECK(paused);
  // Paused past 1 MiB / 1,211 bytes a line (about 870; a read's whole 64 KiB, up to 6,000 such
  // lines, is kept), not after all 40,000 lines.
  CHECK(held > limits.max_inbound_bytes / 1300);
  CHECK(held < 8000);
  // Applying them gives every held byte back: reading resumes and every line arrives, in order.
  int got = 0;
  bool in_order = true;
  for (int round = 0; round < 200 && got < n; ++round) {
    f.run_on([&] {
      f.svc.release_held();
      f.svc.hold(true);
      return 0;
    });
    while (auto line = c.read_line(50ms)) {
      in_order = in_order && *line == "line " + std::to_string(got);
      ++got;
    }
  }
  writer.join();
  CHECK(in_order);
  CHECK(got == n);
}

TEST_CASE("transport: the hello timer closes a silent connection") {
  fixture f;
  f.svc.hello_timeout_ = 100ms;
  f.start({loopback()});
  auto c = f.client();
  CHECK(c.read_line(2s) == R"({"op":"bye","reason":"hello_timeout"})");
  CHECK_FALSE(c.read_line(2s).has_value());
  CHECK(c.eof());
}
