// `emote-sim check PATH... [--json] [--strict]`: load emote files as a reload would, register
// nothing, print every diagnostic and a summary (formats.md §1.3, protocol.md §9).
#include "server/commands.hpp"

#include "engine/content/loader.hpp"
#include "engine/core/diagnostic.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace emote::server {
namespace {

constexpr const char* check_usage =
    "usage: emote-sim check PATH... [--json] [--strict]\n"
    "  Validate Animation and Sequence files (directories are searched for *.json).\n"
    "  Several PATHs load as one content set. Exit status 1 when there is any error\n"
    "  (with --strict also any warning).\n"
    "  --json    one JSON object per problem, then a summary object\n"
    "  --strict  warnings count as errors for the exit status\n";

void print_json_line(const rapidjson::StringBuffer& b) {
  std::fwrite(b.GetString(), 1, b.GetSize(), stdout);
  std::fputc('\n', stdout);
}

} // namespace

int cmd_check(std::span<const std::string_view> args) {
  bool json = false;
  bool strict = false;
  std::vector<std::filesystem::path> roots;
  for (auto a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(check_usage, stdout);
      return 0;
    }
    if (a == "--json") {
      json = true;
    } else if (a == "--strict") {
      strict = true;
    } else if (a.size() > 1 && a.front() == '-') {
      std::fprintf(stderr, "emote-sim check: unknown option '%.*s'\n%s", static_cast<int>(a.size()),
                   a.data(), check_usage);
      return 2;
    } else {
      roots.emplace_back(std::string(a));
    }
  }
  if (roots.empty()) {
    std::fputs(check_usage, stderr);
    return 2;
  }
  const auto catalog = content::load_paths(roots);
  const std::size_t errors = catalog->error_count();
  const std::size_t warnings = catalog->warning_count();
  if (json) {
    for (const auto& d : catalog->diagnostics()) {
      rapidjson::StringBuffer b;
      rapidjson::Writer<rapidjson::StringBuffer> w(b);
      w.StartObject();
      w.Key("file");
      w.String(d.file.c_str(), static_cast<rapidjson::SizeType>(d.file.size()));
      w.Key("line");
      w.Int(d.line);
      w.Key("column");
      w.Int(d.column);
      w.Key("severity");
      w.String(d.severity == core::severity::error ? "error" : "warning");
      w.Key("path");
      w.String(d.path.c_str(), static_cast<rapidjson::SizeType>(d.path.size()));
      w.Key("message");
      w.String(d.message.c_str(), static_cast<rapidjson::SizeType>(d.message.size()));
      w.EndObject();
      print_json_line(b);
    }
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    w.StartObject();
    w.Key("summary");
    w.StartObject();
    w.Key("files");
    w.Uint64(catalog->files().size());
    w.Key("animations");
    w.Uint64(catalog->animation_count());
    w.Key("sequences");
    w.Uint64(catalog->sequence_count());
    w.Key("errors");
    w.Uint64(errors);
    w.Key("warnings");
    w.Uint64(warnings);
    w.EndObject();
    w.EndObject();
    print_json_line(b);
  } else {
    for (const auto& d : catalog->diagnostics()) {
      const auto line = core::format_diagnostic(d);
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fputc('\n', stdout);
    }
    std::printf("check: %zu animations, %zu sequences loaded; %zu errors, %zu warnings\n",
                catalog->animation_count(), catalog->sequence_count(), errors, warnings);
  }
  std::fflush(stdout);
  return errors > 0 || (strict && warnings > 0) ? 1 : 0;
}

} // namespace emote::server
