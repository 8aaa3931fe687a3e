#include "engine/api/event.hpp"
#include "engine/api/types.hpp"
#include "engine/content/model.hpp"
#include "engine/core/enum_names.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace emote::api;
using emote::core::enumerator_count;

namespace {

// Every enumerator has a distinct, non-empty wire name that parses back to it; the value past the
// last enumerator has none.
template <class E>
void check_round_trip() {
  constexpr auto n = enumerator_count<E>();
  static_assert(n > 0);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < n; ++i) {
    const auto e = static_cast<E>(i);
    const auto wire = name(e);
    CAPTURE(i);
    CHECK_FALSE(wire.empty());
    CHECK(seen.insert(std::string(wire)).second);
    CHECK(parse_enum<E>(wire) == e);
  }
  CHECK(name(static_cast<E>(n)).empty());
  CHECK_FALSE(parse_enum<E>("").has_value());
}

} // namespace

TEST_CASE("core counts the enumerators of an enumeration") {
  static_assert(enumerator_count<stop_reason>() == 17);
  static_assert(enumerator_count<error_code>() == 24);
  static_assert(enumerator_count<game_mode>() == 4);
  static_assert(enumerator_count<emote::content::item_display_context>() == 10);
  CHECK(enumerator_count<physical_arm>() == 2);
}

TEST_CASE("every wire enumeration round-trips through its names") {
  check_round_trip<game_mode>();
  check_round_trip<physical_arm>();
  check_round_trip<space>();
  check_round_trip<play_source>();
  check_round_trip<role>();
  check_round_trip<display_kind>();
  check_round_trip<branch>();
  check_round_trip<block_kind>();
  check_round_trip<stop_reason>();
  check_round_trip<release_why>();
  check_round_trip<player_event_kind>();
  check_round_trip<error_code>();
}

TEST_CASE("wire names are the protocol's spelling") {
  CHECK(name(stop_reason::game_mode_changed) == "GAME_MODE_CHANGED");
  CHECK(parse_enum<stop_reason>("SERVER_STOPPING") == stop_reason::server_stopping);
  CHECK(name(error_code::clock_not_manual) == "clock_not_manual");
  CHECK(name(release_why::session_ended) == "session_ended");
  CHECK(name(physical_arm::left) == "left");
  CHECK(name(space::partner) == "partner");
  CHECK(parse_enum<play_source>("idle") == play_source::idle);
  CHECK(parse_enum<game_mode>("Creative") == std::nullopt); // exact case
  CHECK_FALSE(parse_enum<error_code>("nope").has_value());
}

TEST_CASE("content enumerations round-trip through their file spellings") {
  namespace c = emote::content;
  auto check_table = [](const auto& table) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      CHECK(table.parse(table.all()[i]).has_value());
      CHECK(static_cast<std::size_t>(*table.parse(table.all()[i])) == i);
    }
  };
  check_table(c::emote_kind_names);
  check_table(c::playback_mode_names);
  check_table(c::node_type_names);
  check_table(c::item_display_context_names);
  check_table(c::participant_names);
  check_table(c::skin_part_names);
  check_table(c::interpolation_names);
  check_table(c::event_source_names);
  check_table(c::event_origin_names);
  CHECK(c::name(c::node_type::text_display) == "text_display");
  CHECK(c::name(c::skin_part::left_leg) == "left_leg");
}

TEST_CASE("events report their wire type") {
  CHECK(type_name(event{ev_display_update{}}) == "display.update");
  CHECK(type_name(event{ev_partner_timeout{}}) == "partner.timeout");
  CHECK(type_name(event{ev_player_visibility{}}) == "player.visibility");
}
