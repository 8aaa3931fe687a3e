// Standalone Animations: playback.md §1–§2, §4–§5 and examples P1–P7, P28–P30.

#include "fixture.hpp"

#include "engine/core/snbt.hpp"
#include "engine/math/matrix.hpp"
#include "engine/math/quat.hpp"

#include <bit>
#include <cmath>

using namespace emote;
using namespace fixture;
using core::space;
using content::node_type;
using content::playback_mode;

namespace {

bool same_bits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

/// Fixture F of playback.md §6: anchor `root` (scene, [1,0,0]), child `display`; D 10;
/// display.position 0t `first` linear → 10t [10,0,0]; once.
struct fixture_f {
  anim_builder b{"demo:f", 10};
  int root = b.node("root", node_type::anchor, -1, core::space::scene, {1, 0, 0});
  int display = b.node("display", node_type::item_display, root);
};

std::string canonical(const std::string& snbt) {
  return core::to_snbt(core::parse_compound_snbt(snbt).value());
}

} // namespace

TEST_CASE("P1 Molang initialize/tick and a Molang keyframe value, bit-exact x") {
  fixture_f f;
  f.b.initialize("v.offset = 2;").tick("v.offset = v.offset + 1;");
  f.b.position(f.display, 0, {"v.offset", 0, 0}).position(f.display, 10, {10, 0, 0});
  harness h;
  h.tick = 100;
  h.play(prepare(f.b.build()));
  auto expect = [](int k) {
    const double v = k + 3;
    const auto lx = static_cast<float>(v + (10.0 - v) * (static_cast<double>(k) / 10.0));
    return lx + 1.0f;
  };
  const api::frame s = h.step();
  const auto* sp = spawn_of(s, "display");
  REQUIRE(sp != nullptr);
  CHECK(same_bits(x_of(sp->transform), expect(0)));
  CHECK(x_of(sp->transform) == 4.0f);
  CHECK_FALSE(sp->visible);
  const api::handle_id h0 = sp->handle;
  float x = x_of(sp->transform);
  for (int k = 1; k <= 9; ++k) {
    CAPTURE(k);
    const api::frame f1 = h.step();
    const auto* up = update_of(f1, h0);
    // A record only when the matrix changed: S+8 and S+9 both show 11.2.
    const bool changed = !same_bits(expect(k), x);
    CHECK((up != nullptr && up->transform.has_value()) == changed);
    if (up != nullptr && up->transform) {
      x = x_of(*up->transform);
      CHECK(up->interpolation_duration == 1);
    }
    CHECK(same_bits(x, expect(k)));
    if (k == 1) {
      REQUIRE(up != nullptr);
      CHECK(up->visible == std::optional<bool>(true));
      CHECK(x == doctest::Approx(5.6));
    } else if (up != nullptr) {
      CHECK_FALSE(up->visible.has_value());
    }
  }
  CHECK(same_bits(expect(2), 7.0f));
  CHECK(expect(9) == doctest::Approx(11.2));
  CHECK(same_bits(expect(8), expect(9)));
  const api::frame last = h.step();
  CHECK(has_remove(last));
  CHECK(all_of<api::ev_display_update>(last).empty());
  CHECK(h.tick == 111);
}

TEST_CASE("P2 easing and a Molang visibility track") {
  fixture_f f;
  f.b.position(f.display, 0, {0, 0, 0}, content::easing::ease_in_quad)
      .position(f.display, 10, {10, 0, 0});
  f.b.visible(f.display, 0, "q.anim_time_ticks < 5");
  harness h;
  h.play(prepare(f.b.build()));
  const double printed[] = {1.0, 1.1, 1.4, 1.9, 2.6, 3.5};
  const api::frame s = h.step();
  const auto* sp = spawn_of(s, "display");
  REQUIRE(sp != nullptr);
  CHECK(x_of(sp->transform) == 1.0f);
  CHECK_FALSE(sp->visible);
  for (int k = 1; k <= 5; ++k) {
    CAPTURE(k);
    const api::frame fr = h.step();
    const auto* up = update_of(fr, sp->handle);
    REQUIRE(up != nullptr);
    REQUIRE(up->transform.has_value());
    const double p = static_cast<double>(k) / 10.0;
    CHECK(same_bits(x_of(*up->transform), static_cast<float>(0.0 + (10.0 - 0.0) * (p * p)) + 1.0f));
    CHECK(x_of(*up->transform) == doctest::Approx(printed[k]).epsilon(1e-6));
    if (k == 1) {
      CHECK(up->visible == std::optional<bool>(true));
    } else if (k == 5) {
      CHECK(up->visible == std::optional<bool>(false));
    } else {
      CHECK_FALSE(up->visible.has_value());
    }
  }
}

TEST_CASE("P3 player-state queries in a keyframe value") {
  fixture_f f;
  f.b.position(f.display, 0, {"q.life_time + q.health + q.player_level", 0, 0});
  harness h;
  h.player.health = 10;
  h.player.xp_level = 4;
  h.play(prepare(f.b.build()));
  const api::frame s = h.step();
  const auto* sp = spawn_of(s, "display");
  REQUIRE(sp != nullptr);
  CHECK(x_of(sp->transform) == 15.0f);
  const api::frame s1 = h.step();
  const auto* up = update_of(s1, sp->handle);
  REQUIRE(up != nullptr);
  REQUIRE(up->transform.has_value());
  CHECK(same_bits(x_of(*up->transform), static_cast<float>(0.05 + 10.0 + 4.0) + 1.0f));
  CHECK(x_of(*up->transform) == doctest::Approx(15.05));
}

TEST_CASE("P4 a loop restart is a full reset: variables never survive") {
  anim_builder b("demo:p4", 1, playback_mode::loop);
  const int root = b.node("root", node_type::anchor, -1, core::space::scene, {1, 0, 0});
  const int d = b.node("display", node_type::item_display, root);
  b.initialize("v.count = 0;").tick("v.count = v.count + 1;");
  b.position(d, 0, {"v.count", 0, 0});
  harness h;
  h.play(prepare(b.build()));
  const api::frame s = h.step();
  const auto* sp = spawn_of(s, "display");
  REQUIRE(sp != nullptr);
  CHECK(x_of(sp->transform) == 2.0f);
  for (int k = 1; k <= 20; ++k) {
    const api::frame fr = h.step();
    const auto* up = update_of(fr, sp->handle);
    if (up != nullptr) {
      CHECK_FALSE(up->transform.has_value());
    }
  }
}

namespace {

std::shared_ptr<const content::animation> events_anim(std::int64_t d, playback_mode mode,
                                                      std::int64_t l) {
  anim_builder b("demo:events", d, mode, l);
  const int n = b.node("n", node_type::item_display);
  b.position(n, 0, {"q.anim_time_ticks", 0, 0});
  using g = anim_builder::group;
  b.event(g::start, 0, {"say start"});
  b.event(g::timeline, 0, {"say tick0"});
  b.event(g::loop, 0, {"say loop"});
  b.event(g::stop, 0, {"say stop"});
  return b.build();
}

using strings = std::vector<std::string>;

} // namespace

TEST_CASE("P5 command event groups and their timing") {
  SUBCASE("a) loop D 4, L 0: the start frame holds start, tick0") {
    harness h;
    h.play(prepare(events_anim(4, playback_mode::loop, 0)));
    CHECK(commands_of(h.step()) == strings{"say start", "say tick0"});
    CHECK(commands_of(h.step()).empty());
  }
  SUBCASE("b) server_sync D 4, L 0, game time 2: start tick 2, only `start`") {
    harness h;
    h.tick = 2; // the harness's game time is the tick
    h.play(prepare(events_anim(4, playback_mode::server_sync, 0)));
    const api::frame s = h.step();
    CHECK(commands_of(s) == strings{"say start"});
    const auto* sp = spawn_of(s, "n");
    REQUIRE(sp != nullptr);
    CHECK(x_of(sp->transform) == 2.0f);
    h.step();                                                         // t 3
    CHECK(commands_of(h.step()) == strings{"say loop", "say tick0"}); // t 4 = D → restart
  }
  SUBCASE("c) D 1, loop, L 2") {
    harness h;
    h.play(prepare(events_anim(1, playback_mode::loop, 2)));
    CHECK(commands_of(h.step()) == strings{"say start", "say tick0"}); // S
    CHECK(commands_of(h.step()) == strings{"say loop"});               // S+1
    CHECK(commands_of(h.step()).empty());                              // S+2
    const api::frame s3 = h.step();                                    // S+3: restart, pose 0
    CHECK(commands_of(s3) == strings{"say tick0"});
    const auto up = all_of<api::ev_display_update>(s3);
    REQUIRE(up.size() == 1);
    REQUIRE(up[0]->transform.has_value());
    CHECK(x_of(*up[0]->transform) == 0.0f);
    CHECK(up[0]->interpolation_duration == 0);
  }
  SUBCASE("d) D 1, L 0: loop then tick0 in the same advance") {
    harness h;
    h.play(prepare(events_anim(1, playback_mode::loop, 0)));
    h.step();
    CHECK(commands_of(h.step()) == strings{"say loop", "say tick0"});
  }
  SUBCASE("e) two stop requests: one `stop` record, then remove") {
    harness h;
    auto& pb = h.play(prepare(events_anim(4, playback_mode::loop, 0)));
    h.step();
    h.stop(pb);
    h.stop(pb);
    const api::frame f = h.step();
    CHECK(commands_of(f) == strings{"say stop"});
    CHECK(has_remove(f));
    CHECK(all_of<api::ev_display_update>(f).empty());
  }
}

TEST_CASE("P6 NBT track in a loop, with and without loop delay") {
  auto make = [](std::int64_t l) {
    anim_builder b("demo:nbt", 2, playback_mode::loop, l);
    const int n = b.node("n", node_type::item_display);
    b.nbt(n, 0, "{item:{id:\"minecraft:stone\",count:1}}");
    b.nbt(n, 2, "{item:{id:\"minecraft:diamond\",count:1}}");
    return prepare(b.build());
  };
  const std::string stone = canonical("{item:{id:\"minecraft:stone\",count:1}}");
  const std::string diamond = canonical("{item:{id:\"minecraft:diamond\",count:1}}");
  SUBCASE("L 1") {
    harness h;
    h.play(make(1));
    const api::frame s = h.step();
    const auto* sp = spawn_of(s, "n");
    REQUIRE(sp != nullptr);
    CHECK(sp->nbt == std::optional<std::string>(stone));
    std::vector<std::optional<std::string>> seen;
    for (int k = 1; k <= 6; ++k) {
      const api::frame fk = h.step();
      const auto* up = update_of(fk, sp->handle);
      seen.push_back(up != nullptr ? up->nbt : std::nullopt);
    }
    CHECK(seen[0] == std::nullopt);
    CHECK(seen[1] == std::optional<std::string>(diamond)); // S+2
    CHECK(seen[2] == std::optional<std::string>(stone));   // S+3 restart
    CHECK(seen[3] == std::nullopt);
    CHECK(seen[4] == std::optional<std::string>(diamond)); // S+5
    CHECK(seen[5] == std::optional<std::string>(stone));   // S+6 restart
  }
  SUBCASE("L 0: diamond is applied and replaced inside one tick") {
    harness h;
    h.play(make(0));
    const api::frame s = h.step();
    const auto* sp = spawn_of(s, "n");
    REQUIRE(sp != nullptr);
    for (int k = 1; k <= 8; ++k) {
      const api::frame fk = h.step();
      const auto* up = update_of(fk, sp->handle);
      if (up != nullptr) {
        CHECK_FALSE(up->nbt.has_value());
      }
    }
  }
}

TEST_CASE("P7 server_sync snapshot: NBT keyframes up to t, select, loop_count") {
  anim_builder b("demo:sync", 10, playback_mode::server_sync, 0);
  const int n = b.node("n", node_type::item_display);
  b.nbt(n, 0, "{item:{id:\"minecraft:poppy\",count:1},Glowing:0b}");
  b.nbt_select(n, 5, "1", {"{Glowing:0b}", "{Glowing:1b}"});
  b.position(n, 0, {"q.loop_count", "q.anim_time_ticks", 0});
  b.event(anim_builder::group::timeline, 0, {"say tick0"});
  harness h;
  h.tick = 25;
  h.play(prepare(b.build()));
  const api::frame s = h.step();
  CHECK(commands_of(s).empty());
  const auto* sp = spawn_of(s, "n");
  REQUIRE(sp != nullptr);
  CHECK(sp->nbt == std::optional<std::string>(
                       canonical("{item:{id:\"minecraft:poppy\",count:1},Glowing:1b}")));
  CHECK(sp->transform.matrix[3] == 2.0f); // loop_count
  CHECK(sp->transform.matrix[7] == 5.0f); // start tick 5
  for (int k = 1; k <= 4; ++k) {
    CHECK(commands_of(h.step()).empty());
  }
  const api::frame r = h.step(); // S+5 = game time 30: restart
  CHECK(r.tick == 30);
  CHECK(commands_of(r) == strings{"say tick0"});
  const auto* up = update_of(r, sp->handle);
  REQUIRE(up != nullptr);
  CHECK(up->nbt == std::optional<std::string>(
                       canonical("{item:{id:\"minecraft:poppy\",count:1},Glowing:0b}")));
  REQUIRE(up->transform.has_value());
  CHECK(up->transform->matrix[3] == 3.0f);
  CHECK(up->transform->matrix[7] == 0.0f);
}

TEST_CASE("server_sync snapshot inside the loop delay window") {
  anim_builder b("demo:sync_delay", 4, playback_mode::server_sync, 3);
  const int n = b.node("n", node_type::item_display);
  b.position(n, 0, {"q.anim_time_ticks", 0, 0});
  b.event(anim_builder::group::timeline, 0, {"say tick0"});
  harness h;
  h.tick = 12; // C = 7, p = 5 >= D: delay window with remaining 2
  h.play(prepare(b.build()));
  const api::frame s = h.step();
  CHECK(x_of(spawn_of(s, "n")->transform) == 4.0f);
  CHECK(commands_of(h.step()).empty()); // 13
  const api::frame r = h.step();        // 14: divisible by C
  CHECK(r.tick == 14);
  CHECK(commands_of(r) == strings{"say tick0"});
}

TEST_CASE("P28 timing: once D 3 from tick 100; loop D 2, L 3") {
  {
    anim_builder b("demo:once3", 3);
    const int n = b.node("n", node_type::item_display);
    b.position(n, 0, {0, 0, 0}).position(n, 3, {3, 0, 0});
    harness h;
    h.tick = 100;
    auto& pb = h.play(prepare(b.build()));
    const api::frame f100 = h.step();
    REQUIRE(spawn_of(f100, "n") != nullptr);
    const api::handle_id id = spawn_of(f100, "n")->handle;
    CHECK(x_of(spawn_of(f100, "n")->transform) == 0.0f);
    const api::frame f101 = h.step();
    CHECK(x_of(*update_of(f101, id)->transform) == 1.0f);
    const api::frame f102 = h.step();
    CHECK(x_of(*update_of(f102, id)->transform) == 2.0f);
    const api::frame f103 = h.step();
    CHECK(f103.tick == 103);
    CHECK(pb.finished());
    CHECK(pb.stop_reason() == api::stop_reason::finished);
    CHECK(has_remove(f103));
    CHECK(update_of(f103, id) == nullptr);
  }
  {
    anim_builder b("demo:loop2", 2, playback_mode::loop, 3);
    const int n = b.node("n", node_type::item_display);
    b.position(n, 0, {"q.anim_time_ticks", 0, 0});
    b.event(anim_builder::group::loop, 0, {"say loop"});
    b.event(anim_builder::group::timeline, 0, {"say tick0"});
    harness h;
    h.play(prepare(b.build()));
    h.step();
    std::vector<int> loops;
    std::vector<int> restarts;
    for (int k = 1; k <= 11; ++k) {
      const auto c = commands_of(h.step());
      if (std::find(c.begin(), c.end(), "say loop") != c.end()) {
        loops.push_back(k);
      }
      if (std::find(c.begin(), c.end(), "say tick0") != c.end()) {
        restarts.push_back(k);
      }
    }
    CHECK(loops == std::vector<int>{2, 7});
    CHECK(restarts == std::vector<int>{5, 10});
  }
}

TEST_CASE("hold keeps pose D and runs no tick program afterwards") {
  anim_builder b("demo:hold", 2, playback_mode::hold);
  const int n = b.node("n", node_type::item_display);
  b.initialize("v.c = 0;").tick("v.c = v.c + 1;");
  b.position(n, 0, {"v.c", 0, 0});
  harness h;
  auto& pb = h.play(prepare(b.build()));
  const api::frame s = h.step();
  const api::handle_id id = spawn_of(s, "n")->handle;
  CHECK(x_of(spawn_of(s, "n")->transform) == 1.0f);
  CHECK(x_of(*update_of(h.step(), id)->transform) == 2.0f);
  CHECK(x_of(*update_of(h.step(), id)->transform) == 3.0f);
  for (int k = 0; k < 10; ++k) {
    const api::frame f = h.step();
    CHECK(update_of(f, id) == nullptr);
  }
  CHECK_FALSE(pb.finished());
  CHECK_FALSE(pb.stopped());
}

TEST_CASE("display_interpolation is the interpolation duration of a normal advance") {
  anim_builder b("demo:interp", 4);
  b.display_interpolation(3);
  const int n = b.node("n", node_type::item_display);
  b.position(n, 0, {0, 0, 0}).position(n, 4, {4, 0, 0});
  harness h;
  h.play(prepare(b.build()));
  const auto id = spawn_of(h.step(), "n")->handle;
  const api::frame f = h.step();
  const auto* up = update_of(f, id);
  REQUIRE(up != nullptr);
  CHECK(up->interpolation_duration == 3);
}

TEST_CASE("channels: step interpolation, pre/post keys, scale and rotation slerp") {
  anim_builder b("demo:channels", 4);
  const int n = b.node("n", node_type::item_display);
  b.position(n, 0, {1, 0, 0}, content::easing::linear, content::interpolation::step)
      .position_pre_post(n, 2, {5, 0, 0}, {7, 0, 0})
      .position(n, 4, {9, 0, 0});
  b.scale(n, 0, {1, 1, 1}).scale(n, 4, {3, 1, 1});
  b.rotation(n, 0, {0, 0, 0}).rotation(n, 4, {0, 270, 0});
  harness h;
  h.play(prepare(b.build()));
  const api::frame s = h.step();
  const auto id = spawn_of(s, "n")->handle;
  std::vector<api::transform_record> m{spawn_of(s, "n")->transform};
  for (int k = 1; k <= 3; ++k) {
    m.push_back(*update_of(h.step(), id)->transform);
  }
  // step: 1 until 2t; at 2t the post value 7 applies; then 7 → 9 linear.
  CHECK(m[0].translation[0] == 1.0f);
  CHECK(m[1].translation[0] == 1.0f);
  CHECK(m[2].translation[0] == 7.0f);
  CHECK(m[3].translation[0] == 8.0f);
  // 0° → 270° slerps −90° the short way: at 2t (α 0.5) a −45° turn about Y.
  const math::quatf q = math::slerp(math::euler_degrees_to_quat(0, 0, 0),
                                    math::euler_degrees_to_quat(0, 270, 0), 0.5f);
  const math::mat4f expect = math::affine_mul(
      math::root_rot(180), math::local_matrix(math::vec3f{7, 0, 0}, q, math::vec3f{2, 1, 1}));
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) {
      CAPTURE(r);
      CAPTURE(c);
      CHECK(same_bits(m[2].matrix[static_cast<std::size_t>(r * 4 + c)], expect.m[r][c]));
    }
  }
  CHECK(m[2].matrix[2] == doctest::Approx(-std::sqrt(0.5)).epsilon(1e-5)); // sin(−45°)·scale_z
  CHECK(m[2].matrix[0] == doctest::Approx(2 * std::sqrt(0.5)).epsilon(1e-5)); // cos(−45°)·scale_x
}

TEST_CASE("P30 display matrix at root yaw 0 (bit-exact)") {
  anim_builder b("demo:p30", 1);
  const int root = b.node("root", node_type::anchor, -1, core::space::scene, {1, 0, 0});
  b.node("display", node_type::item_display, root);
  harness h;
  h.yaw = 0;
  h.play(prepare(b.build()));
  const api::frame f = h.step();
  const auto* sp = spawn_of(f, "display");
  REQUIRE(sp != nullptr);
  const auto& m = sp->transform.matrix;
  CHECK(same_bits(m[0], -1.0f));
  CHECK(same_bits(m[1], 0.0f));
  CHECK(same_bits(m[2], -8.742278e-8f));
  CHECK(same_bits(m[3], -1.0f));
  CHECK(same_bits(m[8], 8.742278e-8f));
  CHECK(same_bits(m[9], 0.0f));
  CHECK(same_bits(m[10], -1.0f));
  CHECK(same_bits(m[11], 8.742278e-8f));
  CHECK(sp->yaw == 0.0f);
  CHECK(sp->position == core::dvec3{0, 64, 0});
}

TEST_CASE("command records: sources, root and node origins, callbacks") {
  anim_builder b("demo:cmd", 4);
  const int root = b.node("root", node_type::anchor, -1, core::space::scene, {1, 0, 0});
  const int d = b.node("display", node_type::item_display, root);
  b.scale(d, 0, {2, 2, 2});
  using g = anim_builder::group;
  b.event(g::timeline, 1, {"say root", "say again"}, content::event_source::player,
          content::event_origin::root, -1, {0, 0, 1}, -1,
          {content::callback{"demo:swing", "right_hand"}});
  b.event(g::timeline, 1, {"say node"}, content::event_source::node, content::event_origin::node, d,
          {0, 1, 0}, d);
  harness h;
  h.yaw = 0;
  h.feet = {10, 64, -3};
  h.play(prepare(b.build()));
  const api::frame s = h.step();
  const api::handle_id id = spawn_of(s, "display")->handle;
  const api::frame f = h.step();
  const auto cmds = all_of<api::ev_command>(f);
  const auto cbs = all_of<api::ev_callback>(f);
  REQUIRE(cmds.size() == 3);
  REQUIRE(cbs.size() == 1);
  // Order: the event's commands, then its callbacks, then the next event.
  CHECK(std::holds_alternative<api::ev_command>(f.events[0]));
  CHECK(std::holds_alternative<api::ev_command>(f.events[1]));
  CHECK(std::holds_alternative<api::ev_callback>(f.events[2]));
  CHECK(std::holds_alternative<api::ev_command>(f.events[3]));
  CHECK(cmds[0]->source.type == api::command_source::kind::player);
  CHECK(cmds[0]->player == "alice");
  CHECK(cmds[0]->dimension == "minecraft:overworld");
  CHECK(cmds[0]->session == 1);
  // Root origin: O = Rv(rel 0) ⊙ RootRot(0); offset (0,0,1).
  const math::mat4f o = math::affine_mul(
      math::root_rot_radians(static_cast<float>(-0.0 * 0.017453292519943295)), math::root_rot(0));
  const float oz = o.m[2][0] * 0 + (o.m[2][1] * 0 + (o.m[2][2] * 1 + o.m[2][3]));
  const float ox = o.m[0][0] * 0 + (o.m[0][1] * 0 + (o.m[0][2] * 1 + o.m[0][3]));
  CHECK(cmds[0]->origin.x == 10.0 + static_cast<double>(ox));
  CHECK(cmds[0]->origin.z == -3.0 + static_cast<double>(oz));
  CHECK(cmds[0]->origin.z == doctest::Approx(-4.0));
  CHECK(cbs[0]->name == "demo:swing");
  CHECK(cbs[0]->payload == "right_hand");
  CHECK(cbs[0]->origin == cmds[0]->origin);
  // Node origin: the node's display matrix (scale 2 included), base = root of its space.
  CHECK(cmds[2]->source.type == api::command_source::kind::node);
  CHECK(cmds[2]->source.handle == std::optional<api::handle_id>(id));
  CHECK(cmds[2]->origin.y == doctest::Approx(66.0));
  CHECK(cmds[2]->origin.x == doctest::Approx(10.0 - 1.0).epsilon(1e-6));
}

TEST_CASE("run-time failures: an NBT selector outside its options, a Molang budget overrun") {
  SUBCASE("selector") {
    anim_builder b("demo:badselect", 4);
    const int n = b.node("n", node_type::item_display);
    b.nbt(n, 0, "{Glowing:0b}");
    b.nbt_select(n, 2, "q.anim_time_ticks", {"{Glowing:0b}", "{Glowing:1b}"});
    b.event(anim_builder::group::stop, 0, {"say stop"});
    harness h;
    auto& pb = h.play(prepare(b.build()));
    h.step();
    h.step();
    const api::frame f = h.step(); // t 2: option 2 of 2 → ERROR in that tick
    CHECK(pb.failed());
    CHECK(pb.stopped());
    CHECK(pb.stop_reason() == api::stop_reason::error);
    CHECK(has_remove(f));
    CHECK(commands_of(f) == strings{"say stop"});
  }
  SUBCASE("fractional selector") {
    anim_builder b("demo:frac", 4);
    const int n = b.node("n", node_type::item_display);
    b.nbt(n, 0, "{Glowing:0b}");
    b.nbt_select(n, 1, "0.5", {"{Glowing:0b}", "{Glowing:1b}"});
    harness h;
    auto& pb = h.play(prepare(b.build()));
    h.step();
    h.step();
    CHECK(pb.failed());
  }
  SUBCASE("budget") {
    anim_builder b("demo:budget", 4);
    b.node("n", node_type::item_display);
    b.tick("loop(1024, {loop(1024, {t.x = 1;});});");
    harness h;
    auto& pb = h.play(prepare(b.build()));
    CHECK(pb.failed()); // the tick program runs at tick 0 too
  }
}

TEST_CASE("root follow with movement_distance 0; external placements never follow") {
  anim_builder b("demo:follow", 50, playback_mode::loop);
  b.movement_distance(0).deadzone(0);
  b.node("n", node_type::item_display);
  const auto emote = prepare(b.build());
  {
    harness h;
    h.play(emote);
    const api::frame s = h.step();
    CHECK(spawn_of(s, "n")->position == core::dvec3{0, 64, 0});
    h.feet = {0.5, 64, 2};
    const api::frame f = h.step();
    const auto moves = all_of<api::ev_display_move>(f);
    REQUIRE(moves.size() == 1);
    CHECK(moves[0]->space == api::space::initiator);
    CHECK(moves[0]->position == core::dvec3{0.5, 64, 2});
    CHECK(moves[0]->teleport_duration == 0);
    CHECK(all_of<api::ev_display_move>(h.step()).empty());
  }
  {
    harness h;
    h.play(emote, nullptr, api::placement{{12, 64, -4}, 90});
    const api::frame s = h.step();
    const auto* sp = spawn_of(s, "n");
    CHECK(sp->position == core::dvec3{12, 64, -4});
    h.feet = {0.5, 64, 2};
    h.yaw = 10;
    const api::frame f = h.step();
    CHECK(all_of<api::ev_display_move>(f).empty());
    CHECK(all_of<api::ev_display_view>(f).empty());
  }
}

TEST_CASE("P29 view follow through the deadzone") {
  auto make = [](double dz) {
    anim_builder b("demo:view", 100, playback_mode::loop);
    b.deadzone(dz);
    b.node("n", node_type::item_display);
    return prepare(b.build());
  };
  {
    harness h;
    h.yaw = 0;
    auto& pb = h.play(make(50));
    h.step();
    const float yaws[] = {40, 60, 60.5f, 80};
    const float views[] = {0, 10, 10.5f, 30};
    std::vector<std::pair<int, float>> records;
    for (int k = 0; k < 4; ++k) {
      h.yaw = yaws[k];
      const api::frame f = h.step();
      CHECK(pb.view_yaw() == views[k]);
      for (const auto* v : all_of<api::ev_display_view>(f)) {
        CHECK(v->teleport_duration == 3);
        records.emplace_back(k + 1, v->yaw);
      }
    }
    CHECK(records == std::vector<std::pair<int, float>>{{2, 10.0f}, {4, 30.0f}});
  }
  {
    harness h;
    h.yaw = 170;
    auto& pb = h.play(make(50));
    h.step();
    h.yaw = -170;
    const api::frame f1 = h.step();
    CHECK(all_of<api::ev_display_view>(f1).empty());
    CHECK(pb.view_yaw() == 170.0f);
    h.yaw = -100;
    const api::frame f2 = h.step();
    const auto v = all_of<api::ev_display_view>(f2);
    CHECK(pb.view_yaw() == -150.0f);
    REQUIRE(v.size() == 1);
    CHECK(v[0]->yaw == 40.0f);
  }
  {
    harness h;
    h.yaw = 0;
    h.play(make(0));
    h.step();
    h.yaw = 40;
    const api::frame f1 = h.step();
    auto v = all_of<api::ev_display_view>(f1);
    REQUIRE(v.size() == 1);
    CHECK(v[0]->yaw == 40.0f);
    CHECK(v[0]->teleport_duration == 0);
    h.yaw = -30;
    const api::frame f2 = h.step();
    v = all_of<api::ev_display_view>(f2);
    REQUIRE(v.size() == 1);
    CHECK(v[0]->yaw == -30.0f);
  }
}

TEST_CASE("handles: smallest free ids across playbacks, returned after the stop frame") {
  anim_builder b("demo:two", 2);
  b.node("a", node_type::item_display);
  b.node("b", node_type::block_display);
  b.node("anchor", node_type::anchor);
  b.node("c", node_type::text_display);
  const auto emote = prepare(b.build());
  CHECK(emote->handle_count() == 3);
  harness h;
  auto& p1 = h.play(emote);
  CHECK(p1.handles() == std::vector<api::handle_id>{1, 2, 3});
  auto& p2 = h.play(emote);
  CHECK(p2.handles() == std::vector<api::handle_id>{4, 5, 6});
  const api::frame s = h.step();
  CHECK(spawn_of(s, "b")->kind == api::display_kind::block);
  CHECK(spawn_of(s, "c")->kind == api::display_kind::text);
  CHECK(spawn_of(s, "c")->text_json == "\"hi\"");
  h.stop(p1);
  h.step();
  CHECK(h.pool.held() == 3);
  auto& p3 = h.play(emote);
  CHECK(p3.handles() == std::vector<api::handle_id>{1, 2, 3});
}

TEST_CASE("Molang random functions draw from the session generator G") {
  anim_builder b("demo:rand", 2);
  const int n = b.node("n", node_type::item_display);
  b.position(n, 0, {"math.random(0, 1)", 0, 0});
  const auto emote = prepare(b.build());
  harness h1;
  h1.play(emote);
  const float x1 = x_of(spawn_of(h1.step(), "n")->transform);
  harness h2;
  h2.play(emote);
  const float x2 = x_of(spawn_of(h2.step(), "n")->transform);
  CHECK(x1 == x2); // same session number, same seed
  // G = Random(seed + 1) after the selection generator's nextLong.
  core::java_random g(1);
  g.next_long();
  const double u =
      static_cast<double>((static_cast<std::int64_t>(g.next(26)) << 27) + g.next(27)) * 0x1.0p-53;
  const double hi = std::nextafter(1.0, 2.0);
  CHECK(x1 == static_cast<float>(u * (hi - 0.0) + 0.0));
}

TEST_CASE("baked poses equal per-tick evaluation bit for bit") {
  anim_builder b("demo:bake", 40, playback_mode::loop, 3);
  const int root = b.node("root", node_type::anchor, -1, core::space::scene, {0.3, 0, -1});
  int parent = root;
  for (int i = 0; i < 8; ++i) {
    const int n = b.node("n" + std::to_string(i), node_type::item_display, parent,
                         core::space::scene, {0.1 * i, 0.2, 0});
    b.position(n, 0, {0, 0, 0}, content::easing::ease_in_out_back)
        .position(n, 17, {0.25 * i, 1, -0.5}, content::easing::ease_out_bounce)
        .position(n, 40, {0, 0, 0});
    b.rotation(n, 0, {0, 0, 0}, content::easing::ease_in_elastic)
        .rotation(n, 23, {10.0 * i, 200, -35})
        .rotation(n, 40, {0, 360, 0});
    b.scale(n, 0, {1, 1, 1}, content::easing::linear, content::interpolation::step)
        .scale(n, 20, {1.5, 0.5, 2});
    parent = n;
  }
  const auto a = b.build();
  const auto baked = std::make_shared<playback::prepared_emote>(a, std::size_t{64} << 20);
  const auto plain = std::make_shared<playback::prepared_emote>(a, std::size_t{0});
  CHECK(baked->animation_at(0).baked_bytes() > 41 * 8 * sizeof(math::mat4f));
  CHECK(plain->animation_at(0).baked_bytes() < 8 * sizeof(math::mat4f));
  harness h1;
  harness h2;
  h1.yaw = h2.yaw = 33;
  h1.play(baked);
  h2.play(plain);
  for (int k = 0; k < 100; ++k) {
    const api::frame f1 = h1.step();
    const api::frame f2 = h2.step();
    REQUIRE(f1.events.size() == f2.events.size());
    for (std::size_t i = 0; i < f1.events.size(); ++i) {
      const auto* u1 = std::get_if<api::ev_display_update>(&f1.events[i]);
      const auto* u2 = std::get_if<api::ev_display_update>(&f2.events[i]);
      if (u1 != nullptr && u2 != nullptr && u1->transform && u2->transform) {
        for (std::size_t j = 0; j < 16; ++j) {
          CHECK(same_bits(u1->transform->matrix[j], u2->transform->matrix[j]));
        }
      }
    }
  }
}
