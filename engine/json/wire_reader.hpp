#pragma once
// The checked fast reader: RapidJSON for wire lines, recordings and output lines (RFC 8259), with
// a wrapper handler that
// (a) converts every number from its decimal text exactly (value.hpp number_from_token, the
//     conversion the source reader uses), so a number reads as the nearest binary64 (ties to
//     even), beyond binary64 as +-infinity (the decoders then refuse it with its path), integers
//     that fit 64 bits exactly;
// (b) bounds the nesting depth (max_depth), so no line can exhaust the stack of code that walks
//     the tree;
// (c) rejects anything after the root value, NUL bytes included, and ill-formed UTF-8.
// Duplicate keys are kept (both members; find_member sees the first).

#include "engine/json/value.hpp"

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace emote::json {

struct json_parse_error {
  std::size_t offset = 0; ///< byte offset where parsing failed
  std::string message;    ///< "<what> at offset <n>"
};

/// Parse exactly one JSON value into `doc` (which is reset).
std::optional<json_parse_error> parse_wire(std::string_view text, rapidjson::Document& doc);

/// The member `key` of an object; nullptr when absent or when `obj` is not an object.
[[nodiscard]] const rapidjson::Value* find_member(const rapidjson::Value& obj,
                                                  std::string_view key) noexcept;

/// A string value's characters (`v` must be a string), without copying.
[[nodiscard]] inline std::string_view string_of(const rapidjson::Value& v) noexcept {
  return {v.GetString(), v.GetStringLength()};
}

/// Helpers used by decoders.
[[nodiscard]] bool is_integral(const rapidjson::Value& v) noexcept;
/// The value as int64 when it is a number with an integral value in range.
[[nodiscard]] std::optional<std::int64_t> as_int64(const rapidjson::Value& v) noexcept;

/// A RapidJSON copy of a source-reader tree (objects in member order, numbers in their form), for
/// code that reads both wire lines and hand-written files.
void to_rapidjson(const json_value& v, rapidjson::Value& out,
                  rapidjson::Document::AllocatorType& alloc);

} // namespace emote::json
