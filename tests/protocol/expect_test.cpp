#include "protocol/expect.hpp"

#include "engine/json/wire_reader.hpp"

#include <doctest/doctest.h>

using namespace emote::protocol;

namespace {

rapidjson::Document json(std::string_view text) {
  rapidjson::Document d;
  auto e = emote::json::parse_wire(text, d);
  REQUIRE_FALSE(e);
  return d;
}

expectation_set expectations(std::string_view text) {
  auto d = json(text);
  auto s = expectation_set::parse(d);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error()));
  return std::move(*s);
}

std::string parse_error(std::string_view text) {
  auto d = json(text);
  auto s = expectation_set::parse(d);
  REQUIRE_FALSE(s.ok());
  return s.error();
}

bool match(std::string_view expected, std::string_view actual) {
  return subset_match(json(expected), json(actual));
}

// A run's output: the slide_once story, hand-written.
constexpr const char* output = R"(
{"op":"reply","id":"p1","tick":1,"ok":true,"session":1,"emote":"fx:slide","role":"solo"}
{"op":"frame","tick":1,"events":[{"type":"display.spawn","session":1,"handle":1,"node":"box","space":"initiator","kind":"item","item":"{id:\"minecraft:stone\",count:1}","item_display":"none","dimension":"minecraft:overworld","position":[0,64,0],"yaw":0,"teleport_duration":0,"transform":{"translation":[0,0,0],"left_rotation":[0,0,0,1],"scale":[1,1,1],"right_rotation":[0,0,0,1],"matrix":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]},"visible":false},{"type":"player.visibility","player":"alice","hidden":true,"equipment":"blank"},{"type":"playback.started","session":1,"player":"alice","emote":"fx:slide","role":"solo"}]}
{"op":"frame","tick":2,"events":[{"type":"display.update","handle":1,"transform":{"translation":[0.1000000015,0,0],"left_rotation":[0,0,0,1],"scale":[1,1,1],"right_rotation":[0,0,0,1]},"interpolation_duration":1,"start_interpolation":0,"visible":true}]}
{"op":"reply","id":"b","tick":5,"ok":false,"error":{"code":"cooldown","message":"Emote cooldown: 5s remaining.","remaining_ticks":96}}
{"op":"reply","id":7,"tick":6,"ok":true}
{"op":"frame","tick":11,"events":[{"type":"player.visibility","player":"alice","hidden":false,"equipment":"real"},{"type":"playback.stopped","session":1,"player":"alice","emote":"fx:slide","reason":"FINISHED"},{"type":"display.remove","session":1,"handles":[1]}]}
)";

output_log log_of(const char* text, std::int64_t base = 0) {
  output_log log(base);
  log.add_text(text);
  return log;
}

bool holds_text(std::string_view expect, const output_log& log) {
  auto set = expectations(std::string("[") + std::string(expect) + "]");
  return holds(set.items().front(), log);
}

} // namespace

TEST_CASE("subset matching") {
  CHECK(match(R"({"a":1})", R"({"a":1,"b":2})"));
  CHECK_FALSE(match(R"({"a":1,"c":3})", R"({"a":1,"b":2})"));
  CHECK(match(R"({"o":{"x":1}})", R"({"o":{"x":1,"y":2}})")); // recursive
  CHECK_FALSE(match(R"({"o":{"x":1}})", R"({"o":{"y":1}})"));
  CHECK(match(R"([1,{"k":"v"}])", R"([1,{"k":"v","z":0}])")); // element-wise
  CHECK_FALSE(match(R"([1,2])", R"([1,2,3])"));               // same length
  CHECK(match("1", "1.0000009"));                             // within 1e-6
  CHECK_FALSE(match("1", "1.0000011"));
  CHECK(match("0.1", "0.1000000015"));
  CHECK_FALSE(match("1", "true"));
  CHECK_FALSE(match(R"("1")", "1"));
  CHECK(match("null", "null"));
  CHECK_FALSE(match("null", "0"));
  CHECK_FALSE(match("false", "null"));
  CHECK(match(R"({"a":null})", R"({"a":null})"));
  CHECK_FALSE(match(R"({"a":null})", R"({})")); // keys must be present
}

TEST_CASE("reply expectations") {
  const auto log = log_of(output);
  CHECK(holds_text(R"({"reply":"p1","ok":true,"role":"solo"})", log));
  CHECK_FALSE(holds_text(R"({"reply":"p1","role":"initiator"})", log));
  CHECK(holds_text(R"({"reply":"b","ok":false,"error":{"code":"cooldown"}})", log));
  CHECK(holds_text(R"({"reply":"b","error":{"remaining_ticks":96}})", log));
  CHECK(holds_text(R"({"reply":7,"ok":true})", log));
  CHECK_FALSE(holds_text(R"({"reply":"7"})", log)); // ids keep their type
  CHECK_FALSE(holds_text(R"({"reply":"zz"})", log));
  CHECK(holds_text(R"({"reply":"b","tick":5})", log));
  CHECK_FALSE(holds_text(R"({"reply":"b","by":4})", log));
}

TEST_CASE("event expectations with windows") {
  const auto log = log_of(output);
  CHECK(holds_text(R"({"event":"playback.started","player":"alice","role":"solo","tick":1})", log));
  CHECK_FALSE(holds_text(R"({"event":"playback.started","tick":2})", log));
  CHECK(holds_text(R"({"event":"display.update","visible":true,"tick":2})", log));
  CHECK(holds_text(
      R"({"event":"display.spawn","transform":{"matrix":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}})",
      log));
  CHECK(holds_text(R"({"event":"display.update","transform":{"translation":[0.1,0,0]}})", log));
  CHECK_FALSE(holds_text(R"({"event":"display.update","transform":{"translation":[0.1,0]}})", log));
  CHECK(holds_text(R"({"event":"playback.stopped","reason":"FINISHED","after":11,"by":11})", log));
  CHECK_FALSE(holds_text(R"({"event":"playback.stopped","by":10})", log));
  CHECK_FALSE(holds_text(R"({"event":"playback.stopped","after":12})", log));
  CHECK(holds_text(R"({"event":"display.","tick":11})", log)); // a prefix
  CHECK(holds_text(R"({"event":"display.remove","handles":[1]})", log));
}

TEST_CASE("count, not and order") {
  const auto log = log_of(output);
  CHECK(holds_text(R"({"count":{"event":"display.spawn"},"equals":1})", log));
  CHECK_FALSE(holds_text(R"({"count":{"event":"display.spawn"},"equals":2})", log));
  CHECK(holds_text(R"({"count":{"event":"player.visibility"},"at_least":2,"at_most":2})", log));
  CHECK(holds_text(R"({"count":{"event":"player.visibility","tick":1},"equals":1})", log));
  CHECK(holds_text(R"({"count":{"event":"display."},"at_most":3})", log));
  CHECK_FALSE(holds_text(R"({"count":{"event":"display."},"at_most":2})", log));
  CHECK(holds_text(R"({"count":{"event":"partner.matched"},"equals":0})", log));

  CHECK(holds_text(R"({"not":{"event":"playback.stopped","reason":"MOVED"}})", log));
  CHECK_FALSE(holds_text(R"({"not":{"event":"playback.stopped","reason":"FINISHED"}})", log));
  CHECK(holds_text(R"({"not":{"event":"playback.stopped","by":10}})", log));
  CHECK(holds_text(R"({"not":{"reply":"zz"}})", log));

  CHECK(holds_text(
      R"({"order":[{"event":"playback.started"},{"event":"display.update"},{"event":"playback.stopped"}]})",
      log));
  CHECK_FALSE(
      holds_text(R"({"order":[{"event":"playback.stopped"},{"event":"playback.started"}]})", log));
  // Within one frame, event order counts: visibility comes before playback.started at tick 1.
  CHECK(holds_text(
      R"({"order":[{"event":"player.visibility","hidden":true},{"event":"playback.started"}]})",
      log));
  CHECK_FALSE(holds_text(
      R"({"order":[{"event":"playback.started"},{"event":"player.visibility","hidden":true}]})",
      log));
  // Replies take part too, and one event cannot match two elements.
  CHECK(holds_text(R"({"order":[{"reply":"p1"},{"event":"display.spawn"},{"reply":"b"}]})", log));
  CHECK_FALSE(
      holds_text(R"({"order":[{"event":"display.spawn"},{"event":"display.spawn"}]})", log));
}

namespace {
// The first unmet expectation's description, if any.
std::optional<std::string> first_of(const expectation_set& set, const output_log& log) {
  auto all = unmet(set, log);
  return all.empty() ? std::nullopt : std::optional(all.front());
}
} // namespace

TEST_CASE("every unmet expectation is described") {
  const auto log = log_of(output);
  auto set = expectations(R"([
    {"reply":"p1","ok":true},
    {"event":"partner.matched","initiator":"alice","by":60},
    {"count":{"event":"display.spawn"},"equals":5}
  ])");
  auto why = first_of(set, log);
  REQUIRE(why);
  CHECK(
      *why ==
      R"(expect[1] {"event":"partner.matched","initiator":"alice","by":60}: no matching event (0 partner.matched in the window, 0 outside))");

  auto miss = expectations(R"([{"event":"playback.stopped","reason":"MOVED"}])");
  why = first_of(miss, log);
  REQUIRE(why);
  CHECK(why->find("(1 playback.stopped in the window, 0 outside; first in the window: tick 11 "
                  "{\"type\":\"playback.stopped\"") != std::string::npos);

  CHECK(*first_of(expectations(R"([{"count":{"event":"display.spawn"},"equals":5}])"), log) ==
        R"(expect[0] {"count":{"event":"display.spawn"},"equals":5}: counted 1)");
  CHECK(first_of(expectations(R"([{"reply":"zz"}])"), log)->ends_with(": no reply with this id"));
  CHECK(first_of(expectations(R"([{"reply":"p1","role":"partner"}])"), log)
            ->find("the reply differs: tick 1") != std::string::npos);
  CHECK(first_of(expectations(R"([{"not":{"event":"display.remove"}}])"), log)
            ->find(": found tick 11") != std::string::npos);
  CHECK(
      first_of(
          expectations(R"([{"order":[{"event":"display.remove"},{"event":"display.spawn"}]}])"),
          log)
          ->ends_with(
              R"(element 1 {"event":"display.spawn"} does not occur after the match of element 0 (tick 11))"));
  CHECK_FALSE(first_of(expectations(R"([{"reply":"p1"},{"event":"display.spawn"}])"), log));
  CHECK_FALSE(first_of(expectations("[]"), log));

  // All of them, in file order, not only the first; the summary puts each on its own line.
  const auto all = unmet(set, log);
  REQUIRE(all.size() == 2);
  CHECK(all[0].starts_with(R"(expect[1] {"event":"partner.matched")"));
  CHECK(all[1] == R"(expect[2] {"count":{"event":"display.spawn"},"equals":5}: counted 1)");
  CHECK(describe_unmet(all) == all[0] + "\n  " + all[1]);
  CHECK(describe_unmet({}).empty());
}

TEST_CASE("a tick base maps a live server's ticks to scenario ticks") {
  const auto log = log_of(
      R"({"op":"frame","tick":1005,"events":[{"type":"partner.timeout","session":1,"initiator":"a"}]})",
      1000);
  CHECK(holds_text(R"({"event":"partner.timeout","tick":5})", log));
}

TEST_CASE("the output log ignores other lines and counts broken ones") {
  output_log log;
  log.add_line(R"({"op":"welcome","protocol":1,"tick":0})");
  log.add_line("not json");
  log.add_line(
      R"({"op":"frame","tick":1,"events":[{"type":"display.remove","session":1,"handles":[]},5]})");
  log.add_line("");
  CHECK(log.bad_lines() == 1);
  CHECK(log.events().size() == 1);
  CHECK(log.replies().empty());
}

TEST_CASE("malformed expectations are rejected with their path") {
  CHECK(parse_error(R"({})") == "$.expect: must be an array");
  CHECK(parse_error(R"([5])") == "$.expect[0]: must be an object");
  CHECK(parse_error(R"([{"tick":3}])") ==
        "$.expect[0]: must have exactly one of reply, event, count, not, order");
  CHECK(parse_error(R"([{"event":"a","reply":"b"}])") ==
        "$.expect[0]: must have exactly one of reply, event, count, not, order");
  CHECK(parse_error(R"([{"event":"display.spwn"}])") ==
        "$.expect[0].event: unknown event type or prefix: display.spwn");
  CHECK(parse_error(R"([{"event":"display.spawn","by":"5"}])") ==
        "$.expect[0].by: must be an integer");
  CHECK(parse_error(R"([{"reply":1.5}])") ==
        "$.expect[0].reply: must be a string or an integer (a request id)");
  CHECK(parse_error(R"([{"count":{"event":"display.spawn"}}])") ==
        "$.expect[0]: needs equals, at_least or at_most");
  CHECK(parse_error(R"([{"count":{"event":"display.spawn"},"equals":-1}])") ==
        "$.expect[0].equals: must be an integer >= 0");
  CHECK(parse_error(R"([{"count":{"reply":"a"},"equals":1}])")
            .starts_with("$.expect[0].count: must be an event expectation"));
  CHECK(parse_error(R"([{"count":{"event":"display.spawn"},"equals":1,"tick":3}])") ==
        "$.expect[0].tick: unknown key in a count expectation");
  CHECK(parse_error(R"([{"order":[]}])") == "$.expect[0].order: must be a non-empty array");
  CHECK(parse_error(R"([{"order":[{"not":{"event":"display.spawn"}}]}])") ==
        "$.expect[0].order[0]: must be an event or reply expectation");
  CHECK(parse_error(R"([{"not":{"event":"x.y"}}])") ==
        "$.expect[0].not.event: unknown event type or prefix: x.y");
}
