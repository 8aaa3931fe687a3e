// Files in the repository: tests/data/content (a golden `check` listing) and the bundled sample
// emotes in config/emotes.
#include "support.hpp"

#include "engine/content/report.hpp"

#include <fstream>
#include <sstream>
#include <string>

using namespace content_test;

TEST_CASE("check listing of tests/data/content/check matches its golden file") {
  const auto c = load_directory(EMOTE_SIM_TEST_DATA + "/content/check");
  const std::string got = check_report_text(*c);
  std::ifstream f(EMOTE_SIM_TEST_DATA + "/content/check.expected", std::ios::binary);
  REQUIRE(f);
  std::stringstream expected;
  expected << f.rdbuf();
  CHECK(got == expected.str());
  // The text component is kept as compact JSON, members in file order.
  const auto a = c->find_animation("data:good");
  REQUIRE(a != nullptr);
  CHECK(a->nodes[1].text_json == R"({"text":"hi","bold":true})");
  CHECK(check_report_json(*c).find(
            "{\"file\":\"seq.json\",\"line\":12,\"column\":33,\"severity\":\"error\",\"path\":"
            "\"$.steps[2].emote[2]\",\"message\":\"Unknown or disabled animation: data:missing\","
            "\"code\":\"unknown-or-disabled-animation\"}\n"
            "{\"summary\":{\"files\":4,\"animations\":1,\"sequences\":0,\"errors\":3,\"warnings\":"
            "4}}\n") != std::string::npos);
  CHECK(a->metadata.extra ==
        std::vector<std::pair<std::string, std::string>>{{"tags", R"(["a",1,null])"}});
}

TEST_CASE("the bundled sample emotes load with no errors and no warnings") {
  const auto c = load_directory(EMOTE_SIM_SOURCE_DIR + "/config/emotes");
  INFO(dump(*c));
  CHECK(c->diagnostics().empty());
  CHECK(c->animation_count() == 8);
  CHECK(c->sequence_count() == 2);
  // config/emote-sim.json names sample:sit as the idle emote.
  const auto sit = c->find_sequence("sample:sit");
  REQUIRE(sit != nullptr);
  const auto& idles = sit->steps.at(1);
  CHECK(idles.weighted);
  CHECK(idles.repeat == 4);
  CHECK(idles.candidates.at(2).kind == candidate_kind::continue_repeat);
  CHECK(idles.candidates.at(3).kind == candidate_kind::break_repeat);
  CHECK(sit->steps.at(2).kind == step_kind::wait);
  const auto wave = c->find_animation("sample:wave");
  REQUIRE(wave != nullptr);
  CHECK(wave->settings.mode == playback_mode::loop);
  CHECK(wave->settings.standalone);
  const auto hs = c->find_sequence("sample:handshake");
  REQUIRE(hs != nullptr);
  CHECK(hs->two_player());
  CHECK(hs->animations.at(0).expanded);
  // Every skin binding of the initiator has its partner copy.
  CHECK(hs->skin.size() == 12);
}
