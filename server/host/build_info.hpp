#pragma once
// The running build's id (protocol.md §2, §8): `git describe --always --dirty` of the source tree
// and the compiler, fixed when CMake configured the build (cmake/build_id.cmake), or "unknown ..."
// outside a git checkout. Shown by `--version`, in the welcome line and in recording headers.

#include <string_view>

namespace emote::server {

std::string_view build_id() noexcept;

} // namespace emote::server
