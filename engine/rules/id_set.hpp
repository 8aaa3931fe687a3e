#pragma once
// The catalog's ids as the access rules see them (players.md §6.4): membership for patterns that
// match only loaded ids, and the sorted list that regular expressions expand against.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace emote::rules {

class id_set {
public:
  id_set() = default;
  /// Any order, duplicates allowed; kept sorted and unique.
  explicit id_set(std::vector<std::string> ids) : ids_(std::move(ids)) {
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
  }

  [[nodiscard]] bool contains(std::string_view id) const noexcept {
    return std::binary_search(ids_.begin(), ids_.end(), id, std::less<>{});
  }
  /// Ascending byte order.
  [[nodiscard]] const std::vector<std::string>& ids() const noexcept { return ids_; }
  [[nodiscard]] std::size_t size() const noexcept { return ids_.size(); }

private:
  std::vector<std::string> ids_;
};

} // namespace emote::rules
