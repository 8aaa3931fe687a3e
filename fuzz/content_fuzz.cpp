// libFuzzer target over the content loader: the input is one or more emote files separated by
// the byte 0x1E (record separator), loaded as one content set. Every loaded emote is then walked
// (canonical SNBT, layouts, union) and the first file is registered against the result, so the
// whole pipeline including Sequence resolution and emote.register is exercised.
#include "engine/content/loader.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

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
  const auto catalog = emote::content::load_files(std::move(files), options);
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
