#pragma once
// The line/column reader: the project's own JSON reader for every file a person writes (emote
// files, configuration, scenarios). Every value carries its 1-based line and column (columns in
// Unicode scalar values); errors and warnings name them.
//
// Dialects:
// * emote_file — formats.md §1.2: RFC 8259 plus comments, one trailing comma and non-finite
//   literals (each warned once per file), duplicate keys (last value wins, first position kept,
//   warned), U+FFFD for ill-formed UTF-8 (warned), a skipped BOM (warned).
// * relaxed — hand-written configuration and scenario files: RFC 8259 plus comments and trailing
//   commas, a skipped BOM; ill-formed UTF-8, non-finite literals and duplicate keys are errors.
// * strict — RFC 8259; duplicate keys as in emote_file. The dialect the wire reader
//   (wire_reader.hpp) reads, kept here so the two readers can be compared (fuzz/json_diff_fuzz).
//
// Numbers are read exactly (nearest binary64, ties to even; beyond binary64 to infinity, below
// to zero or a subnormal); integer tokens that fit 64 bits keep their exact value (value.hpp).
//
// RapidJSON's reader cannot report per-value positions and rejects overflowing numbers, so it is
// not used here.

#include "engine/json/value.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace emote::json {

enum class source_dialect : std::uint8_t { emote_file, relaxed, strict };

/// A dialect warning or the parse error.
struct json_notice {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::string path;    ///< `$`, or the path of the value concerned
  std::string message; ///< complete message, e.g. "non-standard JSON: comment"
};

struct json_parse_result {
  bool ok = false;
  json_value root;
  std::vector<json_notice> warnings; ///< in generation order
  json_notice error;                 ///< when !ok: "invalid JSON: <detail>"
};

json_parse_result parse_source(std::string_view bytes,
                               source_dialect dialect = source_dialect::emote_file);

} // namespace emote::json
