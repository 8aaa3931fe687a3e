#pragma once
// Identifiers and resource locations (formats.md §2.2), and Java's notion of blank (§2.1).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace emote::core {

enum class identifier_error : unsigned char {
  none,
  format,    ///< "must use namespace:path format"
  lowercase, ///< "must be a valid lowercase Minecraft identifier"
};

/// Check a `namespace:path` identifier (file ids, candidate ids, offer id).
identifier_error check_identifier(std::string_view s) noexcept;

/// `check_identifier(s) == identifier_error::none`.
bool is_identifier(std::string_view s) noexcept;

/// The gist for an identifier error ("" for none).
std::string_view identifier_error_message(identifier_error e) noexcept;

/// A resource location (callback names, ids inside SNBT): like an identifier, but without `:`
/// (or with an empty namespace) the namespace is `minecraft`, and the path may be empty.
/// Returns `namespace:path`, or nullopt when a character is not allowed.
std::optional<std::string> parse_resource_location(std::string_view s);

/// Java `Character.isWhitespace` for one code point.
bool is_java_whitespace(char32_t c) noexcept;

/// Java's `String.trim()`: strips the code units <= U+0020 at both ends (config lists, permission
/// names, command-line values).
std::string_view java_trim(std::string_view s) noexcept;

/// Empty or only Java whitespace (UTF-8 input; ill-formed bytes count as non-blank).
bool is_blank(std::string_view utf8) noexcept;

/// A UUID in its `8-4-4-4-12` hexadecimal form or as 32 hexadecimal digits (either case): the
/// 16 bytes, big-endian; nullopt for anything else.
std::optional<std::array<std::uint8_t, 16>> parse_uuid(std::string_view s) noexcept;
/// The lower-case `8-4-4-4-12` form.
std::string uuid_text(const std::array<std::uint8_t, 16>& u);

} // namespace emote::core
