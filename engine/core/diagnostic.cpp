#include "engine/core/diagnostic.hpp"

namespace emote::core {

std::string format_diagnostic(const diagnostic& d) {
  std::string out;
  out.reserve(d.file.size() + d.path.size() + d.message.size() + 32);
  out += d.file;
  out += ':';
  out += std::to_string(d.line);
  out += ':';
  out += std::to_string(d.column);
  out += d.severity == severity::error ? ": error: " : ": warning: ";
  out += d.path;
  out += ": ";
  out += d.message;
  return out;
}

} // namespace emote::core
