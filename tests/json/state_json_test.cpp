// The state traversal's two sinks (core/state_digest.hpp, json/state_json.hpp): the digest
// depends on every key, value and the nesting; the JSON dump reads back and two dumps diff by
// path (protocol.md §8 state digests and dumps).
#include "engine/core/state_digest.hpp"
#include "engine/json/state_json.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <string>

using namespace emote;

namespace {

// A small state: one player with a position, a cooldown, a list.
void walk(core::state_sink& s, double y, std::int64_t ready, std::string_view emote = "t:cool") {
  s.begin_object("");
  s.i64("tick", 7);
  s.begin_map("players");
  s.begin_object("alice");
  s.begin_list("position");
  s.f64("", 0.5);
  s.f64("", y);
  s.f64("", 0.5);
  s.end_list();
  s.f32("yaw", 90.0F);
  s.boolean("alive", true);
  s.null("vehicle");
  s.end_object();
  s.end_object();
  s.begin_map("cooldowns");
  s.begin_map("alice");
  s.begin_object(emote);
  s.i64("ready", ready);
  s.u64("rng", 0xFFFF'FFFF'FFFFULL);
  s.end_object();
  s.end_object();
  s.end_object();
  s.str("note", "a \"quoted\" name");
  s.end_object();
}

std::uint64_t digest(const std::function<void(core::state_sink&)>& f) {
  core::state_hasher h;
  f(h);
  return h.digest();
}

std::string dump(const std::function<void(core::state_sink&)>& f) {
  std::string out;
  json::state_json j(out);
  f(j);
  return out;
}

} // namespace

TEST_CASE("state digest: the same traversal gives the same digest; any value, key or nesting "
          "change gives another") {
  const auto base = digest([](auto& s) { walk(s, 64, 41); });
  CHECK(base == digest([](auto& s) { walk(s, 64, 41); }));
  CHECK(base != digest([](auto& s) { walk(s, 65, 41); }));
  CHECK(base != digest([](auto& s) { walk(s, 64, 42); }));
  CHECK(base != digest([](auto& s) { walk(s, 64, 41, "t:wave"); }));
  CHECK(base != digest([](auto& s) { walk(s, -0.0 + 64.0000001, 41); }));
  // Structure counts: the same values under other map keys or nesting differ.
  const auto in_map = [](std::string_view k1, std::string_view k2) {
    return [=](core::state_sink& s) {
      s.begin_map("");
      s.i64(k1, 1);
      s.i64(k2, 2);
      s.end_object();
    };
  };
  const auto a = digest(in_map("a", "b"));
  const auto b = digest(in_map("b", "a"));
  const auto c = digest([](auto& s) {
    s.begin_object("");
    s.begin_list("a");
    s.i64("", 1);
    s.i64("", 2);
    s.end_list();
    s.end_object();
  });
  const auto d = digest([](auto& s) {
    s.begin_map("");
    s.begin_object_id(1);
    s.end_object();
    s.end_object();
  });
  const auto e = digest([](auto& s) {
    s.begin_map("");
    s.begin_object_id(2);
    s.end_object();
    s.end_object();
  });
  CHECK(a != b);
  CHECK(a != c);
  CHECK(d != e);
  // A record's field names are the code's, not data: they are not mixed.
  const auto record = [](std::string_view k1, std::string_view k2) {
    return [=](core::state_sink& s) {
      s.begin_object("");
      s.i64(k1, 1);
      s.i64(k2, 2);
      s.end_object();
    };
  };
  CHECK(digest(record("a", "b")) == digest(record("x", "y")));
  CHECK(core::state_digest_hex(0x0123456789abcdefULL) == "0123456789abcdef");
  CHECK(core::state_digest_hex(1) == "0000000000000001");
}

TEST_CASE("state dump: the traversal as compact JSON") {
  CHECK(dump([](auto& s) { walk(s, 64, 41); }) ==
        R"({"tick":7,"players":{"alice":{"position":[0.5,64,0.5],"yaw":90,"alive":true,)"
        R"("vehicle":null}},"cooldowns":{"alice":{"t:cool":{"ready":41,"rng":281474976710655}}},)"
        R"("note":"a \"quoted\" name"})");
}

TEST_CASE("state diff: the differing leaves by path, recorded against replayed") {
  const std::string a = dump([](auto& s) { walk(s, 64, 41); });
  const std::string b = dump([](auto& s) { walk(s, 65, 42); });
  CHECK(json::describe_state_diff(a, a, "recorded", "replayed").empty());
  CHECK(json::describe_state_diff(a, b, "recorded", "replayed") ==
        "  cooldowns.alice[\"t:cool\"].ready: recorded 41, replayed 42\n"
        "  players.alice.position[1]: recorded 64, replayed 65\n");
  // Members only on one side, and the cut.
  const std::string c = dump([](auto& s) { walk(s, 64, 41, "t:wave"); });
  CHECK(json::describe_state_diff(a, c, "A", "B") ==
        "  cooldowns.alice[\"t:cool\"].ready: A 41, B (absent)\n"
        "  cooldowns.alice[\"t:cool\"].rng: A 281474976710655, B (absent)\n"
        "  cooldowns.alice[\"t:wave\"].ready: A (absent), B 41\n"
        "  cooldowns.alice[\"t:wave\"].rng: A (absent), B 281474976710655\n");
  std::size_t total = 0;
  CHECK(json::diff_states(a, c, 1, &total).size() == 1);
  CHECK(total == 4);
  CHECK(json::describe_state_diff(a, c, "A", "B", 1).ends_with("  ... and 3 more\n"));
  // An unreadable dump is said to be one.
  CHECK(json::describe_state_diff(a, "{", "A", "B") == "  (dump): A (readable), B (unreadable)\n");
}
