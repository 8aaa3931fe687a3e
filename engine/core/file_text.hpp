#pragma once
// Reading a whole file into memory: the one place the tools' file readers (config, scenarios,
// recordings, expectations, content digests) open and read a file, bounded so that no file can
// exhaust the process.

#include "engine/core/result.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace emote::core {

/// The largest file read_file_text() reads unless told otherwise: 256 MiB.
inline constexpr std::uintmax_t default_max_file_bytes = std::uintmax_t{256} << 20;

/// The bytes of `file`, or why not, as "<file>: cannot open", "<file>: is a folder, not a file",
/// "<file>: cannot read" or "<file>: larger than N MiB" (N = max_bytes in whole MiB).
[[nodiscard]] result<std::string, std::string>
read_file_text(const std::filesystem::path& file,
               std::uintmax_t max_bytes = default_max_file_bytes);

} // namespace emote::core
