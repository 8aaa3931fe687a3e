#include "engine/api/types.hpp"
#include "engine/api/event.hpp"

#include <doctest/doctest.h>

using namespace emote::api;

TEST_CASE("enumerations round-trip through their wire names") {
  CHECK(name(stop_reason::game_mode_changed) == "GAME_MODE_CHANGED");
  CHECK(parse_enum<stop_reason>("SERVER_STOPPING") == stop_reason::server_stopping);
  CHECK(name(error_code::clock_not_manual) == "clock_not_manual");
  CHECK(parse_enum<error_code>("internal") == error_code::internal);
  CHECK_FALSE(parse_enum<error_code>("nope").has_value());
  CHECK(name(release_why::session_ended) == "session_ended");
  CHECK(parse_enum<play_source>("idle") == play_source::idle);
  CHECK(parse_enum<game_mode>("Creative") == std::nullopt); // exact case
  for (int i = 0; i <= static_cast<int>(error_code::internal); ++i) {
    const auto c = static_cast<error_code>(i);
    CHECK(parse_enum<error_code>(name(c)) == c);
  }
}

TEST_CASE("events report their wire type") {
  CHECK(type_name(event{ev_display_update{}}) == "display.update");
  CHECK(type_name(event{ev_partner_timeout{}}) == "partner.timeout");
  CHECK(type_name(event{ev_player_visibility{}}) == "player.visibility");
}
