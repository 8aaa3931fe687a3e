#pragma once
// The seam between the server tools and engine/content: loading emote folders into a catalog and
// describing its entries for emote.list / emote.info. The implementation over engine/content lives
// in server/content_loader.cpp (added when engine/content lands; its presence, with the Engine's
// engine/sim/engine.cpp, switches EMOTE_SIM_HAVE_ENGINE on).

#include "engine/core/diagnostic.hpp"
#include "engine/core/result.hpp"
#include "protocol/encode.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emote::content {
class catalog;
}

namespace emote::server {

struct loaded_content {
  std::shared_ptr<const content::catalog> catalog;
  std::int64_t loaded = 0;       ///< emotes registered
  core::diagnostics diagnostics; ///< errors (skipped files) and warnings
};

class content_loader {
public:
  virtual ~content_loader() = default;

  /// Load the folders as one content set (formats.md §1.1) plus runtime-registered documents
  /// (emote.register, JSON text each), leaving out config-`disabled` Animations from resolution.
  /// Diagnostics about a registered document have an empty `file`. An error only when nothing
  /// could be read at all (a missing folder).
  virtual core::result<loaded_content, std::string>
  load(const std::vector<std::filesystem::path>& roots, const std::vector<std::string>& disabled,
       const std::vector<std::string>& registered) = 0;

  [[nodiscard]] virtual std::int64_t size(const content::catalog& c) const = 0;
  [[nodiscard]] virtual std::vector<protocol::emote_summary>
  list(const content::catalog& c) const = 0;
  [[nodiscard]] virtual std::optional<protocol::emote_details> info(const content::catalog& c,
                                                                    std::string_view id) const = 0;
};

/// The loader over engine/content (server/content_loader.cpp).
std::unique_ptr<content_loader> make_content_loader();

} // namespace emote::server
