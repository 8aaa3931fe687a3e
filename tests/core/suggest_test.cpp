// "Did you mean ...?" (engine/core/suggest.hpp).
#include "engine/core/suggest.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>

using emote::core::closest_word;
using emote::core::did_you_mean;

namespace {
constexpr std::string_view keys[] = {"duration", "tracks", "events"};
constexpr std::string_view modes[] = {"once", "hold", "loop", "server_sync"};
} // namespace

TEST_CASE("suggest: a misspelling within a third of the word's length") {
  CHECK(closest_word("duraton", keys) == "duration"); // a deletion
  CHECK(closest_word("tracsk", keys) == "tracks");    // a swap
  CHECK(closest_word("Events", keys) == "events");    // case ignored
  CHECK(closest_word("lop", modes) == "loop");
  CHECK(closest_word("server-sync", modes) == "server_sync");
  CHECK(did_you_mean("evnets", keys) == "did you mean `events`?");
}

TEST_CASE("suggest: nothing for a different word, an empty one or a too short one") {
  CHECK(closest_word("color", keys).empty());
  CHECK(closest_word("", keys).empty());
  CHECK(closest_word("x", modes).empty()); // one edit away from nothing useful
  CHECK(did_you_mean("dance", modes).empty());
  const std::string long_word(70, 'a'); // longer than any key anyone misspelt
  CHECK(closest_word(long_word, keys).empty());
}
