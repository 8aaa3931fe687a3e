// emote-sim view SCENARIO [--http HOST:PORT] [--emotes DIR]: runs a scenario in process (the
// same run as `emote-sim run`, protocol.md §7) and serves the browser viewer over its whole
// timeline (docs/guide/viewer.md): GET /timeline.json holds the script's messages, the output
// (replies and frames with matrices) and each expectation with whether it holds.
#include "server/commands.hpp"

#include "engine/json/writer.hpp"
#include "protocol/expect.hpp"
#include "protocol/runner.hpp"
#include "protocol/scenario.hpp"
#include "server/cli_args.hpp"
#include "server/engine_host.hpp"
#include "server/http_listener.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>

namespace emote::server {

namespace {

/// The viewer's timeline document of a scenario run.
std::string timeline_json(const protocol::scenario& s, const protocol::run_result& r) {
  std::string out = R"({"name":)";
  json::json_out j(out);
  j.str(s.name);
  out += R"(,"ticks":)";
  j.i64(s.ticks);
  out += R"(,"passed":)";
  j.boolean(r.passed);
  if (!r.passed && !r.failure.empty()) {
    out += R"(,"failure":)";
    j.str(r.failure);
  }
  out += R"(,"inputs":[)";
  bool first = true;
  for (const auto& e : s.script) {
    out += first ? "" : ",";
    first = false;
    out += R"({"tick":)";
    j.i64(e.tick);
    out += R"(,"msg":)";
    out += e.line; // compact JSON as the scenario holds it
    out += "}";
  }
  out += R"(],"lines":[)";
  first = true;
  std::size_t from = 0;
  while (from < r.output.size()) {
    auto nl = r.output.find('\n', from);
    if (nl == std::string::npos) {
      nl = r.output.size();
    }
    if (nl > from) {
      out += first ? "" : ",";
      first = false;
      out.append(r.output, from, nl - from);
    }
    from = nl + 1;
  }
  out += R"(],"expectations":[)";
  protocol::output_log log;
  log.add_text(r.output);
  first = true;
  for (const auto& e : s.expect.items()) {
    out += first ? "" : ",";
    first = false;
    out += R"({"text":)";
    j.str(e.text);
    out += R"(,"pass":)";
    j.boolean(protocol::holds(e, log));
    const auto& w = e.window;
    if (auto t = w.tick ? w.tick : w.by ? w.by : w.after) {
      out += R"(,"tick":)";
      j.i64(*t);
    }
    out += "}";
  }
  out += "]}\n";
  return out;
}

bool is_recording(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string head(64, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find("\"emote_sim_recording\"") != std::string::npos;
}

} // namespace

const cli_command& view_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "view";
    c.operands = "SCENARIO";
    c.summary = "run a scenario and serve the browser viewer over its timeline";
    c.description =
        "Runs the scenario in process (as `run` does) and serves the viewer\n"
        "(docs/guide/viewer.md) over its whole timeline until interrupted; prints the URL.\n"
        "A recording is viewed through its scenario: `emote-sim record-to-scenario`.\n";
    c.options = {value_option("http", "HOST:PORT", "where to serve (default 127.0.0.1:0: any free port)"),
                 value_option("emotes", "DIR", "content when the scenario names no emotes folders",
                              true),
                 value_option("log-level", "L", "as for serve (default: warn)")};
    c.min_operands = 1;
    c.max_operands = 1;
    return c;
  }();
  return command;
}

int cmd_view(std::span<const std::string_view> argv) {
  auto parsed = parse_command_line(view_cli(), argv);
  if (!parsed) {
    return parsed.error();
  }
  const cli_args& args = *parsed;
  spdlog::set_level(spdlog::level::warn);
  if (auto level = args.value("log-level")) {
    spdlog::set_level(spdlog::level::from_str(*level));
  }
  const std::filesystem::path file(args.positional()[0]);
  if (is_recording(file)) {
    std::fprintf(stderr,
                 "view: %s is a recording: convert it first (emote-sim record-to-scenario %s "
                 "--out FILE), then view FILE\n",
                 file.c_str(), file.c_str());
    return 2;
  }
  auto s = protocol::load_scenario(file);
  if (!s) {
    std::fprintf(stderr, "view: %s\n", s.error().c_str());
    return 2;
  }
  std::vector<std::filesystem::path> default_emotes;
  for (const auto& e : args.values("emotes")) {
    default_emotes.emplace_back(e);
  }
  const protocol::run_result r = protocol::run_scenario(*s, scenario_host_factory(default_emotes));
  if (!r.started) {
    std::fprintf(stderr, "view: %s: %s\n", file.c_str(), r.failure.c_str());
    return 2;
  }
  std::printf("%s %s%s%s\n", r.passed ? "PASS" : "FAIL", s->name.c_str(),
              r.passed ? "" : ": ", r.passed ? "" : r.failure.c_str());

  auto address = protocol::parse_listen_address(args.value("http").value_or("127.0.0.1:0"));
  if (!address || address->type != protocol::listen_address::kind::tcp) {
    std::fprintf(stderr, "view: --http: %s\n",
                 address ? "must be a TCP HOST:PORT address" : address.error().c_str());
    return 2;
  }
  http_routes routes;
  routes.assets = find_viewer_assets();
  routes.documents.push_back({"/viewer.json", "application/json",
                              std::make_shared<const std::string>("{\"mode\":\"timeline\"}\n")});
  routes.documents.push_back({"/timeline.json", "application/json",
                              std::make_shared<const std::string>(timeline_json(*s, r))});
  boost::asio::io_context io;
  auto listener = http_listener::open(io, *address, std::move(routes));
  if (!listener) {
    std::fprintf(stderr, "view: %s\n", listener.error().c_str());
    return 1;
  }
  if (!find_viewer_assets()) {
    std::fprintf(stderr, "view: the viewer is not built (scripts/build-viewer); serving "
                         "/timeline.json only\n");
  }
  std::printf("view: http://%s/\n", listener.value()->bound().text().c_str());
  std::fflush(stdout);
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) {
    listener.value()->close();
    io.stop();
  });
  io.run();
  return r.passed ? 0 : 1;
}

} // namespace emote::server
