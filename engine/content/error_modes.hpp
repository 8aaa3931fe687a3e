#pragma once
// How `check`'s every-error load relates to loading's (formats.md §1.3): with each file's further
// errors removed, the all-errors diagnostics are the loader's. The content tests check it on every
// load and the content fuzzer on every input; both print diagnostics the same way.

#include "engine/core/diagnostic.hpp"

#include <string>

namespace emote::content {

/// The diagnostics of an `all_errors` load without the errors after each file's first: what
/// loading reports. A file's further errors follow its first directly (the loader appends a
/// file's warnings, then its errors).
inline core::diagnostics first_errors_only(const core::diagnostics& all) {
  core::diagnostics out;
  for (const auto& d : all) {
    const bool further = !out.empty() && d.severity == core::severity::error &&
                         out.back().severity == core::severity::error && out.back().file == d.file;
    if (!further) {
      out.push_back(d);
    }
  }
  return out;
}

/// One line per diagnostic (core::format_diagnostic, then a suggestion in brackets), for
/// comparing two loads and printing them.
inline std::string diagnostics_text(const core::diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) {
    out += core::format_diagnostic(d);
    if (!d.suggestion.empty()) {
      out += " [" + d.suggestion + "]";
    }
    out += '\n';
  }
  return out;
}

} // namespace emote::content
