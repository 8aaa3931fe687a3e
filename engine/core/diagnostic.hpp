#pragma once
// Diagnostics: every problem found in user input carries where (file, line, column, JSON path)
// and what (message, severity). Line and column are 1-based; 0 means "not applicable".

#include <string>
#include <vector>

namespace emote::core {

enum class severity { error, warning };

struct diagnostic {
  std::string file;    ///< relative path as named in discovery order (formats.md §1.1)
  int line = 0;        ///< 1-based line
  int column = 0;      ///< 1-based column in Unicode scalar values
  std::string path;    ///< JSON path, e.g. `$.steps[2].emote[3]`
  std::string message; ///< gist [": " detail]
  core::severity severity = severity::error;
  /// A fix where one is known, e.g. "did you mean `keyframes`?" (core/suggest.hpp); else empty.
  std::string suggestion;
};

using diagnostics = std::vector<diagnostic>;

/// `<file>:<line>:<col>: <severity>: <path>: <message>` as `emote-sim check` prints it.
std::string format_diagnostic(const diagnostic& d);

} // namespace emote::core
