#pragma once
// The `emote-sim check` listing of a loaded catalog (formats.md §1.3, protocol.md §9).

#include "engine/content/model.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace emote::content {

struct check_options {
  /// Warn when an emote's worst-case Molang operations per tick (cost.hpp) exceed this
  /// (players.md §8.6; 0: never). `emote-sim check` passes the engine's session budget.
  std::uint64_t molang_tick_ops = 0;
};

/// What `check` found: the catalog's diagnostics, then one warning per emote over the Molang
/// threshold (in catalog order).
struct check_findings {
  core::diagnostics diagnostics;
  std::size_t errors = 0;
  std::size_t warnings = 0;
};
check_findings check_findings_of(const catalog& c, const check_options& options);

/// One `<file>:<line>:<col>: <severity>: <path>: <message>` line per diagnostic, one
/// `molang: <id>: at most <n> operations per tick` line per emote with Molang, then
/// `check: <a> animations, <s> sequences loaded; <e> errors, <w> warnings`.
std::string check_report_text(const catalog& c, const check_options& options = {});
/// The same listing from findings already computed (check_findings_of).
std::string check_report_text(const catalog& c, const check_findings& findings);

/// One JSON object per diagnostic
/// (`{"file","line","column","severity","path","message","code"[,"suggestion"]}`), one
/// `{"emote","molang_ops_per_tick"}` per emote with Molang (null: unbounded), then
/// `{"summary":{"files","animations","sequences","errors","warnings"}}`, one per line.
std::string check_report_json(const catalog& c, const check_options& options = {});
std::string check_report_json(const catalog& c, const check_findings& findings);

/// The stable code of a diagnostic: its gist (the message before the first ": "), lower case,
/// words joined by '-': "unknown key ignored" -> "unknown-key-ignored".
std::string diagnostic_code(std::string_view message);

/// The findings as one SARIF 2.1.0 log (one run, one rule per code, one result per diagnostic with
/// the file as an artifact URI, line and column, the JSON path as a logical location and in
/// `properties.jsonPath`, the suggestion in `properties.suggestion`).
std::string check_report_sarif(const catalog& c, const check_findings& findings,
                               std::string_view tool_version);

} // namespace emote::content
