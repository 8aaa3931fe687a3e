#pragma once
// Test harness for the content suites: the base documents of formats.md §7 (A0, S0, HS, A(D,
// mode, L)), edits by path, and loading through the real pipeline.

#include "engine/content/error_modes.hpp"
#include "engine/content/loader.hpp"
#include "engine/json/source_reader.hpp"
#include "engine/json/writer.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace content_test {

using namespace emote::content;
using namespace emote::json;

inline constexpr std::string_view a0_text =
    R"json({"type":"animation","schema_version":4,"id":"test:base","metadata":{"name":"Base","description":""},
 "settings":{"standalone":true,"cooldown":"0t","rotation_deadzone":50,
  "player":{"hidden":true,"stop_conditions":{"movement_distance":0.1,"jump":true,"submerge":true,
   "ride":true,"damage":true,"attack":true,"game_mode_change":true}},
  "playback":{"mode":"once","loop_delay":"0t"}},
 "nodes":{
  "root":{"type":"anchor","space":"scene","transform":{"position":[1,0,0],"rotation":[0,0,0],"scale":[1,1,1]}},
  "display":{"type":"item_display","parent":"root","item_stack_snbt":"{id:\"minecraft:stone\"}",
   "item_display":"none","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}},
  "player_head":{"type":"item_display","space":"initiator","item_stack_snbt":"{id:\"minecraft:player_head\"}",
   "item_display":"head","skin":{"part":"head","order":0},
   "transform":{"position":[0,1.5,0],"rotation":[0,0,0],"scale":[1,1,1]}}},
 "timeline":{"duration":"10t",
  "tracks":{"player_head":{"position":[{"time":"0t","value":[0,0,0],"easing":"ease_in_out_sine"},
                                        {"time":"10t","value":[0,1,0]}]},
            "display":{"rotation":[{"time":"0t","value":[0,"q.anim_time * 90",0]}]}},
  "events":{"timeline":[{"time":"0t","source":{"type":"player"},"origin":{"type":"root"},"commands":["say hi"]}]}}})json";

inline constexpr std::string_view player_text =
    R"json({"hidden":true,"stop_conditions":{"movement_distance":0.1,"jump":true,"submerge":true,"ride":true,"damage":true,"attack":true,"game_mode_change":true}})json";

/// A JSON document that tests edit by path.
class doc {
public:
  explicit doc(std::string_view text) {
    auto r = parse_source(text);
    REQUIRE_MESSAGE(r.ok, r.error.message);
    root_ = std::move(r.root);
  }

  /// Set the value at a dotted path (`a.b[2].c`); missing members are appended.
  doc& set(std::string_view path, std::string_view json) {
    auto r = parse_source(json);
    REQUIRE_MESSAGE(r.ok, json);
    locate(path, true) = std::move(r.root);
    return *this;
  }
  /// Remove the member at a dotted path.
  doc& erase(std::string_view path) {
    const auto dot = path.rfind('.');
    auto& parent = dot == std::string_view::npos ? root_ : locate(path.substr(0, dot), false);
    const auto key = dot == std::string_view::npos ? path : path.substr(dot + 1);
    auto& members = parent.as_object();
    for (auto it = members.begin(); it != members.end(); ++it) {
      if (it->key == key) {
        members.erase(it);
        return *this;
      }
    }
    FAIL("no member " << path);
    return *this;
  }
  /// The document as JSON. The strings "@NaN@", "@Infinity@" and "@-Infinity@" become the
  /// dialect's non-finite literals (the compact writer would print null).
  [[nodiscard]] std::string text() const {
    std::string t = to_json(root_);
    for (const auto& [from, to] :
         {std::pair<std::string_view, std::string_view>{"\"@NaN@\"", "NaN"},
          {"\"@Infinity@\"", "Infinity"},
          {"\"@-Infinity@\"", "-Infinity"}}) {
      for (auto at = t.find(from); at != std::string::npos; at = t.find(from, at)) {
        t.replace(at, from.size(), to);
      }
    }
    return t;
  }
  json_value& root() { return root_; }

private:
  json_value& locate(std::string_view path, bool create) {
    json_value* v = &root_;
    std::size_t i = 0;
    while (i < path.size()) {
      if (path[i] == '.') {
        ++i;
      }
      if (path[i] == '[') {
        const auto close = path.find(']', i);
        const auto index = std::stoul(std::string(path.substr(i + 1, close - i - 1)));
        REQUIRE(v->is_array());
        REQUIRE(index < v->as_array().size());
        v = &v->as_array()[index];
        i = close + 1;
        continue;
      }
      auto end = path.find_first_of(".[", i);
      if (end == std::string_view::npos) {
        end = path.size();
      }
      const auto key = path.substr(i, end - i);
      i = end;
      REQUIRE_MESSAGE(v->is_object(), key);
      json_value* next = nullptr;
      for (auto& m : v->as_object()) {
        if (m.key == key) {
          next = &m.value;
        }
      }
      if (next == nullptr) {
        REQUIRE_MESSAGE(create, "no member " << key);
        v->as_object().push_back(json_member{std::string(key), json_value()});
        next = &v->as_object().back().value;
        if (i < path.size()) {
          next->set_object();
        }
      }
      v = next;
    }
    return *v;
  }

  json_value root_;
};

inline doc a0() {
  return doc(a0_text);
}

/// A(D, mode[, L]): A0's settings with that mode and loop delay, duration D, a single anchor
/// `root` in initiator space, no tracks or events.
inline doc anim(std::string_view id, int duration, std::string_view mode = "once", int loop = 0) {
  doc d(a0_text);
  d.set("id", "\"" + std::string(id) + "\"");
  d.set("settings.playback.mode", "\"" + std::string(mode) + "\"");
  d.set("settings.playback.loop_delay", "\"" + std::to_string(loop) + "t\"");
  d.set(
      "nodes",
      R"({"root":{"type":"anchor","space":"initiator","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}}})");
  d.set("timeline", "{\"duration\":\"" + std::to_string(duration) + "t\",\"tracks\":{}}");
  return d;
}

/// S0 with the given steps.
inline doc seq(std::string_view steps, std::string_view id = "example:sit") {
  doc d(R"({"type":"sequence","schema_version":4,"id":"example:sit",
    "metadata":{"name":"Sit","description":"Sit sequence","credit":"author"},
    "settings":{"cooldown":"5s","player":{}},"steps":[{"emote":"example:sit_down"}]})");
  d.set("settings.player", player_text);
  d.set("steps", steps);
  d.set("id", "\"" + std::string(id) + "\"");
  return d;
}

inline constexpr std::string_view hs_participants =
    R"({"initiator":{"position":"~ ~ ~","rotation":"~ 0"},"partner":{"position":"^ ^ ^1.2","rotation":"~180 0"}})";

/// HS, or HS(X) when `x` is given.
inline doc hs(std::string_view x = {}) {
  doc d = seq(R"([{"await_partner":{"emote":"example:handshake_offer","timeout":"3s"},
    "matched":[{"emote":["example:handshake_left","example:handshake_right"],"repeat":3}],
    "timeout":[{"emote":"example:handshake_withdraw"}]}])");
  d.set("participants", hs_participants);
  if (!x.empty()) {
    const std::string q = "\"" + std::string(x) + "\"";
    d.set("steps[0].await_partner.emote", q);
    d.set("steps[0].matched", "[{\"emote\":" + q + "}]");
    d.set("steps[0].timeout", "[{\"emote\":" + q + "}]");
  }
  return d;
}

/// Load documents as files named f0.json, f1.json, ... (in that order). Every load also checks
/// that `check`'s mode (every error) reports what loading reports, each file's first error equal
/// to the loader's one, and registers the same emotes.
inline std::shared_ptr<const catalog> load(const std::vector<std::string>& texts,
                                           const load_options& options = {}) {
  std::vector<memory_file> files;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    files.push_back(memory_file{"f" + std::to_string(i) + ".json", texts[i]});
  }
  if (!options.all_errors) {
    load_options all = options;
    all.all_errors = true;
    const auto first = load_files(files, options);
    const auto every = load_files(files, all);
    CHECK_MESSAGE(diagnostics_text(first_errors_only(every->diagnostics())) ==
                      diagnostics_text(first->diagnostics()),
                  "check's first errors differ from loading's:\n"
                      << diagnostics_text(every->diagnostics()) << "loading:\n"
                      << diagnostics_text(first->diagnostics()));
    CHECK(every->size() == first->size());
    return first;
  }
  return load_files(std::move(files), options);
}
inline std::shared_ptr<const catalog> load(const doc& d) {
  return load(std::vector{d.text()});
}

inline std::string dump(const catalog& c) {
  std::string out;
  for (const auto& d : c.diagnostics()) {
    out += emote::core::format_diagnostic(d);
    out += '\n';
  }
  return out;
}

/// No errors (warnings allowed).
inline void accepted(const catalog& c) {
  INFO(dump(c));
  CHECK(c.error_count() == 0);
}

/// Exactly one error, at `path`, whose message starts with `gist`.
inline void rejected(const catalog& c, std::string_view path, std::string_view gist) {
  INFO(dump(c));
  REQUIRE(c.error_count() == 1);
  for (const auto& d : c.diagnostics()) {
    if (d.severity == emote::core::severity::error) {
      CHECK(d.path == path);
      CHECK_MESSAGE(d.message.rfind(gist, 0) == 0, d.message);
    }
  }
}

/// The warnings of a catalog as "path: message" lines.
inline std::vector<std::string> warnings(const catalog& c) {
  std::vector<std::string> w;
  for (const auto& d : c.diagnostics()) {
    if (d.severity == emote::core::severity::warning) {
      w.push_back(d.path + ": " + d.message);
    }
  }
  return w;
}

} // namespace content_test
