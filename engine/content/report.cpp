#include "engine/content/report.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace emote::content {
namespace {

void string_field(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key,
                  const std::string& value) {
  w.Key(key);
  w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

} // namespace

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
  for (const auto& d : c.diagnostics()) {
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    w.StartObject();
    string_field(w, "file", d.file);
    w.Key("line");
    w.Int(d.line);
    w.Key("column");
    w.Int(d.column);
    w.Key("severity");
    w.String(d.severity == core::severity::error ? "error" : "warning");
    string_field(w, "path", d.path);
    string_field(w, "message", d.message);
    w.EndObject();
    out.append(b.GetString(), b.GetSize());
    out += '\n';
  }
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  w.StartObject();
  w.Key("summary");
  w.StartObject();
  w.Key("files");
  w.Uint64(c.files().size());
  w.Key("animations");
  w.Uint64(c.animation_count());
  w.Key("sequences");
  w.Uint64(c.sequence_count());
  w.Key("errors");
  w.Uint64(c.error_count());
  w.Key("warnings");
  w.Uint64(c.warning_count());
  w.EndObject();
  w.EndObject();
  out.append(b.GetString(), b.GetSize());
  out += '\n';
  return out;
}

} // namespace emote::content
