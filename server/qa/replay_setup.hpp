#pragma once
// The engine a recording's server had (protocol.md §8), for `replay`, `view`, `record-to-scenario`
// and `shrink`: its header's configuration and seed on the content folder, the content checked
// against the header's digest.

#include "engine/core/result.hpp"
#include "protocol/recording.hpp"
#include "server/host/engine_host.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace emote::server {

struct replay_setup {
  std::unique_ptr<engine_host> host;
  std::string warning;          ///< the content differs from the recording's, allowed
  std::filesystem::path folder; ///< the content folder loaded
};

/// Why prepare_replay gave no engine.
struct replay_setup_error {
  std::string text;
  /// The content differs from the recording's: the one refusal `allow_content_change` lifts.
  bool content_differs = false;
};

/// The engine as a recording's server had it (protocol.md §8): its header's configuration and
/// seed, on `emotes` (default: the configured folder). A content digest that differs from the
/// header's is an error unless `allow_content_change` (then a warning). `check_caches`
/// (`replay --check-caches`) checks every cache whatever the recorded configuration says.
core::result<replay_setup, replay_setup_error>
prepare_replay(const protocol::recording& rec, const std::optional<std::string>& emotes,
               bool allow_content_change, bool check_caches = false);

/// docs/guide/qa.md: the warning `record-to-scenario` and `shrink` print when the emote folders a
/// scenario names (`emotes`, relative ones resolved against `scenario_dir`, the folder the
/// scenario is written to) do not hold the recording's content files (its header's digests):
/// "" when they do, or when the header lists no content.
std::string scenario_content_warning(const protocol::recording& rec,
                                     const std::vector<std::string>& emotes,
                                     const std::filesystem::path& scenario_dir);

} // namespace emote::server
