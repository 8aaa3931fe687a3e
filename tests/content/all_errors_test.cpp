// formats.md §1.3: `check` reports every error of a file (load_options::all_errors), going on only
// with the checks that do not depend on a rejected value; loading reports the first. The first
// error `check` reports is the loader's (support.hpp's load() compares the two on every load of
// the content suites).
#include "support.hpp"

#include <string>
#include <vector>

using namespace content_test;

namespace {

load_options every_error() {
  load_options o;
  o.all_errors = true;
  return o;
}

/// The errors of a catalog as "path: message" lines, in order.
std::vector<std::string> errors(const catalog& c) {
  std::vector<std::string> e;
  for (const auto& d : c.diagnostics()) {
    if (d.severity == emote::core::severity::error) {
      e.push_back(d.path + ": " + d.message);
    }
  }
  return e;
}

const emote::core::diagnostic& nth_error(const catalog& c, std::size_t n) {
  for (const auto& d : c.diagnostics()) {
    if (d.severity == emote::core::severity::error && n-- == 0) {
      return d;
    }
  }
  FAIL("fewer errors than asked for");
  return c.diagnostics().front();
}

} // namespace

TEST_CASE("all errors: three independent errors give three findings in order") {
  const auto text = a0().set("schema_version", "3")
                        .set("settings.playback.mode", "\"lop\"")
                        .set("nodes.display.item_display", "\"hed\"")
                        .text();
  const auto every = load(std::vector{text}, every_error());
  CHECK(errors(*every) ==
        std::vector<std::string>{"$.schema_version: must equal 4",
                                 "$.settings.playback.mode: unsupported playback mode: lop",
                                 "$.nodes.display.item_display: unsupported item display "
                                 "context: hed"});
  // Each carries its suggestion and location.
  CHECK(nth_error(*every, 1).suggestion == "did you mean `loop`?");
  CHECK(nth_error(*every, 2).suggestion == "did you mean `head`?");
  CHECK(nth_error(*every, 2).line == 1);
  CHECK(every->size() == 0);
  // Loading gives exactly one: the first.
  const auto first = load(std::vector{text});
  REQUIRE(first->error_count() == 1);
  CHECK(errors(*first) == std::vector<std::string>{"$.schema_version: must equal 4"});
  CHECK(nth_error(*first, 0).column == nth_error(*every, 0).column);
}

TEST_CASE("all errors: a missing required key keeps its suggestion after an earlier error") {
  const auto every = load(std::vector{a0().set("id", "\"Bad\"")
                                          .erase("settings.standalone")
                                          .set("settings.stanalone", "true")
                                          .text()},
                          every_error());
  REQUIRE(every->error_count() == 2);
  CHECK(nth_error(*every, 0).path == "$.id");
  CHECK(nth_error(*every, 1).path == "$.settings.standalone");
  CHECK(nth_error(*every, 1).message == "is required");
  CHECK(nth_error(*every, 1).suggestion == "did you mean `standalone` (not `stanalone`)?");
}

TEST_CASE("all errors: a rejected value's dependants are not checked, its siblings are") {
  // A member with a wrong type is not looked into.
  CHECK(errors(*load(std::vector{a0().set("settings", "\"fast\"").text()}, every_error())) ==
        std::vector<std::string>{"$.settings: must be an object"});
  // A node with an unknown type: its type-specific members are not checked, and the track naming
  // it is not "unknown node"; the other nodes and the timeline still are.
  const auto node =
      load(std::vector{a0().set("nodes.root.transform.scale", "[1,1]")
                           .set("nodes.display.type", "\"sprite\"")
                           .set("nodes.display.item_stack_snbt", "\"{\"")
                           .set("timeline.tracks.player_head.position[1].time", "\"11t\"")
                           .text()},
           every_error());
  INFO(dump(*node));
  CHECK(errors(*node) ==
        std::vector<std::string>{
            "$.nodes.root.transform.scale: must contain 3 values",
            "$.nodes.display.type: unsupported node type: sprite",
            "$.timeline.tracks.player_head.position[1].time: must be between 0t and timeline "
            "duration"});
  // A duration that failed is not compared with keyframe or event times.
  CHECK(errors(*load(std::vector{a0().set("timeline.duration", "80")
                                     .set("timeline.tracks.player_head.position[1].time", "\"11t\"")
                                     .text()},
                     every_error())) ==
        std::vector<std::string>{"$.timeline.duration: must be a string"});
  // A playback mode that failed is not held against the loop delay.
  CHECK(errors(*load(std::vector{a0().set("settings.playback.mode", "\"lop\"")
                                     .set("settings.playback.loop_delay", "\"5t\"")
                                     .text()},
                     every_error())) ==
        std::vector<std::string>{"$.settings.playback.mode: unsupported playback mode: lop"});
  // Parent cycles are looked for only once every parent is known.
  CHECK(errors(*load(std::vector{a0().set("nodes.root.parent", "\"display\"")
                                     .set("nodes.player_head.parent", "\"nobody\"")
                                     .erase("nodes.player_head.space")
                                     .text()},
                     every_error())) ==
        std::vector<std::string>{"$.nodes.player_head.parent: references unknown node"});
}

TEST_CASE("all errors: lists go on after a failed element") {
  // Events and their commands.
  const auto events = load(
      std::vector{a0().set("timeline.events.timeline",
                           R"([{"time":"0t","source":{"type":"player"},"origin":{"type":"root"},
                                "commands":["/say a","say b",""]},
                               {"time":"20t","source":{"type":"robot"},"origin":{"type":"root"},
                                "commands":[]}])")
                      .text()},
      every_error());
  CHECK(errors(*events) ==
        std::vector<std::string>{
            "$.timeline.events.timeline[0].commands[0]: must not start with /",
            "$.timeline.events.timeline[0].commands[2]: must not be blank",
            "$.timeline.events.timeline[1].time: must be before the timeline duration",
            "$.timeline.events.timeline[1].source.type: unsupported source type: robot"});
  // Sequence steps: each element, and the members of an element.
  const auto steps = load(std::vector{seq(R"([{"wait":"1s"},{"emote":"example:a","repeat":0},
                               {"emote":"example:b","transition":"x","repeat":"2"}])")
                                          .set("settings.cooldown", "\"soon\"")
                                          .text()},
                          every_error());
  const auto e = errors(*steps);
  REQUIRE(e.size() == 5);
  CHECK(e[0].starts_with("$.settings.cooldown: must be a valid Minecraft time"));
  CHECK(e[1] == "$.steps[0].wait: must be between emote steps");
  CHECK(e[2] == "$.steps[1].repeat: must be at least 1");
  CHECK(e[3] == "$.steps[2].repeat: must be an integer");
  CHECK(e[4].starts_with("$.steps[2].transition: must be a valid Minecraft time"));
  // The structure rules need only the participants and the steps.
  CHECK(errors(*load(std::vector{seq(R"([{"emote":"example:a"}])")
                                     .set("settings.cooldown", "5")
                                     .set("participants", hs_participants)
                                     .text()},
                     every_error())) ==
        std::vector<std::string>{"$.settings.cooldown: must be a string",
                                 "$.steps: participants require an await_partner step"});
  CHECK(errors(*load(std::vector{seq(R"([{"emote":"example:a","repeat":0}])")
                                     .set("participants", hs_participants)
                                     .text()},
                     every_error())) ==
        std::vector<std::string>{"$.steps[0].repeat: must be at least 1"});
  // Loading stops at the first.
  CHECK(load(std::vector{seq(R"([{"wait":"1s"},{"emote":"example:a","repeat":0}])").text()})
            ->error_count() == 1);
}

TEST_CASE("all errors: what loads, and every other diagnostic, is the same") {
  const std::vector<std::string> texts{a0().text(), a0().set("id", "\"test:two\"").text(),
                                       a0().set("id", "\"test:two\"").text()};
  const auto every = load(texts, every_error());
  const auto first = load(texts);
  CHECK(dump(*every) == dump(*first));
  CHECK(every->size() == 1);
  // JSON that does not parse has one error either way.
  CHECK(load(std::vector<std::string>{"{\"type\":"}, every_error())->error_count() == 1);
}

TEST_CASE("suggestions: an easing, an item source and a Sequence's unknown animation") {
  const auto easing =
      load(a0().set("timeline.tracks.player_head.position[0].easing", "\"ease_in_out_sin\""));
  rejected(*easing, "$.timeline.tracks.player_head.position[0].easing", "unsupported easing");
  CHECK(nth_error(*easing, 0).suggestion == "did you mean `ease_in_out_sine`?");
  const auto source =
      load(a0().erase("nodes.display.item_stack_snbt")
               .set("nodes.display.item_source", R"({"type":"participant_hnd","arm":"right"})"));
  rejected(*source, "$.nodes.display.item_source.type", "unsupported item source");
  CHECK(nth_error(*source, 0).suggestion == "did you mean `participant_hand`?");
  // Resolution: the closest id of the resolution set (none when nothing is close).
  const auto wave = anim("example:wave", 10).text();
  const auto seq_of = [](std::string_view id) {
    return seq("[{\"emote\":\"" + std::string(id) + "\"}]").text();
  };
  const auto typo = load(std::vector{wave, seq_of("example:wav")});
  rejected(*typo, "$.steps[0].emote", "Unknown or disabled animation: example:wav");
  CHECK(nth_error(*typo, 0).suggestion == "did you mean `example:wave`?");
  CHECK(nth_error(*load(std::vector{wave, seq_of("other:jump")}), 0).suggestion.empty());
  // emote.register resolves against the catalog it is given.
  const auto base = load(std::vector{wave});
  const auto r = register_document(*base, seq_of("example:wafe"));
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].suggestion == "did you mean `example:wave`?");
}
