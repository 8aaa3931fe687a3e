#pragma once
// The `emote-sim check` listing of a loaded catalog (formats.md §1.3, protocol.md §9).

#include "engine/content/model.hpp"

#include <string>

namespace emote::content {

/// One `<file>:<line>:<col>: <severity>: <path>: <message>` line per diagnostic, then
/// `check: <a> animations, <s> sequences loaded; <e> errors, <w> warnings`.
std::string check_report_text(const catalog& c);

/// One JSON object per diagnostic
/// (`{"file","line","column","severity","path","message"}`), then
/// `{"summary":{"files","animations","sequences","errors","warnings"}}`, one per line.
std::string check_report_json(const catalog& c);

} // namespace emote::content
