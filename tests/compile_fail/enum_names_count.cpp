// Compiled by CTest, not linked: with ENUM_NAMES_COMPLETE the table names every enumerator and the
// file compiles; without it the table misses the last one and must not compile (tests/CMakeLists.txt
// expects exactly that), which is what keeps a new enumerator from reaching the wire unnamed.
#include "engine/core/enum_names.hpp"

#include <cstdint>

enum class colour : std::uint8_t { red, green, blue };

#ifdef ENUM_NAMES_COMPLETE
constexpr emote::core::enum_names<colour, 3> colour_names{{"red", "green", "blue"}};
#else
constexpr emote::core::enum_names<colour, 2> colour_names{{"red", "green"}};
#endif

static_assert(colour_names(colour::green) == "green");
