#pragma once
// Display content per version (render.md §5.4): item stacks, block states and text components
// encoded once per distinct source (and skin profile), shared by every display that shows the
// same thing. A part of the renderer (render/render_parts.hpp), with unit tests in
// tests/render/renderer_parts_test.cpp.
//
// Like the engine's memos (engine/core/memo.hpp), its use is an explicit option: `on`, `off`
// (encode every time) or `check` (`run`/`replay --check-caches`: every hit is encoded again and
// compared; a difference throws core::cache_mismatch naming the display).

#include "engine/core/memo.hpp"
#include "render/display_state.hpp"
#include "render/metadata.hpp"
#include "render/tables.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace emote::render {

/// One encoding of a display's content for one version, with the warnings it gave.
struct cached_content {
  std::string raw;        ///< item stack (Slot) or text component (network NBT)
  std::int32_t state = 0; ///< block state id
  std::vector<std::string> warnings;
  friend bool operator==(const cached_content&, const cached_content&) = default;
};

class content_cache {
public:
  /// Distinct encodings kept per version before that version's cache starts over.
  static constexpr std::size_t limit = 4096;

  content_cache(std::span<const version_table* const> vers, core::cache_mode mode);

  /// The content `d` shows (its source, and for a skin-bound head the captured profile) encoded
  /// for version `ver`.
  const cached_content& get(const display& d, std::size_t ver);
  /// The version's empty contents (the defaults a hidden display shows).
  [[nodiscard]] const empty_content& empty(std::size_t ver) const noexcept { return empty_[ver]; }
  /// Encodings kept now, over every version.
  [[nodiscard]] std::size_t size() const noexcept;

private:
  std::span<const version_table* const> vers_;
  core::cache_mode mode_;
  std::vector<std::unordered_map<std::string, cached_content>> maps_; ///< per version
  std::vector<empty_content> empty_;                                  ///< per version
  cached_content fresh_;                                              ///< `off`: the last encoding
  std::string key_;                                                   ///< scratch
};

} // namespace emote::render
