// Compiled Sequences through the playback object: playback.md §3.4–3.6 and examples P8, P10–P12,
// P14, P19, P24, P27.

#include "fixture.hpp"

#include <cmath>
#include <limits>

using namespace emote;
using namespace fixture;
using core::space;
using content::node_type;
using content::playback_mode;

namespace {

/// A(d, mode, L) of playback.md §6 with x driven by `x` (a number or Molang).
std::shared_ptr<const content::animation> anim_x(const std::string& id, std::int64_t d, comp x,
                                                 playback_mode mode = playback_mode::once,
                                                 std::int64_t l = 0,
                                                 const std::string& node = "n") {
  anim_builder b(id, d, mode, l);
  const int n = b.node(node, node_type::item_display);
  b.position(n, 0, {x, 0, 0});
  return b.build();
}

/// Per tick from S: the x of `node`'s transform record in that frame (NaN: none), whether the
/// frame removed, visibility records and interpolation durations.
struct trace {
  std::vector<float> x;
  std::vector<std::int32_t> interp;
  std::vector<std::optional<bool>> visible;
  std::vector<bool> removed;
  std::vector<std::vector<std::string>> segments;
};

trace run(harness& h, int ticks, const std::string& node = "n") {
  trace t;
  api::handle_id id = -1;
  for (int k = 0; k < ticks; ++k) {
    const api::frame f = h.step();
    float x = std::numeric_limits<float>::quiet_NaN();
    std::int32_t interp = -1;
    std::optional<bool> vis;
    if (const auto* sp = spawn_of(f, node)) {
      id = sp->handle;
      x = x_of(sp->transform);
      interp = 0;
      vis = sp->visible;
    }
    if (const auto* up = update_of(f, id)) {
      if (up->transform) {
        x = x_of(*up->transform);
        interp = up->interpolation_duration;
      }
      vis = up->visible;
    }
    std::vector<std::string> segs;
    for (const auto* s : all_of<api::ev_segment_started>(f)) {
      segs.push_back(s->animation);
    }
    t.x.push_back(x);
    t.interp.push_back(interp);
    t.visible.push_back(vis);
    t.removed.push_back(has_remove(f));
    t.segments.push_back(segs);
  }
  return t;
}

bool none(float x) {
  return std::isnan(x);
}

} // namespace

TEST_CASE("P8 Molang sessions per segment; waits; transitions") {
  auto first_second = [] {
    anim_builder a("demo:first", 2);
    const int ra = a.node("root", node_type::anchor);
    const int da = a.node("display", node_type::item_display, ra);
    a.initialize("v.value = 1;").tick("v.value = v.value + 1;");
    a.position(da, 0, {"v.value", 0, 0});
    anim_builder b("demo:second", 2);
    const int rb = b.node("root", node_type::anchor);
    const int db = b.node("display", node_type::item_display, rb);
    b.initialize("v.value = 10;").tick("v.value = v.value + 1;");
    b.position(db, 0, {"v.value", 0, 0});
    return std::pair{a.build(), b.build()};
  };
  SUBCASE("[first, wait 1t, second]") {
    auto [a, b] = first_second();
    sequence_builder s("demo:p8");
    const int ia = s.animation(a);
    const int ib = s.animation(b);
    s.steps({emote_step({cand(a, ia)}), wait_step(1), emote_step({cand(b, ib)})});
    harness h;
    auto& pb = h.play(prepare(s.build()));
    const trace t = run(h, 6, "display");
    CHECK(t.x[0] == 2.0f);
    CHECK(t.x[1] == 3.0f);
    CHECK(t.x[2] == 4.0f);
    CHECK(t.x[3] == 11.0f);
    CHECK(t.interp[3] == 0);
    CHECK(t.x[4] == 12.0f);
    CHECK(t.removed[5]);
    CHECK_FALSE(t.removed[4]);
    CHECK(pb.finished());
    CHECK(t.segments[0] == std::vector<std::string>{"demo:first"});
    CHECK(t.segments[3] == std::vector<std::string>{"demo:second"});
  }
  SUBCASE("[first, second with transition 2t]") {
    auto [a, b] = first_second();
    sequence_builder s("demo:p8t");
    const int ia = s.animation(a);
    const int ib = s.animation(b);
    s.steps({emote_step({cand(a, ia)}), emote_step({cand(b, ib)}, 1, 2)});
    harness h;
    h.play(prepare(s.build()));
    const trace t = run(h, 7, "display");
    CHECK(t.x[2] == 11.0f);
    CHECK(t.interp[2] == 2);
    CHECK(t.segments[2] == std::vector<std::string>{"demo:second"});
    CHECK(none(t.x[3]));
    CHECK(none(t.x[4]));
    CHECK(t.x[5] == 12.0f);
    CHECK(t.interp[5] == 1);
    CHECK(t.removed[6]);
    CHECK_FALSE(t.removed[5]);
  }
}

TEST_CASE("P10 a wait holds the last pose") {
  anim_builder ab("demo:a2", 2);
  const int na = ab.node("n", node_type::item_display);
  ab.position(na, 0, {0, 0, 0}).position(na, 2, {2, 0, 0});
  anim_builder bb("demo:b3", 3);
  const int nb = bb.node("n", node_type::item_display);
  bb.position(nb, 0, {10, 0, 0}).position(nb, 3, {13, 0, 0});
  const auto a = ab.build();
  const auto b = bb.build();
  sequence_builder s("demo:p10");
  const int ia = s.animation(a);
  const int ib = s.animation(b);
  s.steps({emote_step({cand(a, ia)}), wait_step(5), emote_step({cand(b, ib)})});
  harness h;
  h.play(prepare(s.build()));
  const trace t = run(h, 11);
  CHECK(t.x[0] == 0.0f);
  CHECK(t.x[1] == 1.0f);
  CHECK(t.x[2] == 2.0f);
  for (int k = 3; k <= 6; ++k) {
    CHECK(none(t.x[static_cast<std::size_t>(k)]));
  }
  CHECK(t.x[7] == 10.0f);
  CHECK(t.interp[7] == 0);
  CHECK(t.x[8] == 11.0f);
  CHECK(t.x[9] == 12.0f);
  CHECK(t.removed[10]);
}

TEST_CASE("P11 re-timed timeline events and loop delays between repetitions") {
  anim_builder eb("demo:enter", 2);
  eb.node("n", node_type::item_display);
  anim_builder ib("demo:idle", 3, playback_mode::loop, 2);
  ib.node("n", node_type::item_display);
  ib.event(anim_builder::group::timeline, 2, {"say idle"});
  const auto enter = eb.build();
  const auto idle = ib.build();
  sequence_builder s("demo:p11");
  const int ie = s.animation(enter);
  const int ii = s.animation(idle);
  s.steps({emote_step({cand(enter, ie)}), emote_step({cand(idle, ii)}, 2)});
  harness h;
  h.play(prepare(s.build()));
  std::vector<int> cmd_ticks;
  std::vector<int> seg_ticks;
  for (int k = 0; k <= 10; ++k) {
    const api::frame f = h.step();
    if (!commands_of(f).empty()) {
      cmd_ticks.push_back(k);
    }
    if (!all_of<api::ev_segment_started>(f).empty()) {
      seg_ticks.push_back(k);
    }
    if (k == 10) {
      CHECK(has_remove(f));
    }
  }
  CHECK(cmd_ticks == std::vector<int>{4, 9});
  CHECK(seg_ticks == std::vector<int>{0, 2, 7});
}

TEST_CASE("P12 union handles, hidden sets, equal selection with exclusion") {
  anim_builder fb("demo:first", 1);
  fb.node("flower", node_type::text_display, -1, core::space::scene, {2, 0, 0});
  anim_builder bb("demo:second", 1);
  bb.node("butterfly", node_type::text_display, -1, core::space::scene, {8, 0, 0});
  const auto first = fb.build();
  const auto second = bb.build();
  sequence_builder s("demo:p12");
  const int i1 = s.animation(first);
  const int i2 = s.animation(second);
  s.steps({emote_step({cand(first, i1), cand(second, i2)}, 2)});
  playback::scripted_int_source draws({0, 0});
  harness h;
  h.play(prepare(s.build()), &draws);
  const api::frame s0 = h.step();
  const auto* flower = spawn_of(s0, "flower");
  const auto* butterfly = spawn_of(s0, "butterfly");
  REQUIRE(flower != nullptr);
  REQUIRE(butterfly != nullptr);
  CHECK(flower->handle < butterfly->handle);
  CHECK(x_of(flower->transform) == 2.0f);
  CHECK(x_of(butterfly->transform) == 8.0f);
  CHECK_FALSE(flower->visible);
  CHECK_FALSE(butterfly->visible);
  const api::frame s1 = h.step();
  CHECK(update_of(s1, flower->handle) == nullptr);
  REQUIRE(update_of(s1, butterfly->handle) != nullptr);
  CHECK(update_of(s1, butterfly->handle)->visible == std::optional<bool>(true));
  const api::frame s2 = h.step();
  CHECK(has_remove(s2));
  CHECK(all_of<api::ev_display_remove>(s2)[0]->handles.size() == 2);
  CHECK(draws.bounds() == std::vector<std::int32_t>{2, 1});
}

TEST_CASE("P14 two Animations sharing a node: one handle, duration 2") {
  anim_builder ab("demo:a", 1);
  ab.node("text", node_type::text_display, -1, core::space::scene, {2, 0, 0});
  anim_builder bb("demo:b", 1);
  bb.node("text", node_type::text_display, -1, core::space::scene, {8, 0, 0});
  const auto a = ab.build();
  const auto b = bb.build();
  sequence_builder s("demo:p14");
  const int ia = s.animation(a);
  const int ib = s.animation(b);
  s.steps({emote_step({cand(a, ia)}), emote_step({cand(b, ib)})});
  const auto emote = prepare(s.build());
  CHECK(emote->handle_count() == 1);
  harness h;
  h.play(emote);
  const trace t = run(h, 3, "text");
  CHECK(t.x[0] == 2.0f);
  CHECK(t.x[1] == 8.0f);
  CHECK(t.removed[2]);
}

TEST_CASE("P19 nothing selected: hidden, removed at S+1") {
  const auto a = anim_x("demo:a2", 2, 5);
  sequence_builder s("demo:p19");
  const int ia = s.animation(a);
  s.steps({emote_step({continue_cand(), cand(a, ia)})});
  playback::scripted_int_source draws({0});
  harness h;
  h.play(prepare(s.build()), &draws);
  const trace t = run(h, 2);
  CHECK(t.visible[0] == std::optional<bool>(false));
  CHECK_FALSE(t.visible[1].has_value());
  CHECK(t.removed[1]);
  CHECK(t.segments[0].empty());
}

TEST_CASE("P24 waits, loop delays, transitions and hideAllAt0") {
  const auto a = anim_x("demo:a", 2, "q.anim_time_ticks + 1", playback_mode::loop, 2);
  sequence_builder s("demo:p24");
  const int ia = s.animation(a);
  auto skip = [&] { return emote_step({continue_cand(), cand(a, ia)}); };
  s.steps({skip(), wait_step(2), emote_step({cand(a, ia)}, 2, 1), wait_step(3), skip()});
  playback::scripted_int_source draws({0, 0});
  harness h;
  auto& pb = h.play(prepare(s.build()), &draws);
  const trace t = run(h, 13);
  CHECK(t.visible[0] == std::optional<bool>(false)); // all hidden from S
  CHECK_FALSE(t.visible[1].has_value());             // still hidden after the release
  CHECK(t.x[2] == 1.0f);                             // S+2 segment 1: no transition
  CHECK(t.interp[2] == 0);
  CHECK(t.visible[2] == std::optional<bool>(true));
  CHECK(t.x[3] == 2.0f);
  CHECK(t.x[4] == 3.0f); // final frame shown at S+4 …
  CHECK(none(t.x[5]));   // … and held
  CHECK(t.x[6] == 1.0f); // S+6 transition entry: fresh session, interp 1
  CHECK(t.interp[6] == 1);
  CHECK(t.segments[6] == std::vector<std::string>{"demo:a"});
  CHECK(none(t.x[7])); // S+7 segment start: same pose, nothing sent
  CHECK(t.x[8] == 2.0f);
  CHECK(t.x[9] == 3.0f);
  CHECK(none(t.x[10]));
  CHECK(none(t.x[11]));
  CHECK(t.removed[12]);
  CHECK(pb.finished());
}

TEST_CASE("P27 repeat of a once Animation: every repetition a fresh cycle, no draws") {
  const auto a = anim_x("demo:a", 2, "q.anim_time_ticks");
  sequence_builder s("demo:p27");
  const int ia = s.animation(a);
  s.steps({emote_step({cand(a, ia)}, 2)});
  playback::scripted_int_source draws({});
  harness h;
  h.play(prepare(s.build()), &draws);
  const trace t = run(h, 5);
  CHECK(t.x[0] == 0.0f);
  CHECK(t.x[1] == 1.0f);
  CHECK(t.x[2] == 0.0f);
  CHECK(t.interp[2] == 0);
  CHECK(t.x[3] == 1.0f);
  CHECK(t.removed[4]);
  CHECK(draws.bounds().empty());
}

TEST_CASE("rotation_deadzone in effect follows the segment last entered") {
  anim_builder ab("demo:dz10", 2);
  ab.deadzone(10);
  ab.node("n", node_type::item_display);
  anim_builder bb("demo:dz90", 2);
  bb.deadzone(90);
  bb.node("n", node_type::item_display);
  const auto a = ab.build();
  const auto b = bb.build();
  sequence_builder s("demo:dz");
  const int ia = s.animation(a);
  const int ib = s.animation(b);
  s.steps({wait_step(1), emote_step({cand(a, ia)}), wait_step(1), emote_step({cand(b, ib)})});
  harness h;
  auto& pb = h.play(prepare(s.build()));
  CHECK(pb.rotation_deadzone() == 10.0); // the layout anchor's before any segment
  h.step();
  h.step(); // T 1: a entered
  CHECK(pb.rotation_deadzone() == 10.0);
  h.step();
  h.step(); // T 3: wait: a stays in effect
  CHECK(pb.rotation_deadzone() == 10.0);
  h.step(); // T 4: b entered
  CHECK(pb.rotation_deadzone() == 90.0);
}

TEST_CASE("segment.started records carry step, repeat and branch") {
  const auto a = anim_x("demo:a", 1, 0);
  sequence_builder s("demo:segs");
  const int ia = s.animation(a);
  s.steps({emote_step({cand(a, ia)}), wait_step(1), emote_step({continue_cand(), cand(a, ia)}, 3)});
  playback::scripted_int_source draws({0, 1, 1});
  harness h;
  h.play(prepare(s.build()), &draws);
  std::vector<std::pair<std::int32_t, std::int64_t>> seen;
  for (int k = 0; k < 6; ++k) {
    const api::frame f = h.step();
    for (const auto* r : all_of<api::ev_segment_started>(f)) {
      seen.emplace_back(r->step, r->repeat);
      CHECK(r->branch == api::branch::main);
      CHECK(r->session == 1);
    }
  }
  CHECK(seen == std::vector<std::pair<std::int32_t, std::int64_t>>{{0, 0}, {2, 1}, {2, 2}});
}
