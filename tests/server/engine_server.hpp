#pragma once
// The server in process with the real Engine on the test content (tests/data/server/emotes): a
// manual-clock hub on its own thread, optionally recording, and a client helper. For "[engine]"
// cases.
#include "server/daemon/hub.hpp"
#include "server/daemon/recorder.hpp"
#include "server/host/engine_host.hpp"
#include "server/qa/line_client.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <thread>

namespace emote::server::testing {

using namespace std::chrono_literals;

inline std::filesystem::path test_emotes() {
  return std::filesystem::path(EMOTE_SIM_TEST_DATA) / "server" / "emotes";
}

struct engine_server {
  explicit engine_server(const emote::sim::engine_config& cfg = {},
                         const std::filesystem::path& emotes = test_emotes(),
                         recorder* rec = nullptr) {
    spdlog::set_level(spdlog::level::off);
    auto h = make_engine_host(emotes, cfg);
    REQUIRE_MESSAGE(h.ok(), (h.ok() ? "" : h.error()));
    host = std::move(h).value();
    hub_settings s;
    s.clock = clock_mode::manual;
    server = std::make_unique<hub>(io, s, *host, m, rec);
    REQUIRE_FALSE(server->listen({*settings::parse_listen_address("127.0.0.1:0")}));
    guard.emplace(io.get_executor());
    thread = std::thread([this] { io.run(); });
  }
  ~engine_server() {
    boost::asio::post(io, [this] {
      server.reset();
      guard.reset();
      io.stop();
    });
    thread.join();
  }
  /// The server's own stop (as on SIGTERM): every playback stops, the recording ends with the
  /// server's disconnect (protocol.md §8).
  void stop() {
    std::promise<void> done;
    boost::asio::post(io, [&] { server->stop([&] { done.set_value(); }); });
    REQUIRE(done.get_future().wait_for(5s) == std::future_status::ready);
  }
  /// A connection after its hello; `role` "observer" for an observer (no tokens are set).
  line_client client(const std::string& role = "") {
    auto c = line_client::connect(server->bound()[0], 2s);
    REQUIRE(c.ok());
    c->send_line(role.empty() ? std::string(R"({"op":"hello","protocol":1})")
                              : R"({"op":"hello","protocol":1,"role":")" + role + "\"}");
    const auto w = c->read_line(2s);
    REQUIRE(w.has_value());
    CHECK(w->find(R"("emotes":11)") != std::string::npos);
    return std::move(c).value();
  }

  boost::asio::io_context io;
  std::unique_ptr<engine_host> host;
  metrics m;
  std::unique_ptr<hub> server;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guard;
  std::thread thread;
};

/// `clock.step` by `ticks` and wait for its reply (frames read meanwhile are dropped).
inline void step_clock(line_client& c, int ticks, const std::string& id) {
  c.send_line(R"({"op":"clock.step","id":")" + id + R"(","ticks":)" + std::to_string(ticks) + "}");
  for (;;) {
    auto line = c.read_line(5s);
    REQUIRE(line.has_value());
    if (line->starts_with(R"({"op":"reply","id":")" + id + "\"")) {
      return;
    }
  }
}

} // namespace emote::server::testing
