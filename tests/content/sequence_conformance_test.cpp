// formats.md §7, Sequence examples F31-F44 and resolution examples F45-F59.
#include "support.hpp"

#include <string>

using namespace content_test;

namespace {

/// The Sequence plus A(1, once) Animations with the given ids.
std::shared_ptr<const catalog> with_animations(const doc& s, std::vector<std::string> ids) {
  std::vector<std::string> texts{s.text()};
  for (const auto& id : ids) {
    texts.push_back(anim(id, 1).text());
  }
  return load(texts);
}

std::shared_ptr<const sequence> the_sequence(const catalog& c,
                                             std::string_view id = "example:sit") {
  auto s = c.find_sequence(id);
  REQUIRE_MESSAGE(s != nullptr, dump(c));
  return s;
}

const std::vector<std::string> handshake_ids{"example:handshake_offer", "example:handshake_left",
                                             "example:handshake_right",
                                             "example:handshake_withdraw"};

constexpr std::string_view text_node_at =
    R"({"type":"text_display","space":"scene","text":"hi","transform":{"position":[X,0,0],"rotation":[0,0,0],"scale":[1,1,1]}})";

std::string text_node(int x, std::string_view text = "hi") {
  std::string n(text_node_at);
  n.replace(n.find('X'), 1, std::to_string(x));
  n.replace(n.find("\"hi\""), 4, "\"" + std::string(text) + "\"");
  return n;
}

constexpr std::string_view head_body_node =
    R"({"type":"item_display","space":"initiator","item_stack_snbt":"{id:\"minecraft:player_head\"}","item_display":"head","skin":{"part":"body","order":0},"transform":{"position":[0,1,0],"rotation":[0,0,0],"scale":[1,1,1]}})";

} // namespace

TEST_CASE("F31: a linear Sequence") {
  const auto c = with_animations(
      seq(R"([{"emote":"example:sit_down"},{"wait":"0.5s"},{"emote":"example:sit_idle","repeat":3}])"),
      {"example:sit_down", "example:sit_idle"});
  accepted(*c);
  const auto s = the_sequence(*c);
  REQUIRE(s->metadata.extra.size() == 1);
  CHECK(s->metadata.extra[0].first == "credit");
  CHECK(s->metadata.extra[0].second == "\"author\"");
  CHECK(s->cooldown.count() == 100);
  CHECK(s->player.stop_conditions.movement_distance == 0.1);
  CHECK(s->player.hidden);
  REQUIRE(s->steps.size() == 3);
  CHECK(s->steps[0].kind == step_kind::emote);
  CHECK(s->steps[0].repeat == 1);
  CHECK(s->steps[0].transition.count() == 0);
  CHECK(s->steps[1].kind == step_kind::wait);
  CHECK(s->steps[1].wait.count() == 10);
  CHECK(s->steps[2].repeat == 3);
  CHECK(s->steps[2].transition.count() == 0);
  CHECK(s->steps[2].candidates[0].animation->id == "example:sit_idle");
  CHECK_FALSE(s->two_player());
  CHECK(s->fixed_duration);
}

TEST_CASE("F32: the two-player Sequence HS") {
  const auto c = with_animations(hs(), handshake_ids);
  accepted(*c);
  const auto s = the_sequence(*c);
  REQUIRE(s->two_player());
  CHECK(s->partner->timeout.count() == 60);
  CHECK(s->partner->offer_id == "example:handshake_offer");
  CHECK(s->partner->offer->id == "example:handshake_offer");
  REQUIRE(s->partner->matched.size() == 1);
  const auto& m = s->partner->matched[0];
  REQUIRE(m.candidates.size() == 2);
  CHECK_FALSE(m.weighted);
  CHECK(m.candidates[0].weight == 0);
  CHECK(m.candidates[1].weight == 0);
  CHECK(m.repeat == 3);
  REQUIRE(s->partner->timeout_steps.size() == 1);
  CHECK(s->partner->timeout_steps[0].candidates[0].id == "example:handshake_withdraw");
  const auto& p = s->participants->partner;
  CHECK(p.position.local);
  CHECK(p.position.components[0].value == 0);
  CHECK(p.position.components[1].value == 0);
  CHECK(p.position.components[2].value == 1.2);
  CHECK(p.rotation.yaw.relative);
  CHECK(p.rotation.yaw.value == 180);
  const auto& i = s->participants->initiator;
  CHECK_FALSE(i.position.local);
  for (const auto& comp : i.position.components) {
    CHECK(comp.relative);
    CHECK(comp.value == 0);
  }
  CHECK(i.rotation.yaw.relative);
  CHECK(i.rotation.yaw.value == 0);
  CHECK(s->steps.empty());
}

TEST_CASE("F33: absolute participant positions") {
  rejected(*load(hs().set("participants.partner.position", "\"0 64 0\"")),
           "$.participants.partner.position", "must use only relative ~ or local ^ coordinates");
}

TEST_CASE("F34: equal and weighted candidates") {
  auto c = with_animations(
      seq(R"([{"emote":["example:idle_1","example:idle_2","example:idle_3"],"repeat":4}])"),
      {"example:idle_1", "example:idle_2", "example:idle_3"});
  accepted(*c);
  auto s = the_sequence(*c);
  REQUIRE(s->steps[0].candidates.size() == 3);
  CHECK_FALSE(s->steps[0].weighted);
  CHECK(s->steps[0].candidates[0].id == "example:idle_1");
  CHECK(s->steps[0].candidates[1].id == "example:idle_2");
  CHECK(s->steps[0].candidates[2].id == "example:idle_3");
  CHECK(s->steps[0].repeat == 4);
  CHECK_FALSE(s->fixed_duration);
  c = with_animations(seq(R"([{"emote":["example:idle_1",30,"example:idle_2",70]}])"),
                      {"example:idle_1", "example:idle_2"});
  accepted(*c);
  s = the_sequence(*c);
  CHECK(s->steps[0].weighted);
  REQUIRE(s->steps[0].candidates.size() == 2);
  CHECK(s->steps[0].candidates[0].weight == 30);
  CHECK(s->steps[0].candidates[1].weight == 70);
}

TEST_CASE("F35: control candidates") {
  const auto c = with_animations(
      seq(R"([{"emote":["example:idle",70,"emote:continue",20,"emote:break",10],"repeat":5}])"),
      {"example:idle"});
  accepted(*c);
  const auto s = the_sequence(*c);
  const auto& cands = s->steps[0].candidates;
  REQUIRE(cands.size() == 3);
  CHECK(cands[0].kind == candidate_kind::animation);
  CHECK(cands[0].animation != nullptr);
  CHECK(cands[1].kind == candidate_kind::continue_repeat);
  CHECK(cands[1].weight == 20);
  CHECK(cands[1].animation == nullptr);
  CHECK(cands[2].kind == candidate_kind::break_repeat);
  CHECK(s->steps[0].repeat == 5);
}

TEST_CASE("F36: the offer is an Animation") {
  rejected(*load(hs().set("steps[0].await_partner.emote", "\"emote:break\"")),
           "$.steps[0].await_partner.emote", "must reference an animation");
}

TEST_CASE("F37: weights total 100") {
  rejected(*load(seq(R"([{"emote":["example:idle_1",30,"example:idle_2",60]}])")),
           "$.steps[0].emote", "chances must total 100");
}

TEST_CASE("F38: wait placement") {
  rejected(*load(seq(R"([{"wait":"1t"},{"emote":"a:x"}])")), "$.steps[0].wait",
           "must be between emote steps");
  rejected(*load(seq(R"([{"emote":"a:x"},{"wait":"1t"}])")), "$.steps[1].wait",
           "must be between emote steps");
  rejected(*load(seq(R"([{"emote":"a:x"},{"wait":"1t"},{"wait":"2t"},{"emote":"a:x"}])")),
           "$.steps[2].wait", "must not follow another wait step");
}

TEST_CASE("F39: null player settings are absent") {
  rejected(*load(seq(R"([{"emote":"a:x"}])").set("settings.player", "null")), "$.settings.player",
           "is required");
}

TEST_CASE("F40: candidate arrays") {
  auto steps = [](std::string_view emote) {
    return seq("[{\"emote\":" + std::string(emote) + "}]");
  };
  rejected(*load(steps(R"(["a:x",0,"a:y",100])")), "$.steps[0].emote[1]",
           "must be an integer between 1 and 100");
  rejected(*load(steps(R"(["a:x",30.5,"a:y",69.5])")), "$.steps[0].emote[1]",
           "must be an integer between 1 and 100");
  const auto c = load(std::vector{steps(R"(["a:x",30.0,"a:y",70])").text(), anim("a:x", 1).text(),
                                  anim("a:y", 1).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps[0].candidates[0].weight == 30);
  rejected(*load(steps(R"(["a:x",50,"a:x",50])")), "$.steps[0].emote[2]",
           "must not duplicate an earlier candidate");
  rejected(*load(steps(R"(["a:x",50,"a:y"])")), "$.steps[0].emote",
           "must contain complete id and chance pairs");
  rejected(*load(steps(R"(["a:x","a:y",50])")), "$.steps[0].emote[2]", "must be a string");
  rejected(*load(steps("[]")), "$.steps[0].emote", "must not be empty");
  rejected(*load(steps("5")), "$.steps[0].emote",
           "must be a string or a non-empty array of strings");
}

TEST_CASE("F41: repeat") {
  auto step = [](std::string_view repeat) {
    return seq("[{\"emote\":\"a:x\",\"repeat\":" + std::string(repeat) + "}]");
  };
  rejected(*load(step("0")), "$.steps[0].repeat", "must be at least 1");
  auto c = load(std::vector{step("3.0").text(), anim("a:x", 1).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps[0].repeat == 3);
  rejected(*load(step("null")), "$.steps[0].repeat", "is required");
  c = load(std::vector{step("2147483647").text(), anim("a:x", 1).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps[0].repeat == 2147483647);
}

TEST_CASE("F42: transitions") {
  const auto c = load(
      std::vector{seq(R"([{"emote":"a:x","transition":"5t"}])").text(), anim("a:x", 1).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps[0].transition.count() == 5);
  rejected(*load(seq(R"([{"emote":"a:x"},{"wait":"1t","transition":"1t"},{"emote":"a:x"}])")),
           "$.steps[1].transition", "is supported only on an emote step");
  rejected(*load(seq(R"([{"emote":"a:x","wait":"1t"}])")), "$.steps[0]",
           "must contain exactly one of emote, wait, or await_partner");
}

TEST_CASE("F43: two-player structure") {
  rejected(
      *load(hs().set(
          "steps[0].matched",
          R"([{"await_partner":{"emote":"a:x","timeout":"1s"},"matched":[{"emote":"a:x"}],"timeout":[{"emote":"a:x"}]}])")),
      "$.steps[0].matched[0].await_partner", "is not supported inside a collaboration branch");
  doc two = hs();
  two.set("steps",
          "[" + to_json(*hs().root().find("steps")->as_array().data()) + R"(,{"emote":"a:x"}])");
  rejected(*load(two), "$.steps", "a partner sequence must contain exactly one await_partner step");
  rejected(*load(hs().erase("participants")), "$.steps",
           "a partner sequence requires participants");
  rejected(*load(seq(R"([{"emote":"a:x"}])").set("participants", hs_participants)), "$.steps",
           "participants require an await_partner step");
}

TEST_CASE("F44: Animation-only settings are unknown keys in a Sequence") {
  const auto c = load(std::vector{seq(R"([{"emote":"a:x"}])")
                                      .set("settings.standalone", "true")
                                      .set("settings.playback", "{}")
                                      .text(),
                                  anim("a:x", 1).text()});
  accepted(*c);
  CHECK(warnings(*c) == std::vector<std::string>{"$.settings.standalone: unknown key ignored",
                                                 "$.settings.playback: unknown key ignored"});
}

// -------------------------------------------------------------------------------------------
// Resolution

TEST_CASE("F45: the node union across candidates") {
  const auto first = anim("demo:first", 1).set("nodes", "{\"flower\":" + text_node(2) + "}");
  const auto second = anim("demo:second", 1).set("nodes", "{\"butterfly\":" + text_node(8) + "}");
  const auto c =
      load(std::vector{seq(R"([{"emote":["demo:first","demo:second"],"repeat":2}])").text(),
                       first.text(), second.text()});
  accepted(*c);
  const auto s = the_sequence(*c);
  REQUIRE(s->node_union.size() == 2);
  CHECK(s->node_union[0].id == "flower");
  CHECK(s->node_union[0].transform.position[0] == 2);
  CHECK(s->node_union[1].id == "butterfly");
  CHECK(s->node_union[1].transform.position[0] == 8);
  CHECK(s->steps_length == 2);
  CHECK(s->duration == 2);
  CHECK(s->layout_anchor().id == "demo:first");
}

TEST_CASE("F46: lifecycle events are refused, timeline events kept") {
  const std::string event =
      R"([{"source":{"type":"server"},"origin":{"type":"root"},"commands":["say x"]}])";
  for (std::string_view group : {"start", "loop", "stop"}) {
    auto eventful = anim("demo:eventful", 1, group == "loop" ? "loop" : "once");
    eventful.set("timeline.events", "{\"" + std::string(group) + "\":" + event + "}");
    rejected(*load(std::vector{seq(R"([{"emote":"demo:eventful"}])").text(), eventful.text()}),
             "$.steps[0].emote",
             "Sequence animation lifecycle events are not supported by compiled sequences: "
             "demo:eventful");
  }
  auto timed = anim("demo:eventful", 1);
  timed.set(
      "timeline.events",
      R"({"timeline":[{"time":"0t","source":{"type":"server"},"origin":{"type":"root"},"commands":["say x"]}]})");
  accepted(*load(std::vector{seq(R"([{"emote":"demo:eventful"}])").text(), timed.text()}));
}

TEST_CASE("F47: compatible nodes") {
  const auto a = anim("demo:a", 1).set("nodes", "{\"text\":" + text_node(2) + "}");
  const auto b = anim("demo:b", 1).set("nodes", "{\"text\":" + text_node(8) + "}");
  auto c = load(
      std::vector{seq(R"([{"emote":"demo:a"},{"emote":"demo:b"}])").text(), a.text(), b.text()});
  accepted(*c);
  auto s = the_sequence(*c);
  REQUIRE(s->node_union.size() == 1);
  CHECK(s->node_union[0].transform.position[0] == 2);
  CHECK(s->union_source[0].first == 0);
  CHECK(s->steps_length == 2);
  const auto ho = anim("demo:b", 1).set("nodes", "{\"text\":" + text_node(8, "ho") + "}");
  rejected(*load(std::vector{seq(R"([{"emote":"demo:a"},{"emote":"demo:b"}])").text(), a.text(),
                             ho.text()}),
           "$.steps[1].emote", "Sequence animations must use compatible nodes: demo:a and demo:b");
}

TEST_CASE("F48: at least one Animation") {
  rejected(*load(seq(R"([{"emote":["emote:continue","emote:break"]}])")), "$.steps",
           "Sequence must reference at least one animation");
  const auto c = load(std::vector{seq(R"([{"emote":"emote:break"},{"emote":"demo:a"}])").text(),
                                  anim("demo:a", 1).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps_length == 1);
}

TEST_CASE("F49: hold and server_sync cannot be sequenced; standalone false can") {
  rejected(*load(std::vector{seq(R"([{"emote":"demo:held"}])").text(),
                             anim("demo:held", 2, "hold").text()}),
           "$.steps[0].emote", "Hold animation is not supported in a sequence: demo:held");
  rejected(*load(std::vector{seq(R"([{"emote":"demo:sync"}])").text(),
                             anim("demo:sync", 2, "server_sync").text()}),
           "$.steps[0].emote",
           "Server-synchronized animation is not supported in a sequence: demo:sync");
  accepted(*load(std::vector{seq(R"([{"emote":"demo:hidden"}])").text(),
                             anim("demo:hidden", 2).set("settings.standalone", "false").text()}));
}

TEST_CASE("F50: unknown or non-Animation references") {
  const auto steps = seq(R"([{"emote":["demo:a","example:other"]}])");
  rejected(*load(std::vector{steps.text(), anim("demo:a", 1).text()}), "$.steps[0].emote[1]",
           "Unknown or disabled animation: example:other");
  const auto other = seq(R"([{"emote":"demo:a"}])", "example:other");
  const auto c = load(std::vector{steps.text(), anim("demo:a", 1).text(), other.text()});
  INFO(dump(*c));
  CHECK(c->error_count() == 1);
  CHECK(c->find_sequence("example:other") != nullptr);
  CHECK(c->find("example:sit") == nullptr);
  // Disabled Animations leave the resolution set but stay registered.
  load_options disabled;
  disabled.disabled = {"demo:a"};
  const auto d =
      load(std::vector{seq(R"([{"emote":"demo:a"}])").text(), anim("demo:a", 1).text()}, disabled);
  rejected(*d, "$.steps[0].emote", "Unknown or disabled animation: demo:a");
  REQUIRE(d->find("demo:a") != nullptr);
  CHECK(d->find("demo:a")->disabled);
}

TEST_CASE("F51: one skin layout") {
  auto a = anim("demo:a", 1);
  a.set("nodes", "{}");
  {
    auto base = a0();
    const auto* node = base.root().find("nodes")->find("player_head");
    a.set("nodes.player_head", to_json(*node));
  }
  const auto b = anim("demo:b", 1);
  rejected(*load(std::vector{seq(R"([{"emote":"demo:a"},{"emote":"demo:b"}])").text(), a.text(),
                             b.text()}),
           "$.steps[1].emote",
           "Sequence animations must use the same skin layout: demo:a and demo:b");
}

TEST_CASE("F52: partner duplication of a symmetric Animation") {
  auto x = anim("demo:handshake", 2);
  x.set("nodes", "{\"body\":" + std::string(head_body_node) + "}");
  x.set("timeline.tracks",
        R"({"body":{"position":[{"time":"0t","value":[0,0,0]},{"time":"1t","value":[0,1,0]}],
                    "visible":[{"time":"0t","value":true},{"time":"1t","value":false}]}})");
  const auto c = load(std::vector{hs("demo:handshake").text(), x.text()});
  accepted(*c);
  const auto s = the_sequence(*c);
  REQUIRE(s->animations.size() == 1);
  const auto& l = s->animations[0];
  CHECK(l.expanded);
  REQUIRE(l.nodes.size() == 2);
  CHECK(l.nodes[0].id == "body");
  CHECK(l.nodes[1].id == "__partner__body");
  CHECK(l.nodes[1].space == emote::core::space::partner);
  CHECK(l.nodes[1].is_root);
  CHECK(l.nodes[1].mirror_of == 0);
  REQUIRE(l.nodes[1].skin);
  CHECK(l.nodes[1].skin->participant == participant::partner);
  CHECK(l.nodes[1].skin->part == skin_part::body);
  CHECK(l.nodes[1].skin->order == 0);
  REQUIRE(s->node_union.size() == 2);
  CHECK(s->node_union[0].id == "body");
  CHECK(s->node_union[1].id == "__partner__body");
  CHECK(s->node_union[1].mirror_of == 0);
  REQUIRE(s->skin.size() == 2);
  int partner_bindings = 0;
  for (const auto& r : s->skin) {
    CHECK(r.start == 0);
    CHECK(r.end == 12);
    if (r.participant == participant::partner) {
      ++partner_bindings;
      CHECK(r.node_id == "__partner__body");
      CHECK(r.node == 1);
    }
  }
  CHECK(partner_bindings == 1);
  CHECK(l.union_index == std::vector<std::int32_t>{0, 1});
}

TEST_CASE("F53: an Animation with partner nodes is used as written") {
  auto x = anim("demo:give", 2);
  x.set(
      "nodes",
      R"({"giver":{"type":"anchor","space":"initiator","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}},
            "receiver":{"type":"anchor","space":"partner","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}}})");
  const auto c = load(std::vector{hs("demo:give").text(), x.text()});
  accepted(*c);
  const auto s = the_sequence(*c);
  CHECK_FALSE(s->animations[0].expanded);
  REQUIRE(s->node_union.size() == 2);
  CHECK(s->node_union[0].id == "giver");
  CHECK(s->node_union[1].id == "receiver");
}

TEST_CASE("F54: copies keep the hierarchy and mirror tracks") {
  auto x = anim("demo:hier", 2);
  x.set(
      "nodes.display",
      R"({"type":"item_display","parent":"root","item_stack_snbt":"{id:\"minecraft:stone\"}","item_display":"none","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}})");
  x.set(
      "timeline.tracks",
      R"({"display":{"position":[{"time":"0t","value":[0,0,0]},{"time":"2t","value":[1,0,0]}]}})");
  const auto c = load(std::vector{hs("demo:hier").text(), x.text()});
  accepted(*c);
  const auto s = the_sequence(*c);
  const auto& l = s->animations[0].nodes;
  REQUIRE(l.size() == 4);
  CHECK(l[2].id == "__partner__root");
  CHECK(l[2].is_root);
  CHECK(l[2].space == emote::core::space::partner);
  CHECK(l[3].id == "__partner__display");
  CHECK(l[3].parent == 2);
  CHECK(l[3].mirror_of == 1);
  CHECK(l[3].space == emote::core::space::partner);
  // The mirrored source has the track; the copy reads it through mirror_of.
  CHECK(s->animations[0].animation->tracks[1].position.size() == 2);
  REQUIRE(s->node_union.size() == 4);
  CHECK(s->node_union[3].parent == 2);
}

TEST_CASE("F55: the copy prefix grows past existing ids") {
  auto x = anim("demo:x", 2);
  x.set(
      "nodes",
      R"({"body":{"type":"anchor","space":"initiator","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}},
            "__partner__body":{"type":"anchor","space":"initiator","transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,1,1]}}})");
  const auto c = load(std::vector{hs("demo:x").text(), x.text()});
  accepted(*c);
  const auto& l = the_sequence(*c)->animations[0].nodes;
  REQUIRE(l.size() == 4);
  CHECK(l[2].id == "__partner___body");
  CHECK(l[3].id == "__partner_____partner__body");
}

TEST_CASE("F56: layouts compare after expansion") {
  auto sym = anim("demo:sym", 2);
  sym.set("nodes", "{\"body\":" + std::string(head_body_node) + "}");
  auto asym = anim("demo:asym", 2);
  std::string mate(head_body_node);
  mate.replace(mate.find("\"initiator\""), 11, "\"partner\"");
  mate.replace(mate.find("\"part\""), 6, "\"participant\":\"partner\",\"part\"");
  asym.set("nodes", "{\"body\":" + std::string(head_body_node) + ",\"mate\":" + mate + "}");
  auto s = hs("demo:sym");
  s.set("steps[0].timeout", R"([{"emote":"demo:asym"}])");
  rejected(*load(std::vector{s.text(), sym.text(), asym.text()}), "$.steps[0].timeout[0].emote",
           "Sequence animations must use the same skin layout: demo:sym and demo:asym");
}

TEST_CASE("F57: preview overflow") {
  rejected(*load(std::vector{seq(R"([{"emote":"demo:a","repeat":2147483647}])").text(),
                             anim("demo:a", 2).text()}),
           "$.steps", "Compiled sequence is too long: example:sit");
  const auto c = load(std::vector{seq(R"([{"emote":"demo:a","repeat":2147483647}])").text(),
                                  anim("demo:a", 1).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps_length == 2147483647);
}

TEST_CASE("F58: preview lengths with waits and loop delays") {
  auto c =
      load(std::vector{seq(R"([{"emote":"demo:two"},{"wait":"5t"},{"emote":"demo:three"}])").text(),
                       anim("demo:two", 2).text(), anim("demo:three", 3).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps_length == 10);
  c = load(std::vector{seq(R"([{"emote":"demo:two"},{"emote":"demo:three","repeat":2}])").text(),
                       anim("demo:two", 2).text(), anim("demo:three", 3, "loop", 2).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps_length == 10);
}

TEST_CASE("F59: transitions in the preview") {
  auto c = load(std::vector{seq(R"([{"emote":"demo:x","repeat":2,"transition":"5t"}])").text(),
                            anim("demo:x", 3, "loop", 2).text()});
  accepted(*c);
  CHECK(the_sequence(*c)->steps_length == 13);
  auto two = hs("demo:a");
  two.set("steps[0].matched", R"([{"emote":"demo:a","transition":"5t"}])");
  c = load(std::vector{two.text(), anim("demo:a", 1).text()});
  accepted(*c);
  const auto s = the_sequence(*c);
  CHECK(s->matched_length == 6);
  CHECK(s->offer_length == 1);
  CHECK(s->timeout_length == 1);
  CHECK(s->duration == 7);
}
