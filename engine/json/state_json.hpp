#pragma once
// The JSON side of the state traversal (core/state_digest.hpp; protocol.md §8 "State dumps"): a
// sink that writes the traversal as one compact JSON object, and the readable difference of two
// such dumps, by path (`players.alice.pos[1]: recorded 64, replayed 65`).

#include "engine/core/state_digest.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace emote::json {

/// Writes the traversal as JSON: the outermost begin_object starts the text (its key is
/// ignored); objects are JSON objects, lists arrays.
class state_json final : public core::state_sink {
public:
  explicit state_json(std::string& out) noexcept : out_(&out) {}
  void begin_object(std::string_view key) override;
  void begin_object_id(std::int64_t id) override;
  void begin_map(std::string_view key) override;
  void end_object() override;
  void begin_list(std::string_view key) override;
  void end_list() override;
  void i64(std::string_view key, std::int64_t v) override;
  void u64(std::string_view key, std::uint64_t v) override;
  void f32(std::string_view key, float v) override;
  void f64(std::string_view key, double v) override;
  void str(std::string_view key, std::string_view v) override;
  void boolean(std::string_view key, bool v) override;
  void null(std::string_view key) override;

private:
  void member(std::string_view key);
  std::string* out_;
  /// Per open container: whether it is a list, and whether it has a member yet.
  std::vector<std::pair<bool, bool>> open_;
};

struct state_difference {
  std::string path;  ///< e.g. `cooldowns.alice["emote:wave"].ready`
  std::string left;  ///< the value in the first dump, compact JSON; "(absent)" when missing
  std::string right; ///< the same in the second
};

/// The leaves (numbers, strings, booleans, nulls, empty containers) whose values differ between
/// two dumps, in path order, at most `limit` (`total` receives the full count). An unreadable
/// dump is one difference at path "(dump)".
std::vector<state_difference> diff_states(std::string_view left, std::string_view right,
                                          std::size_t limit, std::size_t* total = nullptr);

/// The differences as lines: `  PATH: LEFT_NAME X, RIGHT_NAME Y`, then `  … and N more` when
/// cut; "" when the dumps are equal.
std::string describe_state_diff(std::string_view left, std::string_view right,
                                std::string_view left_name, std::string_view right_name,
                                std::size_t limit = 20);

} // namespace emote::json
