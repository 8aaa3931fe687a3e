// Two-player Sequences through the playback object: playback.md §3.3, §3.9, §4.3, §4.6 and
// examples P21–P23, P31, P33. The partner matching itself (players.md §7) is the engine's; the
// harness makes its phase-4 decisions explicitly.

#include "fixture.hpp"

#include "engine/math/matrix.hpp"
#include "engine/math/quat.hpp"

using namespace emote;
using namespace fixture;
using core::space;
using content::node_type;

namespace {

/// demo:handshake of P21: one item root `body` (initiator, player head, skin body 0), position
/// keys 0t/1t, visible keys 0t true / 1t false; D 2.
std::shared_ptr<const content::animation> handshake() {
  anim_builder b("demo:handshake", 2);
  const int body = b.node("body", node_type::item_display, -1, core::space::initiator);
  b.at(body).skin =
      content::skin_binding{content::participant::initiator, content::skin_part::body, 0};
  b.position(body, 0, {0, 1, 0}).position(body, 1, {0, 2, 0});
  b.visible(body, 0, true).visible(body, 1, false);
  return b.build();
}

std::shared_ptr<const content::sequence> hs(std::shared_ptr<const content::animation> x,
                                            std::int64_t timeout, content::skin_layout skin = {}) {
  sequence_builder s("demo:hs");
  const int i = s.animation(x);
  s.two_player(i, timeout, {emote_step({cand(x, i)})}, {emote_step({cand(x, i)})});
  s.skin(std::move(skin));
  return s.build();
}

} // namespace

TEST_CASE("P21 partner expansion: the copy sits at the partner root, mirrors, shows from MATCHED") {
  const auto x = handshake();
  content::skin_layout skin;
  skin.push_back(content::skin_region{0, "body", content::participant::initiator,
                                      content::skin_part::body, 0, 0, 12});
  skin.push_back(content::skin_region{1, "__partner__body", content::participant::partner,
                                      content::skin_part::body, 0, 0, 12});
  const auto seq = hs(x, 60, skin);
  REQUIRE(seq->node_union.size() == 2);
  CHECK(seq->node_union[1].id == "__partner__body");
  const auto emote = prepare(seq);
  CHECK(emote->handle_count() == 2);

  harness h;
  h.yaw = 0;
  auto& pb = h.play(emote);
  CHECK(pb.phase() == playback::session_phase::offering);
  const api::frame s = h.step();
  const auto* body = spawn_of(s, "body");
  const auto* copy = spawn_of(s, "__partner__body");
  REQUIRE(body != nullptr);
  REQUIRE(copy != nullptr);
  CHECK(body->space == api::space::initiator);
  CHECK(copy->space == api::space::partner);
  CHECK(body->position == core::dvec3{0, 64, 0});
  CHECK(copy->position.x == 1.4695762231022014e-16); // "^ ^ ^1.2" from yaw 0 (P31)
  CHECK(copy->position.z == 1.2);
  REQUIRE(copy->skin.has_value());
  CHECK(copy->skin->participant == "partner");
  CHECK(copy->skin->part == "body");
  CHECK(body->skin->participant == "initiator");
  // The copy receives exactly the body's world matrix; only the root rotation differs.
  const math::mat4f world =
      math::local_matrix(math::vec3f{0, 1, 0}, math::quatf{}, math::vec3f{1, 1, 1});
  const math::mat4f mb = math::affine_mul(math::root_rot(0), world);
  const math::mat4f mc = math::affine_mul(math::root_rot(180), world);
  CHECK(body->transform.matrix == mb.row_major());
  CHECK(copy->transform.matrix == mc.row_major());
  CHECK_FALSE(copy->visible);

  // S+1: the body is requested hidden at 1t; the copy stays hidden (partner space inactive).
  const api::frame s1 = h.step();
  CHECK(update_of(s1, copy->handle)->transform.has_value());
  CHECK_FALSE(update_of(s1, copy->handle)->visible.has_value());
  // S+2: the offer completes; a reserved partner passes the re-check → MATCHED.
  bool matched = false;
  const api::frame s2 = h.step([&](playback::playback& p, playback::tick_context& ctx) {
    if (p.offer_complete() && !matched) {
      matched = true;
      CHECK(p.start_branch(api::branch::matched, ctx));
      p.activate_partner_space();
    }
  });
  CHECK(matched);
  CHECK(pb.phase() == playback::session_phase::matched);
  const auto segs = all_of<api::ev_segment_started>(s2);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0]->branch == api::branch::matched);
  REQUIRE(update_of(s2, copy->handle) != nullptr);
  CHECK(update_of(s2, copy->handle)->visible == std::optional<bool>(true));
  CHECK(update_of(s2, body->handle)->visible == std::optional<bool>(true));
  // The branch first advances in the next tick and finishes after its D.
  h.step();
  const api::frame s4 = h.step();
  CHECK(pb.finished());
  CHECK(has_remove(s4));
}

TEST_CASE("P22 anchors only: the union is exactly the anchors, no handles") {
  anim_builder b("demo:give", 2);
  b.node("giver", node_type::anchor, -1, core::space::initiator);
  b.node("receiver", node_type::anchor, -1, core::space::partner);
  const auto seq = hs(b.build(), 20);
  REQUIRE(seq->node_union.size() == 2);
  const auto emote = prepare(seq);
  CHECK(emote->handle_count() == 0);
  harness h;
  auto& pb = h.play(emote);
  const api::frame s = h.step();
  CHECK(all_of<api::ev_display_spawn>(s).empty());
  h.stop(pb);
  CHECK_FALSE(has_remove(h.step()));
}

TEST_CASE("P23 hierarchy expansion: the copy of a child mirrors its world matrix every tick") {
  anim_builder b("demo:hier", 4);
  const int root = b.node("root", node_type::anchor, -1, core::space::initiator, {0, 0, 1});
  const int d = b.node("display", node_type::item_display, root);
  b.position(d, 0, {"q.anim_time_ticks", 0, 0});
  const auto seq = hs(b.build(), 20);
  REQUIRE(seq->node_union.size() == 4);
  CHECK(seq->node_union[3].id == "__partner__display");
  harness h;
  h.yaw = 180; // initiator RootRot ≈ identity; the partner root (yaw 360) turns x around
  h.play(prepare(seq));
  const api::frame s = h.step();
  const auto* disp = spawn_of(s, "display");
  const auto* copy = spawn_of(s, "__partner__display");
  REQUIRE(disp != nullptr);
  REQUIRE(copy != nullptr);
  for (int k = 1; k <= 3; ++k) {
    const api::frame f = h.step();
    const auto* a = update_of(f, disp->handle);
    const auto* c = update_of(f, copy->handle);
    REQUIRE(a != nullptr);
    REQUIRE(c != nullptr);
    CHECK(a->transform->translation[0] == static_cast<float>(k));
    CHECK(c->transform->translation[0] == doctest::Approx(static_cast<float>(-k)));
  }
}

TEST_CASE("P31 partner root from the initiator's placement") {
  const auto seq = hs(handshake(), 20);
  harness h;
  h.feet = {10, 64, -3};
  h.yaw = 90;
  auto& pb = h.play(prepare(seq));
  CHECK(pb.space_root(api::space::scene).position == core::dvec3{10, 64, -3});
  CHECK(pb.space_root(api::space::initiator).yaw == 90.0f);
  const playback::root& partner = pb.space_root(api::space::partner);
  CHECK(partner.position.x == doctest::Approx(8.8).epsilon(1e-12));
  CHECK(partner.position.z == doctest::Approx(-3.0).epsilon(1e-12));
  CHECK(partner.yaw == 270.0f);
}

TEST_CASE("P33 nobody joins: WAITING holds the offer pose, view follows, timeout branch") {
  anim_builder b("demo:offer", 20);
  b.deadzone(0);
  const int body = b.node("body", node_type::item_display, -1, core::space::initiator);
  b.position(body, 0, {"q.anim_time_ticks", 0, 0});
  const auto x = b.build();
  sequence_builder s("demo:p33");
  const int i = s.animation(x);
  s.two_player(i, 200, {emote_step({cand(x, i)})}, {emote_step({cand(x, i)})});
  const auto seq = s.build();
  harness h;
  h.tick = 1000;
  auto& pb = h.play(prepare(seq));
  std::int64_t remaining = 200;
  auto phase4 = [&](playback::playback& p, playback::tick_context& ctx) {
    if (p.phase() == playback::session_phase::offering && p.offer_complete()) {
      p.enter_waiting(); // no reservation
    } else if (p.phase() == playback::session_phase::waiting) {
      if (--remaining <= 0) {
        CHECK(p.start_branch(api::branch::timeout, ctx));
      }
    }
  };
  const api::frame s0 = h.step(phase4);
  const api::handle_id copy = spawn_of(s0, "__partner__body")->handle;
  const api::handle_id own = spawn_of(s0, "body")->handle;
  api::tick_number waiting_from = -1;
  api::tick_number timeout_at = -1;
  api::tick_number first_branch_update = -1;
  for (int k = 1; k <= 240; ++k) {
    if (k == 100) {
      h.yaw = 120; // the view follows while WAITING
    }
    if (k == 230) {
      h.yaw = 10; // frozen from TIMEOUT on
    }
    const api::frame f = h.step(phase4);
    if (waiting_from < 0 && pb.phase() == playback::session_phase::waiting) {
      waiting_from = f.tick;
    }
    for (const auto* r : all_of<api::ev_segment_started>(f)) {
      CHECK(r->branch == api::branch::timeout);
      timeout_at = f.tick;
    }
    if (const auto* up = update_of(f, copy)) {
      CHECK_FALSE(up->visible.value_or(false));
    }
    const auto* up = update_of(f, own);
    if (pb.phase() == playback::session_phase::waiting && f.tick > waiting_from) {
      CHECK(up == nullptr); // offer pose held
    }
    if (timeout_at >= 0 && f.tick > timeout_at && up != nullptr && first_branch_update < 0) {
      first_branch_update = f.tick;
    }
    if (k == 100) {
      CHECK(all_of<api::ev_display_view>(f).size() == 1);
    }
    if (k == 230) {
      CHECK(all_of<api::ev_display_view>(f).empty());
    }
  }
  CHECK(waiting_from == 1020);
  CHECK(timeout_at == 1220);
  CHECK(first_branch_update == 1221);
  CHECK(pb.phase() == playback::session_phase::timeout);
  CHECK_FALSE(pb.partner_space_active());
  CHECK(pb.stopped()); // the 20-tick timeout branch finished at 1240
}

TEST_CASE("participant hand items: initiator at spawn, partner from MATCHED, refreshed") {
  anim_builder b("demo:hand", 4);
  const int hand = b.node("hand", node_type::item_display, -1, core::space::initiator);
  b.at(hand).participant_hand = content::physical_arm::right;
  b.at(hand).item_stack_snbt.clear();
  const auto seq = hs(b.build(), 20);
  playback::start_info info;
  info.session = 1;
  info.player = "alice";
  info.dimension = "minecraft:overworld";
  info.feet = {0, 64, 0};
  info.right_hand = api::item_stack{"{count:1,id:\"minecraft:bow\"}", "minecraft:bow", false};
  info.generators = playback::make_session_generators(0, 1);
  playback::playback pb(prepare(seq), info);
  playback::handle_pool pool;
  std::vector<api::event> cmds;
  playback::tick_context ctx{0, nullptr, &cmds};
  REQUIRE(pb.start(pool, ctx));
  std::vector<api::event> out;
  pb.emit(out);
  REQUIRE(out.size() == 3);
  CHECK(std::holds_alternative<api::ev_segment_started>(out[0]));
  const auto* mine = std::get_if<api::ev_display_spawn>(&out[1]);
  const auto* theirs = std::get_if<api::ev_display_spawn>(&out[2]);
  REQUIRE(mine != nullptr);
  REQUIRE(theirs != nullptr);
  CHECK(mine->item == "{count:1,id:\"minecraft:bow\"}");
  CHECK(theirs->item == "{}");
  pb.set_hand_items(content::participant::partner,
                    api::item_stack{"{count:1,id:\"minecraft:stick\"}", "minecraft:stick", false},
                    api::item_stack{});
  out.clear();
  pb.emit(out);
  REQUIRE(out.size() == 1);
  const auto* up = std::get_if<api::ev_display_update>(&out[0]);
  REQUIRE(up != nullptr);
  CHECK(up->handle == theirs->handle);
  CHECK(up->item == std::optional<std::string>("{count:1,id:\"minecraft:stick\"}"));
}
