#pragma once
// The playback's view of Molang: one Molang session bound to an Animation's symbol table, and
// the evaluation of one compiled program against it (molang.md §1, §5.1). Everything Molang the
// playback does goes through here.

#include "engine/content/model.hpp"
#include "engine/core/java_random.hpp"
#include "engine/molang/molang.hpp"

#include <memory>

namespace emote::playback {

class molang_host {
public:
  explicit molang_host(const content::animation& animation);
  ~molang_host();
  molang_host(const molang_host&) = delete;
  molang_host& operator=(const molang_host&) = delete;
  molang_host(molang_host&&) noexcept;
  molang_host& operator=(molang_host&&) noexcept;

  /// Start a new Molang session: `v.*` and alias-written `q.*` entries are forgotten.
  void new_session();
  /// The host has just set the frame queries (before `initialize` and before every frame).
  void begin_frame();

  /// Evaluate `program` with these frame queries; false on a run-time failure (budget), with
  /// `out` untouched. `player` may be null (no player). Random draws come from `rng`.
  bool run(const molang::program& program, const molang::frame_queries& queries,
           const molang::player_view* player, core::java_random& rng, double& out);

private:
  std::unique_ptr<molang::session> session_;
};

} // namespace emote::playback
