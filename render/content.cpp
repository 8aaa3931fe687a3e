// Display content per output version (render.md §5.4): item stacks, block states, profiles.
// Text components are in text_component.cpp, network NBT in nbt_network.cpp.

#include "render/content.hpp"

namespace emote::render {

bool valid_profile_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > 16) {
    return false;
  }
  for (const char c : name) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) {
      return false;
    }
  }
  return true;
}

} // namespace emote::render
