// Sequence selection and compilation (playback.md §3.1–3.4, §3.7; examples P11, P15–P19,
// P24–P27) on hand-built step lists.

#include "engine/playback/segments.hpp"
#include "engine/playback/selection.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace emote;
using namespace emote::playback;

namespace {

content::candidate anim(std::int32_t index, std::int32_t weight = 0) {
  content::candidate c;
  c.id = "demo:a" + std::to_string(index);
  c.kind = content::candidate_kind::animation;
  c.animation_index = index;
  c.weight = weight;
  return c;
}
content::candidate cont(std::int32_t weight = 0) {
  content::candidate c;
  c.id = "emote:continue";
  c.kind = content::candidate_kind::continue_repeat;
  c.weight = weight;
  return c;
}
content::candidate brk(std::int32_t weight = 0) {
  content::candidate c;
  c.id = "emote:break";
  c.kind = content::candidate_kind::break_repeat;
  c.weight = weight;
  return c;
}
content::step emote_step(std::vector<content::candidate> cands, std::int32_t repeat = 1,
                         std::int64_t transition = 0, bool weighted = false) {
  content::step s;
  s.kind = content::step_kind::emote;
  s.candidates = std::move(cands);
  s.repeat = repeat;
  s.transition = core::ticks(transition);
  s.weighted = weighted;
  return s;
}
content::step wait_step(std::int64_t ticks) {
  content::step s;
  s.kind = content::step_kind::wait;
  s.wait = core::ticks(ticks);
  return s;
}

std::vector<selection_item> all_items(const std::vector<content::step>& steps, int_source& src) {
  selection_cursor cur(steps);
  std::vector<selection_item> out;
  while (auto it = cur.next(src)) {
    out.push_back(*it);
  }
  return out;
}

std::vector<segment> all_segments(segment_compiler& c, int_source& src) {
  std::vector<segment> out;
  while (auto s = c.next(src)) {
    out.push_back(*s);
  }
  return out;
}

} // namespace

TEST_CASE("session generators: G = Random(seed + k), selection = Random(G.nextLong())") {
  const session_generators g = make_session_generators(5, 3);
  core::java_random expect_g(8);
  const std::int64_t s = expect_g.next_long();
  core::java_random expect_sel(s);
  core::java_random sel = g.selection;
  core::java_random ses = g.session;
  CHECK(sel.next_int(1000) == expect_sel.next_int(1000));
  CHECK(ses.next_long() == expect_g.next_long()); // G has already given its first nextLong
  // 64-bit wrapping addition.
  const session_generators w = make_session_generators(INT64_MAX, 1);
  core::java_random expect_w(INT64_MIN);
  CHECK(core::java_random(w.session).next_int() != 0);
  core::java_random ww = w.session;
  expect_w.next_long();
  CHECK(ww.next_int() == expect_w.next_int());
}

TEST_CASE("P15 three equal candidates, repeat 20, Random(7)") {
  const std::vector<content::step> steps{emote_step({anim(0), anim(1), anim(2)}, 20)};
  struct recording final : int_source {
    core::java_random rng{7};
    std::vector<std::int32_t> bounds;
    std::int32_t next_int(std::int32_t b) override {
      bounds.push_back(b);
      return rng.next_int(b);
    }
  } src;
  const auto items = all_items(steps, src);
  const std::vector<int> expect{1, 2, 1, 0, 1, 0, 2, 1, 2, 1, 0, 2, 0, 1, 2, 1, 0, 2, 1, 0};
  REQUIRE(items.size() == expect.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    CAPTURE(i);
    CHECK(items[i].candidate == expect[i]);
    CHECK(items[i].repeat == static_cast<std::int64_t>(i));
    CHECK(items[i].loop_delay_after == (i + 1 < items.size()));
  }
  REQUIRE(src.bounds.size() == 20);
  CHECK(src.bounds[0] == 3);
  for (std::size_t i = 1; i < src.bounds.size(); ++i) {
    CHECK(src.bounds[i] == 2);
  }
}

TEST_CASE("P16 weights 10/20/70, scripted draws 15, 0, 89") {
  const std::vector<content::step> steps{
      emote_step({anim(0, 10), anim(1, 20), anim(2, 70)}, 3, 0, true)};
  scripted_int_source src({15, 0, 89});
  const auto items = all_items(steps, src);
  REQUIRE(items.size() == 3);
  CHECK(items[0].candidate == 1);
  CHECK(items[1].candidate == 0);
  CHECK(items[2].candidate == 2);
  CHECK(src.bounds() == std::vector<std::int32_t>{100, 80, 90});
}

TEST_CASE("pick: equal exclusion maps j >= ex to j + 1; controls are never excluded") {
  const std::vector<content::candidate> c{anim(0), anim(1), cont(), anim(2)};
  scripted_int_source src({0, 1, 2});
  CHECK(pick_candidate(c, false, 1, src) == 0);
  CHECK(pick_candidate(c, false, 1, src) == 2);
  CHECK(pick_candidate(c, false, 1, src) == 3);
  CHECK(src.bounds() == std::vector<std::int32_t>{3, 3, 3});
  scripted_int_source none({});
  const std::vector<content::candidate> one{anim(4)};
  CHECK(pick_candidate(one, false, -1, none) == 0);
  CHECK(none.bounds().empty());
}

TEST_CASE("P17 loop Animation with continue and break, loop delay only between Anims of a step") {
  // loop = A(2, loop, L 4) at index 0; finish = A(3) at index 1.
  const std::vector<content::step> steps{emote_step({anim(0), cont(), brk()}, 6),
                                         emote_step({anim(1)})};
  const std::vector<animation_timing> timing{{2, true, 4}, {3, false, 0}};
  scripted_int_source src({0, 1, 0, 2});
  segment_compiler comp(steps, false, timing);
  const auto segs = all_segments(comp, src);
  REQUIRE(segs.size() == 3);
  CHECK(segs[0].t_start == 0);
  CHECK(segs[0].end == 2);
  CHECK(segs[0].repeat == 0);
  CHECK(segs[1].t_start == 6);
  CHECK(segs[1].start == 6);
  CHECK(segs[1].end == 8);
  CHECK(segs[1].repeat == 2);
  CHECK(segs[2].animation == 1);
  CHECK(segs[2].t_start == 8);
  CHECK(segs[2].end == 11);
  CHECK(segs[2].step == 1);
  CHECK(comp.exhausted());
  CHECK(comp.duration() == 11);
  CHECK_FALSE(comp.hide_all_at_0());
  CHECK(src.bounds() == std::vector<std::int32_t>{3, 3, 3, 3});
}

TEST_CASE("P18 [only, continue] repeat 3 with draws 0, 0, 0 gives three segments") {
  const std::vector<content::step> steps{emote_step({anim(0), cont()}, 3)};
  const std::vector<animation_timing> timing{{1, false, 0}};
  scripted_int_source src({0, 0, 0});
  segment_compiler comp(steps, false, timing);
  const auto segs = all_segments(comp, src);
  REQUIRE(segs.size() == 3);
  CHECK(comp.duration() == 3);
  CHECK(src.bounds() == std::vector<std::int32_t>{2, 2, 2});
}

TEST_CASE("P19 nothing selected: duration 1, everything hidden") {
  const std::vector<content::step> steps{emote_step({cont(), anim(0)}, 1)};
  const std::vector<animation_timing> timing{{2, false, 0}};
  scripted_int_source src({0});
  segment_compiler comp(steps, false, timing);
  CHECK_FALSE(comp.next(src).has_value());
  CHECK(comp.hide_all_at_0());
  CHECK(comp.duration() == 1);
}

TEST_CASE("P11 loop delay between repetitions of a loop Animation") {
  // enter = A(2, once) index 0; idle = A(3, loop, L 2) index 1.
  const std::vector<content::step> steps{emote_step({anim(0)}), emote_step({anim(1)}, 2)};
  const std::vector<animation_timing> timing{{2, false, 0}, {3, true, 2}};
  scripted_int_source src({});
  segment_compiler comp(steps, false, timing);
  const auto segs = all_segments(comp, src);
  REQUIRE(segs.size() == 3);
  CHECK(segs[0].t_start == 0);
  CHECK(segs[1].t_start == 2);
  CHECK(segs[2].t_start == 7);
  CHECK(comp.duration() == 10);
  CHECK(src.bounds().empty());
}

TEST_CASE("P24 transitions after the first pose, loop delays, hideAllAt0") {
  // skip = [continue, A(2, loop, L 2)] repeat 1 with draws 0; A = index 0.
  const std::vector<content::step> steps{emote_step({cont(), anim(0)}), wait_step(2),
                                         emote_step({anim(0)}, 2, 1), wait_step(3),
                                         emote_step({cont(), anim(0)})};
  const std::vector<animation_timing> timing{{2, true, 2}};
  scripted_int_source src({});
  segment_compiler comp(steps, false, timing);
  const auto segs = all_segments(comp, src);
  REQUIRE(segs.size() == 2);
  CHECK(comp.hide_all_at_0());
  CHECK(segs[0].t_start == 2);
  CHECK(segs[0].start == 2); // no transition before the first pose
  CHECK(segs[0].end == 4);
  CHECK(segs[1].t_start == 6);
  CHECK(segs[1].start == 7);
  CHECK(segs[1].end == 9);
  CHECK(segs[1].repeat == 1);
  CHECK(segs[1].step == 2);
  CHECK(comp.duration() == 12);
}

TEST_CASE("branch lists transition from the offer pose (havePose)") {
  const std::vector<content::step> steps{emote_step({anim(0)}, 1, 5)};
  const std::vector<animation_timing> timing{{1, false, 0}};
  scripted_int_source src({});
  segment_compiler comp(steps, true, timing);
  const auto segs = all_segments(comp, src);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].t_start == 0);
  CHECK(segs[0].start == 5);
  CHECK(comp.duration() == 6);
}

TEST_CASE("P25 break after one segment; P26 waits only; P27 repeat without draws") {
  {
    const std::vector<content::step> steps{emote_step({cont(), anim(0), brk()}, 4)};
    const std::vector<animation_timing> timing{{2, false, 0}};
    scripted_int_source src({0, 1, 2});
    segment_compiler comp(steps, false, timing);
    const auto segs = all_segments(comp, src);
    REQUIRE(segs.size() == 1);
    CHECK(segs[0].repeat == 1);
    CHECK(comp.duration() == 2);
    CHECK(src.bounds().size() == 3);
  }
  {
    const std::vector<content::step> steps{emote_step({cont(), anim(0)}), wait_step(2),
                                           emote_step({cont(), anim(0)}), wait_step(3),
                                           emote_step({cont(), anim(0)})};
    const std::vector<animation_timing> timing{{2, false, 0}};
    scripted_int_source src({});
    segment_compiler comp(steps, false, timing);
    CHECK(all_segments(comp, src).empty());
    CHECK(comp.duration() == 5);
    CHECK(comp.hide_all_at_0());
  }
  {
    const std::vector<content::step> steps{emote_step({cont(), anim(0)})};
    const std::vector<animation_timing> timing{{2, false, 0}};
    scripted_int_source src({});
    segment_compiler comp(steps, false, timing);
    CHECK(all_segments(comp, src).empty());
    CHECK(comp.duration() == 1);
  }
  {
    const std::vector<content::step> steps{emote_step({anim(0)}, 2)};
    const std::vector<animation_timing> timing{{2, false, 0}};
    scripted_int_source src({});
    segment_compiler comp(steps, false, timing);
    const auto segs = all_segments(comp, src);
    REQUIRE(segs.size() == 2);
    CHECK(segs[1].t_start == 2);
    CHECK(comp.duration() == 4);
    CHECK(src.bounds().empty());
  }
}

TEST_CASE("repeat 2147483647: lazy, O(1) per item, no per-repetition iteration") {
  const std::vector<content::step> steps{emote_step({anim(0)}, 2147483647),
                                         emote_step({cont()}, 2147483647), emote_step({anim(1)})};
  const std::vector<animation_timing> timing{{1, true, 3}, {2, false, 0}};
  scripted_int_source src({});
  segment_compiler comp(steps, false, timing);
  // The first thousand segments come out in O(1) each.
  std::int64_t expect_start = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto s = comp.next(src);
    REQUIRE(s.has_value());
    CHECK(s->t_start == expect_start);
    CHECK(s->repeat == i);
    expect_start += 1 + 3;
  }
  CHECK_FALSE(comp.exhausted());
  CHECK(src.bounds().empty());
}
