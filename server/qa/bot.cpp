#include "server/qa/bot.hpp"

#include "protocol/expect.hpp"
#include "server/qa/line_client.hpp"

#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"

namespace emote::server {

namespace {

constexpr std::int64_t max_step = 72000;
constexpr std::string_view step_id_prefix = "emote-sim-bot/step/";

// A script `subscribe` would change the bot's own subscription; like `run`, the bot keeps the
// full one and only acknowledges it: the entry is sent as a `ping` with the same id, whose reply
// is the same `{"op":"reply","id":ID,"tick":N,"ok":true}`.
std::string prepare_line(const std::string& line) {
  rapidjson::Document d;
  if (json::parse_wire(line, d)) {
    return line;
  }
  const auto* op = json::find_member(d, "op");
  if (op == nullptr || !op->IsString() ||
      std::string_view(op->GetString(), op->GetStringLength()) != "subscribe") {
    return line;
  }
  std::string ping;
  json::json_out o(ping);
  o.raw(R"({"op":"ping")");
  if (const auto* id = json::find_member(d, "id")) {
    o.raw(R"(,"id":)");
    o.value(*id);
  }
  o.ch('}');
  return ping;
}

// The string member `key`, or empty when absent or not a string.
std::string_view string_member(const rapidjson::Value& obj, std::string_view key) {
  const auto* v = json::find_member(obj, key);
  return v != nullptr && v->IsString() ? std::string_view(v->GetString(), v->GetStringLength())
                                       : std::string_view();
}

} // namespace

bot_result run_bot(const protocol::scenario& s, const bot_options& options) {
  bot_result out;
  auto connected = line_client::connect(options.address, std::chrono::milliseconds(5000));
  if (!connected) {
    out.failure = connected.error();
    return out;
  }
  line_client c = std::move(connected).value();
  std::string hello = R"({"op":"hello","protocol":1,"role":"controller","client":"emote-sim-bot/)" +
                      std::string(EMOTE_SIM_VERSION) + "\"";
  if (options.token) {
    hello += R"(,"token":)";
    json::json_out(hello).str(*options.token);
  }
  hello += "}";
  if (!c.send_line(hello)) {
    out.failure = "cannot send hello";
    return out;
  }
  const auto welcome_line = c.read_line(std::chrono::milliseconds(5000));
  if (!welcome_line) {
    out.failure = "no welcome from the server";
    return out;
  }
  rapidjson::Document welcome;
  if (json::parse_wire(*welcome_line, welcome) || string_member(welcome, "op") != "welcome") {
    out.failure = "the server refused the connection: " + *welcome_line;
    return out;
  }
  if (string_member(welcome, "clock") != "manual") {
    out.failure = "the server runs a realtime clock; `bot` needs one started with --clock manual";
    return out;
  }
  const auto* tick = json::find_member(welcome, "tick");
  const auto base = tick != nullptr ? json::as_int64(*tick) : std::nullopt;
  if (!base) {
    out.failure = "the welcome has no tick: " + *welcome_line;
    return out;
  }
  out.base_tick = *base;
  c.send_line(R"({"op":"subscribe","matrix":true})");

  std::size_t next = 0;
  std::int64_t t = 0;
  std::int64_t steps = 0;
  while (t < s.ticks) {
    for (; next < s.script.size() && s.script[next].tick <= t; ++next) {
      if (!c.send_line(prepare_line(s.script[next].line))) {
        out.failure = "the connection closed at scenario tick " + std::to_string(t);
        return out;
      }
    }
    const std::int64_t until =
        std::min(s.ticks, next < s.script.size() ? s.script[next].tick : s.ticks);
    const std::int64_t k = std::min(std::max<std::int64_t>(until - t, 1), max_step);
    const std::string id = std::string(step_id_prefix) + std::to_string(++steps);
    c.send_line(R"({"op":"clock.step","id":")" + id + R"(","ticks":)" + std::to_string(k) + "}");
    const std::string reply_head = R"({"op":"reply","id":")" + id + "\",";
    for (;;) {
      auto line = c.read_line(options.timeout);
      if (!line) {
        out.failure = c.eof()
                          ? "the server closed the connection at scenario tick " + std::to_string(t)
                          : "no answer to clock.step within the timeout";
        return out;
      }
      if (line->starts_with(reply_head)) {
        if (line->find(R"("ok":true)") == std::string::npos) {
          out.failure = "clock.step failed: " + *line;
          return out;
        }
        break;
      }
      if (line->starts_with(R"({"op":"bye")")) {
        out.failure = "the server said " + *line;
        return out;
      }
      out.output += *line;
      out.output += '\n';
    }
    t += k;
  }
  c.send_line(R"({"op":"bye"})");

  protocol::output_log log(out.base_tick);
  log.add_text(out.output);
  // Every unmet expectation, not only the first (protocol.md §7).
  if (const auto missed = protocol::unmet(s.expect, log); !missed.empty()) {
    out.failure = protocol::describe_unmet(missed);
    return out;
  }
  out.passed = true;
  return out;
}

} // namespace emote::server
