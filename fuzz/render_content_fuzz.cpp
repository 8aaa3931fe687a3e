// libFuzzer target over display content encoding (render.md §5.4). The first byte picks the
// encoder (low 2 bits: text component, item stack, item stack with a skin, block state) and the
// version (the rest, modulo the supported versions); the other bytes are the text JSON or SNBT.
// Beyond the sanitizers it checks the bounds the encoders promise: a small, bounded warning list
// and bounded output, never an exception.
#include "render/content.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace emote::render;
  if (size == 0) {
    return 0;
  }
  const auto all = versions();
  const version_table& v = *all[(data[0] >> 2) % all.size()];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string out;
  byte_writer w(out);
  warnings warn;
  switch (data[0] & 3) {
  case 0:
    write_text_component(w, v, input, warn);
    // At most 4,096 components and 256 KiB of strings (text_component.cpp): far below 2 MiB.
    if (out.size() > (std::size_t{2} << 20)) {
      std::abort();
    }
    break;
  case 1:
    write_item_stack(w, v, input, nullptr, warn);
    break;
  case 2: {
    const emote::api::skin_texture tex{std::string(input.substr(0, 64)), std::nullopt};
    const emote::api::uuid id{};
    const skin_profile skin{&tex, &id, input.substr(0, 20)};
    write_item_stack(w, v, input, &skin, warn);
    break;
  }
  default:
    if (const auto id = block_state_id(v, input, warn); id < 0) {
      std::abort();
    }
    break;
  }
  // Each encode's warnings are deduplicated and capped (content_detail.hpp), plus at most the
  // two the text encoder gives before its converter (ill-formed UTF-8, invalid JSON).
  if (warn.size() > 35 || (out.empty() && (data[0] & 3) != 3)) {
    std::abort();
  }
  return 0;
}
