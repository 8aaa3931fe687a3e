#pragma once
// The seam between the server tools and engine/content: loading emote folders into a catalog,
// adding runtime documents (emote.register), and describing entries for emote.list / emote.info.
// make_content_loader() gives the implementation over engine/content
// (server/host/content_loader.cpp); tests may substitute their own.

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

  /// Load the folders as one content set (formats.md §1.1), then add the runtime-registered
  /// documents (emote.register, JSON text each, in registration order; one that no longer fits is
  /// skipped with its diagnostics). Config-`disabled` Animations are left out of resolution. An
  /// error only when a folder does not exist.
  virtual core::result<loaded_content, std::string>
  load(const std::vector<std::filesystem::path>& roots, const std::vector<std::string>& disabled,
       const std::vector<std::string>& registered) = 0;

  /// emote.register: `base` plus one document, or the document's diagnostics (their `file` is
  /// empty; paths are inside the document).
  virtual core::result<loaded_content, core::diagnostics>
  add(const content::catalog& base, std::string_view document,
      const std::vector<std::string>& disabled) = 0;

  [[nodiscard]] virtual std::int64_t size(const content::catalog& c) const = 0;
  [[nodiscard]] virtual std::vector<protocol::emote_summary>
  list(const content::catalog& c) const = 0;
  [[nodiscard]] virtual std::optional<protocol::emote_details> info(const content::catalog& c,
                                                                    std::string_view id) const = 0;
};

/// The loader over engine/content (server/host/content_loader.cpp).
std::unique_ptr<content_loader> make_content_loader();

/// The number of skipped files among `d` (its errors: each error skips its file, formats.md §1.1).
std::int64_t skipped_count(const core::diagnostics& d);

/// Log each skipped file of a load at warning, one readable line each with its reason
/// (`<when>: skipped <file>:<line>:<column>: error: <path>: <message>`); `when` names the load
/// ("startup", "emote.reload by connection 3").
void log_skipped_files(std::string_view when, const core::diagnostics& d);

} // namespace emote::server
