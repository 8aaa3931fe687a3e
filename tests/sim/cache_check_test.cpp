// The caches' `check` mode (`--check-caches`, docs/guide/qa.md): a memo entry that no longer
// holds what computing gives is caught at the first hit, with its tick, session and handle; with
// the memo simply `on` the same corruption goes out unnoticed (what the check exists for).

#include "engine/core/memo.hpp"
#include "engine/playback/playback.hpp"
#include "support.hpp"

#include <string>
#include <vector>

using namespace simtest;

namespace {

/// A looping Animation whose one display moves one block along x per tick: the same matrices
/// come back every cycle, so a memo entry made in one cycle is hit in the next.
std::string ramp_loop() {
  anim_spec a;
  a.id = "t:ramp";
  a.duration = 10;
  a.mode = "loop";
  a.tracks = R"({"d0": {"position": [{"time": "0t", "value": [0, 0, 0]},)"
             R"( {"time": "10t", "value": [10, 0, 0]}]}})";
  return animation_json(a);
}

/// Every transform the frame carries, in order.
std::vector<api::transform_record> transforms(const api::frame& f) {
  std::vector<api::transform_record> out;
  for (const auto* s : all_of<api::ev_display_spawn>(f)) {
    out.push_back(s->transform);
  }
  for (const auto* u : all_of<api::ev_display_update>(f)) {
    if (u->transform) {
      out.push_back(*u->transform);
    }
  }
  return out;
}

/// One player plays the ramp; `corrupt_at`: after that many ticks one memo entry is corrupted.
/// The transforms of 40 ticks, or the mismatch a step threw.
struct outcome {
  std::vector<api::transform_record> transforms;
  std::optional<core::cache_mismatch> mismatch;
  bool corrupted = false;
};

outcome play(core::cache_mode mode, std::uint32_t slots, int corrupt_at) {
  sim::engine_config cfg;
  cfg.caches.mode = mode;
  // A size of its own: the thread's memo starts empty, so every entry is this run's.
  cfg.caches.decomposition_slots = slots;
  harness h(cfg, {ramp_loop()}, false);
  outcome o;
  REQUIRE(h.join("p", {0.5, 64, 0.5}).ok());
  REQUIRE(h.play("p", "t:ramp").ok());
  for (int t = 0; t < 40; ++t) {
    if (t == corrupt_at) {
      o.corrupted = playback::corrupt_decomposition_memo_for_test();
    }
    try {
      const auto ts = transforms(h.eng.step());
      o.transforms.insert(o.transforms.end(), ts.begin(), ts.end());
    } catch (const core::cache_mismatch& e) {
      o.mismatch = e;
      break;
    }
  }
  return o;
}

} // namespace

TEST_CASE("check caches: a corrupted memo entry stops the step with its tick, session, handle") {
  const outcome clean = play(core::cache_mode::on, 1U << 13, -1);
  REQUIRE_FALSE(clean.mismatch);
  REQUIRE(clean.transforms.size() >= 40);

  // Checked but intact: the same output, no mismatch.
  const outcome checked = play(core::cache_mode::check, 1U << 12, -1);
  CHECK_FALSE(checked.mismatch);
  CHECK(checked.transforms == clean.transforms);

  // Memos on: the corrupted entry is served as if right; the output silently differs.
  const outcome unnoticed = play(core::cache_mode::on, 1U << 11, 15);
  REQUIRE(unnoticed.corrupted);
  CHECK_FALSE(unnoticed.mismatch);
  CHECK(unnoticed.transforms.size() == clean.transforms.size());
  CHECK(unnoticed.transforms != clean.transforms);

  // Checked: the first hit of the corrupted entry stops the step and says where.
  const outcome caught = play(core::cache_mode::check, 1U << 10, 15);
  REQUIRE(caught.corrupted);
  REQUIRE(caught.mismatch);
  const core::cache_mismatch& m = *caught.mismatch;
  CHECK(m.cache == "decomposition memo");
  REQUIRE(m.tick);
  CHECK(*m.tick >= 15);
  CHECK(*m.tick <= 26); // within the next cycle of 11 ticks
  CHECK(m.session == std::optional<std::int64_t>(1));
  REQUIRE(m.handle);
  CHECK(*m.handle >= 0);
  const std::string text = m.text();
  CHECK(text.find("decomposition memo at tick " + std::to_string(*m.tick) +
                  ", session 1, handle") != std::string::npos);
}

TEST_CASE("check caches: memo sizes are validated and reported") {
  CHECK_FALSE(core::memo_slots_problem(32768));
  CHECK(core::memo_slots_problem(1000)); // not a power of two
  CHECK(core::memo_slots_problem(8));    // too small
  CHECK(core::memo_slots_problem(std::uint64_t{1} << 25));

  play(core::cache_mode::on, 1U << 9, -1);
  const core::memo_stats s = playback::decomposition_memo_stats();
  CHECK(s.slots == 512);
  CHECK(s.entries > 0);
  CHECK(s.entries <= 512);
  CHECK(s.hits > 0); // the second and later cycles
  CHECK(s.misses >= s.entries);
}
