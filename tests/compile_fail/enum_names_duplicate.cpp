// Compiled by CTest, not linked: a table with a repeated name must not compile.
#include "engine/core/enum_names.hpp"

#include <cstdint>

enum class colour : std::uint8_t { red, green, blue };

#ifdef ENUM_NAMES_COMPLETE
constexpr emote::core::enum_names<colour, 3> colour_names{{"red", "green", "blue"}};
#else
constexpr emote::core::enum_names<colour, 3> colour_names{{"red", "green", "red"}};
#endif
