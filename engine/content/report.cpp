#include "engine/content/report.hpp"

#include "engine/content/cost.hpp"
#include "engine/json/writer.hpp"
#include "engine/molang/cost.hpp"

#include <algorithm>
#include <vector>

namespace emote::content {
namespace {

std::string ops_text(std::uint64_t n) {
  return n == molang::unbounded_ops ? std::string("an unbounded number of") : std::to_string(n);
}

const std::string& file_of(const catalog_entry& e) {
  static const std::string none;
  if (e.animation) {
    return e.animation->file;
  }
  return e.sequence ? e.sequence->file : none;
}

} // namespace

check_findings check_findings_of(const catalog& c, const check_options& options) {
  check_findings f;
  f.diagnostics = c.diagnostics();
  f.errors = c.error_count();
  f.warnings = c.warning_count();
  if (options.molang_tick_ops == 0) {
    return f;
  }
  for (const catalog_entry& e : c.entries()) {
    const std::uint64_t ops = tick_op_bound(e);
    if (ops <= options.molang_tick_ops) {
      continue;
    }
    core::diagnostic d;
    d.file = file_of(e);
    d.line = 1;
    d.column = 1;
    d.path = "$";
    d.severity = core::severity::warning;
    d.message = "expensive Molang: " + e.id + " may run " + ops_text(ops) +
                " operations in one tick, over the per-tick budget of " +
                std::to_string(options.molang_tick_ops) + " (players.md §8.6)";
    f.diagnostics.push_back(std::move(d));
    ++f.warnings;
  }
  return f;
}

std::string check_report_text(const catalog& c, const check_options& options) {
  return check_report_text(c, check_findings_of(c, options));
}

std::string check_report_text(const catalog& c, const check_findings& f) {
  std::string out;
  for (const auto& d : f.diagnostics) {
    out += core::format_diagnostic(d);
    out += '\n';
  }
  for (const catalog_entry& e : c.entries()) {
    if (const std::uint64_t ops = tick_op_bound(e); ops != 0) {
      out += "molang: " + e.id + ": at most " + ops_text(ops) + " operations per tick\n";
    }
  }
  out += "check: " + std::to_string(c.animation_count()) + " animations, " +
         std::to_string(c.sequence_count()) + " sequences loaded; " + std::to_string(f.errors) +
         " errors, " + std::to_string(f.warnings) + " warnings\n";
  return out;
}

std::string check_report_json(const catalog& c, const check_options& options) {
  return check_report_json(c, check_findings_of(c, options));
}

std::string check_report_json(const catalog& c, const check_findings& f) {
  std::string out;
  json::json_out w(out);
  for (const auto& d : f.diagnostics) {
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
    w.raw(",\"code\":");
    w.str(diagnostic_code(d.message));
    if (!d.suggestion.empty()) {
      w.raw(",\"suggestion\":");
      w.str(d.suggestion);
    }
    w.raw("}\n");
  }
  for (const catalog_entry& e : c.entries()) {
    const std::uint64_t ops = tick_op_bound(e);
    if (ops == 0) {
      continue;
    }
    w.raw("{\"emote\":");
    w.str(e.id);
    w.raw(",\"molang_ops_per_tick\":");
    if (ops == molang::unbounded_ops) {
      w.raw("null");
    } else {
      w.u64(ops);
    }
    w.raw("}\n");
  }
  w.raw("{\"summary\":{\"files\":");
  w.u64(c.files().size());
  w.raw(",\"animations\":");
  w.u64(c.animation_count());
  w.raw(",\"sequences\":");
  w.u64(c.sequence_count());
  w.raw(",\"errors\":");
  w.u64(f.errors);
  w.raw(",\"warnings\":");
  w.u64(f.warnings);
  w.raw("}}\n");
  return out;
}

std::string diagnostic_code(std::string_view message) {
  // Gists that end in a value without a ": " before it.
  constexpr std::string_view valued[] = {"must not define runtime-owned field",
                                         "must not modify runtime-owned field"};
  std::string_view gist = message.substr(0, message.find(": "));
  for (const auto v : valued) {
    if (gist.starts_with(v)) {
      gist = v;
    }
  }
  std::string code;
  for (const char ch : gist) {
    const bool word = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
    if (ch >= 'A' && ch <= 'Z') {
      code += static_cast<char>(ch - 'A' + 'a');
    } else if (word) {
      code += ch;
    } else if (!code.empty() && code.back() != '-') {
      code += '-';
    }
  }
  while (!code.empty() && code.back() == '-') {
    code.pop_back();
  }
  if (code.size() > 64) {
    code.resize(64);
  }
  return code.empty() ? std::string("invalid") : code;
}

namespace {

// A file name as a URI reference (RFC 3986): unreserved characters and '/' as they are, the rest
// percent-encoded; absolute paths as file: URIs.
std::string file_uri(std::string_view path) {
  std::string out = path.starts_with('/') ? "file://" : "";
  constexpr char hex[] = "0123456789ABCDEF";
  for (const char ch : path) {
    const auto u = static_cast<unsigned char>(ch);
    const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                       (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' ||
                       ch == '~' || ch == '/';
    if (plain) {
      out += ch;
    } else {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

} // namespace

std::string check_report_sarif(const catalog& c, const check_findings& f,
                               std::string_view tool_version) {
  // Rules: one per code, in order of first use.
  std::vector<std::string> rules;
  std::vector<std::string> rule_texts;
  std::vector<std::size_t> rule_of;
  for (const auto& d : f.diagnostics) {
    const std::string code = diagnostic_code(d.message);
    const auto at = std::find(rules.begin(), rules.end(), code);
    rule_of.push_back(static_cast<std::size_t>(at - rules.begin()));
    if (at == rules.end()) {
      rules.push_back(code);
      rule_texts.emplace_back(d.message.substr(0, d.message.find(": ")));
    }
  }
  std::string out;
  json::json_out w(out);
  w.raw("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
        "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"emote-sim\",\"version\":");
  w.str(tool_version);
  w.raw(",\"rules\":[");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    w.raw(i == 0 ? "{\"id\":" : ",{\"id\":");
    w.str(rules[i]);
    w.raw(",\"shortDescription\":{\"text\":");
    w.str(rule_texts[i]);
    w.raw("}}");
  }
  w.raw("]}},\"columnKind\":\"unicodeCodePoints\",\"results\":[");
  for (std::size_t i = 0; i < f.diagnostics.size(); ++i) {
    const auto& d = f.diagnostics[i];
    std::string uri = d.file;
    for (const auto& file : c.files()) {
      if (file.name == d.file && !file.full_path.empty()) {
        uri = file.full_path;
      }
    }
    w.raw(i == 0 ? "{\"ruleId\":" : ",{\"ruleId\":");
    w.str(rules[rule_of[i]]);
    w.raw(",\"ruleIndex\":");
    w.u64(rule_of[i]);
    w.raw(",\"level\":");
    w.str(d.severity == core::severity::error ? "error" : "warning");
    w.raw(",\"message\":{\"text\":");
    w.str(d.path + ": " + d.message + (d.suggestion.empty() ? "" : " (" + d.suggestion + ")"));
    w.raw("},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
    w.str(file_uri(uri));
    w.raw("}");
    if (d.line > 0) {
      w.raw(",\"region\":{\"startLine\":");
      w.i64(d.line);
      if (d.column > 0) {
        w.raw(",\"startColumn\":");
        w.i64(d.column);
      }
      w.raw("}");
    }
    w.raw("},\"logicalLocations\":[{\"fullyQualifiedName\":");
    w.str(d.path);
    w.raw(",\"kind\":\"member\"}]}],\"properties\":{\"jsonPath\":");
    w.str(d.path);
    if (!d.suggestion.empty()) {
      w.raw(",\"suggestion\":");
      w.str(d.suggestion);
    }
    w.raw("}}");
  }
  w.raw("]}]}\n");
  return out;
}

} // namespace emote::content
