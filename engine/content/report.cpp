#include "engine/content/report.hpp"

#include "engine/content/cost.hpp"
#include "engine/json/writer.hpp"
#include "engine/molang/cost.hpp"

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

} // namespace emote::content
