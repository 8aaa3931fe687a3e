#include "server/qa/recorded_expect.hpp"

#include "engine/json/wire_reader.hpp"
#include "engine/json/writer.hpp"
#include "server/daemon/recorder.hpp"
#include "server/qa/replay.hpp"

#include <algorithm>
#include <vector>

namespace emote::server {

using json::find_member;
using json::json_out;
using json::parse_wire;

std::optional<expect_level> parse_expect_level(std::string_view text) noexcept {
  if (text == "all") {
    return expect_level::all;
  }
  if (text == "lifecycle") {
    return expect_level::lifecycle;
  }
  if (text == "none") {
    return expect_level::none;
  }
  return std::nullopt;
}

namespace {

struct timed {
  std::int64_t tick = 0;
  int rank = 0; ///< 0 reply, 1 event: the output's order within a tick (replies, then the frame)
  std::string json;
};

// Fields that number things (sessions, display handles) rather than say what happened: one extra
// offer earlier in a session shifts them all, so expectations leave them out (docs/guide/qa.md).
bool numbering_field(std::string_view name) {
  return name == "session" || name == "handle" || name == "handles";
}

// {"reply":ID,"tick":N,"ok":true,...the reply's scalar result fields} (`emote`, `role`, `stopped`,
// ...; an `unmatched` object without its session) or
// {"reply":ID,"tick":N,"ok":false,"error":{"code":C}}.
std::optional<std::string> reply_expectation(const protocol::converted_reply& reply) {
  rapidjson::Document doc;
  if (parse_wire(reply.json, doc) || !doc.IsObject()) {
    return std::nullopt;
  }
  const auto* ok = find_member(doc, "ok");
  if (ok == nullptr || !ok->IsBool()) {
    return std::nullopt;
  }
  std::string out;
  json_out o(out);
  o.raw(R"({"reply":)");
  o.str(reply.id);
  o.raw(R"(,"tick":)");
  o.i64(reply.tick);
  if (ok->GetBool()) {
    o.raw(R"(,"ok":true)");
    for (const auto& m : doc.GetObject()) {
      const std::string_view name = json::string_of(m.name);
      if (name == "op" || name == "id" || name == "tick" || name == "ok" || numbering_field(name)) {
        continue;
      }
      if (m.value.IsObject() && name == "unmatched") {
        o.raw(R"(,"unmatched":{)");
        bool first = true;
        for (const auto& u : m.value.GetObject()) {
          if (numbering_field(json::string_of(u.name))) {
            continue;
          }
          if (!first) {
            o.ch(',');
          }
          first = false;
          o.str(json::string_of(u.name));
          o.ch(':');
          o.value(u.value);
        }
        o.ch('}');
        continue;
      }
      if (m.value.IsObject() || m.value.IsArray()) {
        continue; // a whole state or emote list would pin everything
      }
      o.ch(',');
      o.str(name);
      o.ch(':');
      o.value(m.value);
    }
    o.ch('}');
    return out;
  }
  o.raw(R"(,"ok":false)");
  const auto* error = find_member(doc, "error");
  const auto* code = error != nullptr ? find_member(*error, "code") : nullptr;
  if (code != nullptr && code->IsString()) {
    o.raw(R"(,"error":{"code":)");
    o.str(json::string_of(*code));
    o.ch('}');
  }
  o.ch('}');
  return out;
}

bool lifecycle_event(std::string_view type) {
  return type.starts_with("playback.") || type.starts_with("partner.");
}

// {"event":TYPE, ...the event's other fields but session numbers, "tick":N}: sessions are matched
// by their players and emote.
std::string event_expectation(const rapidjson::Value& event, std::string_view type,
                              std::int64_t tick) {
  std::string out;
  json_out o(out);
  o.raw(R"({"event":)");
  o.str(type);
  for (const auto& m : event.GetObject()) {
    const std::string_view name = json::string_of(m.name);
    // Names the expectation language reserves (protocol.md §7) are never event fields today.
    if (name == "type" || name == "event" || name == "tick" || name == "by" || name == "after" ||
        numbering_field(name)) {
      continue;
    }
    o.ch(',');
    o.str(name);
    o.ch(':');
    o.value(m.value);
  }
  o.raw(R"(,"tick":)");
  o.i64(tick);
  o.ch('}');
  return out;
}

// {"count":{"event":PREFIX},"equals":N}, with "by" before the server's stop.
std::string count_expectation(std::string_view prefix, std::int64_t n,
                              std::optional<std::int64_t> stopped) {
  std::string out;
  json_out o(out);
  o.raw(R"({"count":{"event":)");
  o.str(prefix);
  if (stopped) {
    o.raw(R"(,"by":)");
    o.i64(*stopped - 1);
  }
  o.raw(R"(},"equals":)");
  o.i64(n);
  o.ch('}');
  return out;
}

} // namespace

core::result<std::string, std::string> recorded_expectations(const protocol::recording& r,
                                                             const protocol::converted_recording& c,
                                                             protocol::sim_host& host,
                                                             expect_level level) {
  if (level == expect_level::none) {
    return std::string("[]");
  }
  std::vector<timed> items;
  if (level == expect_level::all) {
    for (const auto& reply : c.replies) {
      if (auto e = reply_expectation(reply)) {
        items.push_back({reply.tick, 0, std::move(*e)});
      }
    }
  }
  // A recording that ends with the server's stop (a disconnect of connection 0): the stop's
  // events (SERVER_STOPPING) cannot happen in a scenario, so that tick's events are left out.
  std::optional<std::int64_t> stopped;
  for (const auto& e : r.entries) {
    if (const auto* d = std::get_if<protocol::rec_disconnect>(&e);
        d != nullptr && d->conn == static_cast<std::int64_t>(server_conn)) {
      stopped = d->tick;
      break;
    }
  }
  std::int64_t playbacks = 0;
  std::int64_t partners = 0;
  const auto replayed = replay_recording(r, host, [&](std::int64_t tick, const std::string& line) {
    rapidjson::Document doc;
    if (parse_wire(line, doc) || !doc.IsObject()) {
      return;
    }
    const auto* events = find_member(doc, "events");
    if (events == nullptr || !events->IsArray()) {
      return;
    }
    if (stopped && tick >= *stopped) {
      return;
    }
    for (const auto& ev : events->GetArray()) {
      const auto* type = ev.IsObject() ? find_member(ev, "type") : nullptr;
      if (type == nullptr || !type->IsString() || !lifecycle_event(json::string_of(*type))) {
        continue;
      }
      ++(json::string_of(*type).starts_with("playback.") ? playbacks : partners);
      items.push_back({tick, 1, event_expectation(ev, json::string_of(*type), tick)});
    }
  });
  if (replayed.divergence) {
    return core::failure{"the recording does not replay identically on this build (diverged at "
                         "tick " +
                         std::to_string(replayed.divergence->tick) +
                         "; see `emote-sim replay`), so its events cannot be expected; use "
                         "--expect none"};
  }
  std::stable_sort(items.begin(), items.end(), [](const timed& a, const timed& b) {
    return a.tick != b.tick ? a.tick < b.tick : a.rank < b.rank;
  });
  items.push_back({0, 2, count_expectation("playback.", playbacks, stopped)});
  items.push_back({0, 2, count_expectation("partner.", partners, stopped)});
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    out += items[i].json;
  }
  out += "\n  ]";
  return out;
}

} // namespace emote::server
