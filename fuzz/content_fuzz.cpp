// libFuzzer target over the content loader: the input is one or more emote files separated by
// the byte 0x1E (record separator), loaded as one content set. Every loaded emote is then walked
// (canonical SNBT, layouts, union) and the first file is registered against the result, so the
// whole pipeline including Sequence resolution and emote.register is exercised.
//
// The same files are also loaded in `check`'s mode (load_options::all_errors, formats.md §1.3),
// and the two loads must agree as §1.3 says: the same emotes load, and the diagnostics of the
// all-errors load without each file's further errors are the loader's, so every rejected file's
// error list starts with the loader's one error. A difference aborts with both lists.
#include "engine/content/error_modes.hpp"
#include "engine/content/loader.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using emote::content::diagnostics_text;
using emote::content::first_errors_only;
[[noreturn]] void disagree(const char* what, const emote::content::catalog& first,
                           const emote::content::catalog& every) {
  std::fprintf(stderr, "content_fuzz: %s (formats.md §1.3)\nloading:\n%s\ncheck (all errors):\n%s",
               what, diagnostics_text(first.diagnostics()).c_str(),
               diagnostics_text(every.diagnostics()).c_str());
  std::abort();
}

/// formats.md §1.3: `check`'s mode loads what loading loads and reports, for each file, the
/// loader's first error first.
void compare_modes(const emote::content::catalog& first, const emote::content::catalog& every) {
  if (first.size() != every.size()) {
    disagree("the two modes load a different number of emotes", first, every);
  }
  for (std::size_t i = 0; i < first.entries().size(); ++i) {
    if (first.entries()[i].id != every.entries()[i].id) {
      disagree("the two modes load different emotes", first, every);
    }
  }
  const auto& loading = first.diagnostics();
  // A file's further error directly follows its first: first_errors_only drops exactly those.
  if (first_errors_only(loading).size() != loading.size()) {
    disagree("loading reports two errors for one file", first, every);
  }
  if (diagnostics_text(first_errors_only(every.diagnostics())) != diagnostics_text(loading)) {
    disagree("the all-errors diagnostics do not start each file's errors with the loader's error",
             first, every);
  }
}

std::size_t walk(const emote::content::catalog& c) {
  std::size_t n = 0;
  for (const auto& e : c.entries()) {
    if (e.animation) {
      for (const auto& node : e.animation->nodes) {
        n += emote::core::to_snbt(node.entity_nbt).size() + node.text_json.size();
      }
      n += e.animation->skin.size();
    }
    if (e.sequence) {
      n += e.sequence->node_union.size() + e.sequence->skin.size();
      n += static_cast<std::size_t>(e.sequence->duration & 0xFF);
    }
  }
  return n;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<emote::content::memory_file> files;
  std::size_t begin = 0;
  while (files.size() < 8) {
    const auto end = input.find('\x1e', begin);
    const auto part = input.substr(begin, end == std::string_view::npos ? end : end - begin);
    files.push_back({"f" + std::to_string(files.size()) + ".json", std::string(part)});
    if (end == std::string_view::npos) {
      break;
    }
    begin = end + 1;
  }
  const std::string first = files.front().bytes;
  emote::content::load_options options;
  options.registry_limit = 4;
  emote::content::load_options every_error = options;
  every_error.all_errors = true;
  const auto checked = emote::content::load_files(files, every_error);
  const auto catalog = emote::content::load_files(std::move(files), options);
  compare_modes(*catalog, *checked);
  volatile std::size_t sink = walk(*catalog) + catalog->diagnostics().size();
  const auto reg = emote::content::register_document(*catalog, first, options);
  if (reg.ok()) {
    sink = sink + walk(*reg.updated);
    const auto removed = emote::content::unregister(*reg.updated, reg.id);
    sink = sink + removed->size();
  }
  (void)sink;
  return 0;
}
