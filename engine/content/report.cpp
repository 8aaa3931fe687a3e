#include "engine/content/report.hpp"

#include "engine/json/writer.hpp"

namespace emote::content {

std::string check_report_text(const catalog& c) {
  std::string out;
  for (const auto& d : c.diagnostics()) {
    out += core::format_diagnostic(d);
    out += '\n';
  }
  out += "check: " + std::to_string(c.animation_count()) + " animations, " +
         std::to_string(c.sequence_count()) + " sequences loaded; " +
         std::to_string(c.error_count()) + " errors, " + std::to_string(c.warning_count()) +
         " warnings\n";
  return out;
}

std::string check_report_json(const catalog& c) {
  std::string out;
  json::json_out w(out);
  for (const auto& d : c.diagnostics()) {
    w.raw("{\"file\":");
    w.str(d.file);
    w.raw(",\"line\":");
    w.i64(d.line);
    w.raw(",\"column\":");
    w.i64(d.column);
    w.raw(",\"severity\":");
    w.str(d.severity == core::severity::error ? "error" : "warning");
    w.raw(",\"path\":");
    w.str(d.path);
    w.raw(",\"message\":");
    w.str(d.message);
    w.raw("}\n");
  }
  w.raw("{\"summary\":{\"files\":");
  w.u64(c.files().size());
  w.raw(",\"animations\":");
  w.u64(c.animation_count());
  w.raw(",\"sequences\":");
  w.u64(c.sequence_count());
  w.raw(",\"errors\":");
  w.u64(c.error_count());
  w.raw(",\"warnings\":");
  w.u64(c.warning_count());
  w.raw("}}\n");
  return out;
}

} // namespace emote::content
