#pragma once
// Base64 (RFC 4648 section 4, with padding): packet bytes in frames (render.md §6).

#include <string>
#include <string_view>

namespace emote::core {

/// Append the base64 form of `bytes` to `out`.
void append_base64(std::string& out, std::string_view bytes);

} // namespace emote::core
