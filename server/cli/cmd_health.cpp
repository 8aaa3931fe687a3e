// `emote-sim health [--config FILE] [--listen ADDR]...`: the container healthcheck. Reads the
// configuration as serve does, connects to the first listen address (TCP or Unix socket), says
// hello as an observer (with the observer token when one is configured) and expects the welcome
// (protocol.md §2). A `bye` `max_connections` also shows a live server whose connection slots are
// taken: healthy, so a liveness probe never restarts a server for being busy. Exit status 0
// healthy, 1 not.
#include "server/cli/cli_args.hpp"
#include "server/cli/commands.hpp"
#include "server/qa/line_client.hpp"

#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

#include <chrono>
#include <cstdio>
#include <string>

namespace emote::server {
namespace {

constexpr std::string_view health_config_keys[] = {"listen", "auth.observer_token"};
constexpr auto health_timeout = std::chrono::milliseconds(3000);

} // namespace

const cli_command& health_cli() {
  static const cli_command command = [] {
    cli_command c;
    c.name = "health";
    c.summary = "check that a server answers (container healthcheck)";
    c.max_operands = 0;
    c.description =
        "Reads the configuration as serve does (the file, EMOTE_SIM_* variables, then these\n"
        "options), connects to the first listen address, says hello as an observer and waits\n"
        "up to 3 s for the welcome. Exit status 0 when it came (or the server answered that its\n"
        "connections are full: it is alive), 1 otherwise (the reason on stderr). Works for TCP\n"
        "and Unix-socket listeners alike.\n";
    c.options.push_back(config_file_option());
    for (auto& o : config_cli_options(health_config_keys)) {
      c.options.push_back(o);
    }
    return c;
  }();
  return command;
}

int cmd_health(std::span<const std::string_view> argv) {
  const cli_command& command = health_cli();
  auto parsed = parse_command_line(command, argv);
  if (!parsed) {
    return parsed.error();
  }
  auto cfg = load_config(*parsed, command.options);
  if (!cfg) {
    std::fprintf(stderr, "emote-sim health: %s\n", cfg.error().c_str());
    return 2;
  }
  if (cfg->listen.empty()) {
    std::fprintf(stderr, "emote-sim health: the configuration has no listen address\n");
    return 1;
  }
  const listen_address& address = cfg->listen.front();
  const std::string where = address.text();
  auto client = line_client::connect(address, health_timeout);
  if (!client) {
    std::fprintf(stderr, "emote-sim health: %s: %s\n", where.c_str(), client.error().c_str());
    return 1;
  }
  std::string hello;
  json::json_out w(hello);
  w.raw(R"({"op":"hello","protocol":1,"role":"observer","client":"emote-sim-health")");
  if (!cfg->auth.observer_token.empty()) {
    w.raw(R"(,"token":)");
    w.str(cfg->auth.observer_token);
  }
  w.raw("}");
  if (!client->send_line(hello)) {
    std::fprintf(stderr, "emote-sim health: %s: the connection closed before the hello\n",
                 where.c_str());
    return 1;
  }
  const auto line = client->read_line(health_timeout);
  if (!line) {
    std::fprintf(stderr, "emote-sim health: %s: no answer within %lld ms\n", where.c_str(),
                 static_cast<long long>(health_timeout.count()));
    return 1;
  }
  rapidjson::Document doc;
  const bool parsed_ok = !json::parse_wire(*line, doc).has_value() && doc.IsObject();
  const auto op = parsed_ok ? doc.FindMember("op") : rapidjson::Value::ConstMemberIterator{};
  const std::string_view op_name =
      parsed_ok && op != doc.MemberEnd() && op->value.IsString() ? op->value.GetString() : "";
  if (op_name == "bye") {
    const auto reason = doc.FindMember("reason");
    if (reason != doc.MemberEnd() && reason->value.IsString() &&
        std::string_view(reason->value.GetString()) == "max_connections") {
      std::printf("healthy: %s answers, its connections are full: %s\n", where.c_str(),
                  line->c_str());
      return 0;
    }
  }
  if (op_name != "welcome") {
    std::fprintf(stderr, "emote-sim health: %s: no welcome: %.200s\n", where.c_str(),
                 line->c_str());
    return 1;
  }
  client->send_line(R"({"op":"bye"})");
  std::printf("healthy: %s answers: %s\n", where.c_str(), line->c_str());
  return 0;
}

} // namespace emote::server
