#pragma once
// The scenario expectation language (protocol.md §7) and its checker. Expectations are matched
// against the NDJSON output lines (reply and frame lines exactly as `emote-sim run` prints them
// or a live server sends them), so `run` and `bot` share one checker.
//
//   {"reply": ID, ...fields, "tick"?, "by"?, "after"?}     some reply with that id matches
//   {"event": TYPE, ...fields, "tick"?, "by"?, "after"?}   some event in the window matches
//   {"count": {"event": ...}, "equals"|"at_least"|"at_most": N}
//   {"not": EXPECT}                                        EXPECT does not hold
//   {"order": [EXPECT, ...]}                               matches occur in this order
//
// Matching is a subset match: recursive for objects (expected keys must be present), element-wise
// for arrays (same length), numbers within 1e-6, everything else equal. TYPE is an event type or
// a prefix ending in '.'. Windows are in scenario ticks: `tick` exact, `by` <=, `after` >=.

#include "engine/core/result.hpp"

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emote::protocol {

struct tick_window {
  std::optional<std::int64_t> tick, by, after;
  [[nodiscard]] bool contains(std::int64_t t) const noexcept {
    return (!tick || t == *tick) && (!by || t <= *by) && (!after || t >= *after);
  }
};

struct expectation {
  enum class kind : std::uint8_t { reply, event, count, negation, order };

  expectation::kind type = kind::event;
  std::string text;                           ///< compact JSON as written, for messages
  const rapidjson::Value* source = nullptr;   ///< the expectation object (fields to match)
  const rapidjson::Value* reply_id = nullptr; ///< reply
  std::string event_type;                     ///< event: type name or prefix ending in '.'
  tick_window window;                         ///< reply, event
  std::optional<std::int64_t> equals, at_least, at_most; ///< count
  std::vector<expectation> children; ///< count: 1 (the event), negation: 1, order: n
};

/// A parsed `expect` list; owns the JSON its expectations point into.
class expectation_set {
public:
  /// Parse an `expect` array; errors name the path (`$.expect[2].count: ...`).
  static core::result<expectation_set, std::string> parse(const rapidjson::Value& list);

  [[nodiscard]] const std::vector<expectation>& items() const noexcept { return items_; }
  [[nodiscard]] bool empty() const noexcept { return items_.empty(); }

private:
  std::shared_ptr<rapidjson::Document> doc_;
  std::vector<expectation> items_;
};

/// The output of a run, indexed for matching. Lines other than replies and frames are ignored.
class output_log {
public:
  /// `tick_base` is subtracted from every tick (a live server's tick when the scenario began).
  explicit output_log(std::int64_t tick_base = 0) : base_(tick_base) {}

  /// Add one output line (with or without its newline). Unparseable lines are counted and
  /// otherwise ignored.
  void add_line(std::string_view line);
  /// Add every line of an NDJSON text.
  void add_text(std::string_view text);

  struct item {
    std::size_t seq = 0;   ///< position in the output (replies and events share it)
    std::int64_t tick = 0; ///< scenario tick
    const rapidjson::Value* value = nullptr;
    std::string_view type; ///< events: their type
  };
  [[nodiscard]] const std::vector<item>& replies() const noexcept { return replies_; }
  [[nodiscard]] const std::vector<item>& events() const noexcept { return events_; }
  [[nodiscard]] std::size_t bad_lines() const noexcept { return bad_lines_; }

private:
  std::int64_t base_;
  std::size_t seq_ = 0;
  std::size_t bad_lines_ = 0;
  std::vector<std::unique_ptr<rapidjson::Document>> docs_;
  std::vector<item> replies_;
  std::vector<item> events_;
};

/// The subset match of protocol.md §7.
[[nodiscard]] bool subset_match(const rapidjson::Value& expected, const rapidjson::Value& actual);

/// Every unmet expectation in file order (protocol.md §7), each described as
/// `expect[i] <json>: <why>` (the why names the ticks seen); empty when all hold.
std::vector<std::string> unmet(const expectation_set& set, const output_log& log);
/// The summary's text for unmet expectations: the first, then each further one on its own line
/// indented by two spaces. Empty when `descriptions` is.
std::string describe_unmet(const std::vector<std::string>& descriptions);

/// Whether one expectation holds (exposed for tests).
[[nodiscard]] bool holds(const expectation& e, const output_log& log);

} // namespace emote::protocol
