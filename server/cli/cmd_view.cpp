// emote-sim view RECORDING|SCENARIO [--http HOST:PORT] [--emotes DIR]: replays a recording
// (protocol.md §8, as `replay` does) or runs a scenario in process (§7, as `run` does) and serves
// the browser viewer over its whole timeline (docs/guide/viewer.md): GET /timeline.json holds the
// client messages, the output (frames with matrices) and the marks: each expectation with whether
// it holds, or whether the replay stayed identical.
#include "server/cli/commands.hpp"

#include "engine/json/writer.hpp"
#include "protocol/expect.hpp"
#include "protocol/runner.hpp"
#include "protocol/scenario.hpp"
#include "server/cli/cli_args.hpp"
#include "server/daemon/http_listener.hpp"
#include "server/host/engine_host.hpp"
#include "server/qa/replay.hpp"
#include "server/qa/replay_setup.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <variant>

namespace emote::server {

namespace {

/// What the page draws (viewer/src/model.js): the client messages by tick, the output lines
/// (replies and frames with matrices), and marks for the timeline.
struct timeline_doc {
  std::string name;
  std::int64_t ticks = 0;
  bool passed = true;
  std::string failure; ///< shown as an error on the page
  std::string note;    ///< shown beside the name
  struct input {
    std::int64_t tick = 0;
    std::string_view json;
  };
  std::vector<input> inputs;
  std::vector<std::string_view> lines;
  struct mark {
    std::string text;
    bool pass = false;
    std::optional<std::int64_t> tick;
  };
  std::vector<mark> expectations;

  [[nodiscard]] std::string json() const {
    std::string out = R"({"name":)";
    json::json_out j(out);
    j.str(name);
    out += R"(,"ticks":)";
    j.i64(ticks);
    out += R"(,"passed":)";
    j.boolean(passed);
    if (!failure.empty()) {
      out += R"(,"failure":)";
      j.str(failure);
    }
    if (!note.empty()) {
      out += R"(,"note":)";
      j.str(note);
    }
    out += R"(,"inputs":[)";
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      out += i == 0 ? R"({"tick":)" : R"(,{"tick":)";
      j.i64(inputs[i].tick);
      out += R"(,"msg":)";
      out += inputs[i].json; // compact JSON objects as read
      out += "}";
    }
    out += R"(],"lines":[)";
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out += i == 0 ? "" : ",";
      out += lines[i];
    }
    out += R"(],"expectations":[)";
    for (std::size_t i = 0; i < expectations.size(); ++i) {
      out += i == 0 ? R"({"text":)" : R"(,{"text":)";
      j.str(expectations[i].text);
      out += R"(,"pass":)";
      j.boolean(expectations[i].pass);
      if (expectations[i].tick) {
        out += R"(,"tick":)";
        j.i64(*expectations[i].tick);
      }
      out += "}";
    }
    out += "]}\n";
    return out;
  }
};

/// The NDJSON text's lines, without newlines (views into `text`).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    if (nl != 0) {
      out.push_back(text.substr(0, nl));
    }
    if (nl == std::string_view::npos) {
      break;
    }
    text.remove_prefix(nl + 1);
  }
  return out;
}

/// Serve `doc` with the viewer until SIGINT/SIGTERM; `status` is the exit status then.
int serve_timeline(const cli_args& args, const timeline_doc& doc, int status) {
  auto address = settings::parse_listen_address(args.value("http").value_or("127.0.0.1:0"));
  if (!address || address->type != settings::listen_address::kind::tcp) {
    std::fprintf(stderr, "view: --http: %s\n",
                 address ? "must be a TCP HOST:PORT address" : address.error().c_str());
    return 2;
  }
  http_routes routes;
  routes.assets = find_viewer_assets();
  if (!routes.assets) {
    routes.no_viewer = viewer_missing_message(viewer_search_path());
    std::fprintf(stderr, "view: %s; serving /timeline.json only\n", routes.no_viewer.c_str());
  }
  routes.documents.push_back({"/viewer.json", "application/json",
                              std::make_shared<const std::string>("{\"mode\":\"timeline\"}\n")});
  routes.documents.push_back(
      {"/timeline.json", "application/json", std::make_shared<const std::string>(doc.json())});
  boost::asio::io_context io;
  auto listener = http_listener::open(io, *address, std::move(routes));
  if (!listener) {
    std::fprintf(stderr, "view: %s\n", listener.error().c_str());
    return 1;
  }
  std::printf("view: http://%s/\n", listener.value()->bound().text().c_str());
  std::fflush(stdout);
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) {
    listener.value()->close();
    io.stop();
  });
  io.run();
  return status;
}

int view_scenario(const cli_args& args, const std::filesystem::path& file) {
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
  std::printf("%s %s%s%s\n", r.passed ? "PASS" : "FAIL", s->name.c_str(), r.passed ? "" : ": ",
              r.passed ? "" : r.failure.c_str());
  timeline_doc doc;
  doc.name = s->name;
  doc.ticks = s->ticks;
  doc.passed = r.passed;
  doc.failure = r.passed ? std::string() : r.failure;
  for (const auto& e : s->script) {
    doc.inputs.push_back({e.tick, e.line});
  }
  doc.lines = split_lines(r.output);
  protocol::output_log log;
  log.add_text(r.output);
  for (const auto& e : s->expect.items()) {
    const auto& w = e.window;
    doc.expectations.push_back({e.text, protocol::holds(e, log),
                                w.tick ? w.tick
                                : w.by ? w.by
                                       : w.after});
  }
  return serve_timeline(args, doc, r.passed ? 0 : 1);
}

/// A recording replayed deterministically (protocol.md §8, as `emote-sim replay`): its messages
/// and the replayed frames; a divergence from the recorded digests is a failed mark at its tick.
int view_recording(const cli_args& args, const std::filesystem::path& file) {
  auto rec = protocol::read_recording(file);
  if (!rec) {
    std::fprintf(stderr, "view: %s: %s\n", file.c_str(), rec.error().c_str());
    return 2;
  }
  auto host = prepare_replay(*rec, args.value("emotes"), false);
  if (!host) {
    std::fprintf(stderr, "view: %s: %s\n", file.c_str(), host.error().text.c_str());
    return 2;
  }
  std::vector<std::string> frames;
  const auto result = replay_recording(
      *rec, *host->host, [&](std::int64_t, const std::string& line) { frames.push_back(line); });
  timeline_doc doc;
  doc.name = file.filename().string();
  doc.ticks = std::max<std::int64_t>(result.ticks, 1);
  if (rec->truncated_tail) {
    doc.note = "the recording's last line was incomplete and is ignored";
    std::fprintf(stderr, "view: note: %s\n", doc.note.c_str());
  }
  if (!rec->damage.empty()) {
    doc.note = "the recording is damaged at " + rec->damage + "; shown up to the tick before it";
    std::fprintf(stderr, "view: note: %s\n", doc.note.c_str());
  }
  for (const auto& e : rec->entries) {
    if (const auto* m = std::get_if<protocol::rec_msg>(&e)) {
      doc.inputs.push_back({m->tick, m->json});
    }
  }
  for (const auto& f : frames) {
    doc.lines.emplace_back(f);
  }
  if (result.divergence) {
    doc.passed = false;
    doc.failure =
        "the replay diverged from the recording at tick " + std::to_string(result.divergence->tick);
    doc.expectations.push_back({doc.failure, false, result.divergence->tick});
    std::printf("FAIL %s: %s\n", doc.name.c_str(), doc.failure.c_str());
  } else {
    doc.expectations.push_back({"the replay is identical to the recording", true, std::nullopt});
    std::printf("PASS %s: %lld ticks replayed, identical\n", doc.name.c_str(),
                static_cast<long long>(result.ticks));
  }
  return serve_timeline(args, doc, doc.passed ? 0 : 1);
}

} // namespace

const cli_command& view_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "view";
    c.operands = "RECORDING|SCENARIO";
    c.summary = "replay a recording or run a scenario and serve the browser viewer over it";
    c.description =
        "Replays the recording (as `replay` does) or runs the scenario in process (as `run`\n"
        "does) and serves the viewer (docs/guide/viewer.md) over its whole timeline until\n"
        "interrupted; prints PASS/FAIL and the URL.\n";
    c.options = {
        value_option("http", "HOST:PORT", "where to serve (default 127.0.0.1:0: any free port)"),
        value_option("emotes", "DIR",
                     "content: a recording's folder, or for a scenario that names none", true),
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
  return protocol::is_recording_file(file) ? view_recording(args, file) : view_scenario(args, file);
}

} // namespace emote::server
