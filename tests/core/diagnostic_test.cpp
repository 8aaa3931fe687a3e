#include "engine/core/diagnostic.hpp"

#include <doctest/doctest.h>

TEST_CASE("diagnostics print in the check format") {
  emote::core::diagnostic d{"sit/a.json",
                            3,
                            14,
                            "$.settings.cooldown",
                            "must be a string",
                            emote::core::severity::error,
                            {}};
  CHECK(emote::core::format_diagnostic(d) ==
        "sit/a.json:3:14: error: $.settings.cooldown: must be a string");
  d.severity = emote::core::severity::warning;
  CHECK(emote::core::format_diagnostic(d) ==
        "sit/a.json:3:14: warning: $.settings.cooldown: must be a string");
}
