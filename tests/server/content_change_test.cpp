// A content mismatch names the files that differ (protocol.md §8): the recording header lists
// each content file's digest, and replay (and view) list the files added, removed or changed;
// a recording from before the listing says so instead.
#include "engine_server.hpp"
#include "process.hpp"
#include "protocol/recording.hpp"
#include "server/qa/replay_setup.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace emote::server;
using namespace emote::protocol;
using namespace emote::server::testing;

TEST_CASE("replay: a content mismatch lists the files added, removed and changed") {
  const auto dir = scratch_dir("content_change");
  std::filesystem::copy(test_emotes(), dir);
  auto recorded = read_content_manifest({dir});
  REQUIRE(recorded.ok());
  recording r;
  r.header.server = EMOTE_SIM_VERSION;
  r.header.content_digest = recorded->digest;
  r.header.content_files = recorded->files;
  r.header.started = "2026-01-01T00:00:00Z";

  // The same files: no complaint.
  auto same = prepare_replay(r, dir.string(), false);
  REQUIRE_MESSAGE(same.ok(), (same.ok() ? "" : same.error().text));
  CHECK(same->warning.empty());

  std::ofstream(dir / "t.wave.json", std::ios::app) << "\n";
  std::filesystem::remove(dir / "t.shake.json");
  std::filesystem::copy_file(dir / "t.cool.json", dir / "t.extra.json");
  auto refused = prepare_replay(r, dir.string(), false);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().content_differs);
  const std::string& err = refused.error().text;
  CHECK_MESSAGE(err.find("differs from the recording's (recorded " + recorded->digest) !=
                    std::string::npos,
                err);
  CHECK_MESSAGE(err.ends_with(")\n  added: t.extra.json\n  removed: t.shake.json\n  changed: "
                              "t.wave.json"),
                err); // the hint is the caller's (replay's option; view, shrink have none)
  // Allowed: the same list, as the warning.
  auto allowed = prepare_replay(r, dir.string(), true);
  REQUIRE_MESSAGE(allowed.ok(), (allowed.ok() ? "" : allowed.error().text));
  CHECK(allowed->warning.ends_with("  changed: t.wave.json"));

  // A recording made before headers listed the files.
  r.header.content_files.reset();
  auto old = prepare_replay(r, dir.string(), false);
  REQUIRE_FALSE(old.ok());
  CHECK_MESSAGE(
      old.error().text.ends_with("\n  (content differs; this recording does not list its files)"),
      old.error().text);
  std::filesystem::remove_all(dir);
}
