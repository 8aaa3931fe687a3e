#include "server/daemon/tick_schedule.hpp"

#include "server/daemon/http_listener.hpp"
#include "server/daemon/metrics.hpp"
#include "server/host/build_info.hpp"
#include "server/qa/line_client.hpp"

#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <thread>

using namespace emote::server;
using namespace emote::settings;
using namespace std::chrono_literals;
using clock_type = tick_schedule::clock;

TEST_CASE("realtime schedule: absolute deadlines, no drift") {
  const clock_type::time_point t0{};
  tick_schedule s(t0, 20);
  CHECK(s.due(0) == t0);
  CHECK(s.due(1) == t0 + 50ms);
  CHECK(s.due(72000) == t0 + 3600s);
  // Waking late every time does not shift later deadlines.
  for (int k = 0; k < 1000; ++k) {
    const auto w = s.begin_tick(s.next_due() + 7ms);
    CHECK(w.behind == 0);
    CHECK(w.skipped == 0);
  }
  CHECK(s.next_due() == t0 + 1000 * 50ms);
  // Non-integral periods stay exact: 3 TPS.
  tick_schedule three(t0, 3);
  CHECK(three.due(3) == t0 + 1s);
  CHECK(three.due(1) == t0 + 333333333ns);
  CHECK(three.due(3000000) == t0 + 1000000s);
}

TEST_CASE("realtime schedule: an overrun runs the next tick at once, catching up") {
  const clock_type::time_point t0{};
  tick_schedule s(t0, 20);
  (void)s.begin_tick(t0);
  // Tick 0 took 120 ms: ticks 1 and 2 are already due and run back to back.
  auto w = s.begin_tick(t0 + 120ms);
  CHECK(w.behind == 1); // slot 1 was due at 50 ms, slot 2 at 100 ms
  CHECK(w.skipped == 0);
  CHECK(s.next_due() == t0 + 100ms);
  w = s.begin_tick(t0 + 121ms);
  CHECK(w.behind == 0);
  CHECK(s.next_due() == t0 + 150ms);
}

TEST_CASE("realtime schedule: more than 40 ticks behind skips the missed deadlines") {
  const clock_type::time_point t0{};
  tick_schedule s(t0, 20);
  (void)s.begin_tick(t0);
  // Exactly 40 behind is still caught up.
  auto w = s.begin_tick(t0 + 50ms + 40 * 50ms);
  CHECK(w.behind == 40);
  CHECK(w.skipped == 0);
  tick_schedule s2(t0, 20);
  (void)s2.begin_tick(t0);
  w = s2.begin_tick(t0 + 50ms + 41 * 50ms + 10ms);
  CHECK(w.behind == 41);
  CHECK(w.skipped == 41);
  // The tick that runs now takes the latest due slot; the next is due one period after it.
  CHECK(s2.next_due() == t0 + 43 * 50ms);
}

TEST_CASE("metrics: Prometheus text with every series") {
  metrics m;
  m.tick_duration.observe(0.0004);
  m.tick_duration.observe(0.003);
  m.tick_duration.observe(2.0);
  m.ticks_total = 3;
  m.connections_controller = 2;
  m.count_error(emote::api::error_code::bad_json);
  m.count_error(emote::api::error_code::bad_json);
  m.memos[0] = {32768, 40, 900, 45};
  const auto text = m.render();
  CHECK(text.find("# TYPE emote_sim_tick_duration_seconds histogram\n") != std::string::npos);
  CHECK(text.find("emote_sim_memo_slots{memo=\"decomposition\"} 32768\n") != std::string::npos);
  CHECK(text.find("emote_sim_memo_entries{memo=\"decomposition\"} 40\n") != std::string::npos);
  CHECK(text.find("emote_sim_memo_hits_total{memo=\"decomposition\"} 900\n") != std::string::npos);
  CHECK(text.find("emote_sim_memo_misses_total{memo=\"transform_text\"} 0\n") != std::string::npos);
  // Bounds in their shortest form, finer below 2.5 ms.
  CHECK(text.find("emote_sim_tick_duration_seconds_bucket{le=\"0.00025\"} 0\n") !=
        std::string::npos);
  CHECK(text.find("emote_sim_tick_duration_seconds_bucket{le=\"0.0005\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("emote_sim_tick_duration_seconds_bucket{le=\"0.0025\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("emote_sim_tick_duration_seconds_bucket{le=\"0.005\"} 2\n") != std::string::npos);
  CHECK(text.find("emote_sim_tick_duration_seconds_sum 2.003") != std::string::npos);
  CHECK(text.find("emote_sim_tick_duration_seconds_bucket{le=\"+Inf\"} 3\n") != std::string::npos);
  CHECK(text.find("emote_sim_tick_duration_seconds_count 3\n") != std::string::npos);
  CHECK(text.find("emote_sim_ticks_total 3\n") != std::string::npos);
  // The build id of --version and the welcome line, as a label (issue: build ids).
  CHECK(text.find("emote_sim_build_info{version=\"" EMOTE_SIM_VERSION "\",build=\"" +
                  std::string(build_id()) + "\"} 1\n") != std::string::npos);
  CHECK(text.find("emote_sim_connections{role=\"controller\"} 2\n") != std::string::npos);
  CHECK(text.find("emote_sim_errors_total{code=\"bad_json\"} 2\n") != std::string::npos);
  CHECK(text.find("emote_sim_errors_total{code=\"internal\"} 0\n") != std::string::npos);
  for (const char* name :
       {"emote_sim_ticks_behind", "emote_sim_ticks_skipped_total", "emote_sim_sessions",
        "emote_sim_players", "emote_sim_displays", "emote_sim_received_bytes_total",
        "emote_sim_sent_bytes_total", "emote_sim_slow_consumer_disconnects_total"}) {
    CHECK_MESSAGE(text.find(std::string("# TYPE ") + name + " ") != std::string::npos, name);
  }
}

TEST_CASE("metrics: GET /metrics over HTTP") {
  boost::asio::io_context io;
  int renders = 0;
  http_routes routes;
  routes.metrics = [&] {
    ++renders;
    return std::string("emote_sim_ticks_total 5\n");
  };
  auto http = http_listener::open(io, *parse_listen_address("127.0.0.1:0"), routes);
  REQUIRE(http.ok());
  const auto addr = http.value()->bound();
  std::thread t([&] { io.run_for(5s); });
  auto get = [&](std::string request) {
    auto c = line_client::connect(addr, 2s);
    REQUIRE(c.ok());
    c->send_raw(request);
    std::vector<std::string> lines;
    while (auto l = c->read_line(2s)) {
      lines.push_back(*l);
    }
    return lines;
  };
  auto ok = get("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(ok.size() >= 5);
  CHECK(ok[0] == "HTTP/1.1 200 OK");
  CHECK(ok[1] == "Content-Type: text/plain; version=0.0.4; charset=utf-8");
  CHECK(ok.back() == "emote_sim_ticks_total 5");
  auto missing = get("GET / HTTP/1.1\r\n\r\n");
  REQUIRE_FALSE(missing.empty());
  CHECK(missing[0] == "HTTP/1.1 404 Not Found");
  auto post = get("POST /metrics HTTP/1.1\r\n\r\n");
  REQUIRE_FALSE(post.empty());
  CHECK(post[0] == "HTTP/1.1 405 Method Not Allowed");
  auto huge = get("GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n");
  REQUIRE_FALSE(huge.empty());
  CHECK(huge[0] == "HTTP/1.1 431 Request Header Fields Too Large");
  CHECK(renders == 1);
  boost::asio::post(io, [&] {
    http.value()->close();
    io.stop();
  });
  t.join();
}

TEST_CASE("metrics: a port already taken is a startup error naming the address") {
  boost::asio::io_context io;
  http_routes routes;
  routes.metrics = [] { return std::string(); };
  http_settings settings;
  settings.name = "metrics";
  auto first = http_listener::open(io, *parse_listen_address("127.0.0.1:0"), routes, settings);
  REQUIRE(first.ok());
  const auto taken = first.value()->bound();
  auto second = http_listener::open(io, taken, routes, settings);
  REQUIRE_FALSE(second.ok());
  CHECK_MESSAGE(second.error().starts_with("metrics: cannot listen on " + taken.text() + ": "),
                second.error());
}

TEST_CASE("histogram: own bounds and labelled series") {
  static constexpr std::array<double, 2> bounds{0.0001, 0.001};
  histogram h(bounds);
  h.observe(0.00005);
  h.observe(0.0005);
  h.observe(0.5);
  std::string out;
  h.render_series(out, "x_seconds", "gate=\"lobby\"");
  CHECK(out == "x_seconds_bucket{gate=\"lobby\",le=\"0.0001\"} 1\n"
               "x_seconds_bucket{gate=\"lobby\",le=\"0.001\"} 2\n"
               "x_seconds_bucket{gate=\"lobby\",le=\"+Inf\"} 3\n"
               "x_seconds_sum{gate=\"lobby\"} 0.50055\n"
               "x_seconds_count{gate=\"lobby\"} 3\n");
  out.clear();
  h.render_series(out, "x_seconds", {});
  CHECK(out.find("x_seconds_bucket{le=\"0.001\"} 2\n") != std::string::npos);
  CHECK(out.find("x_seconds_count 3\n") != std::string::npos);
}
