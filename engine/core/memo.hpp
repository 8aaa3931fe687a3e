#pragma once
// A direct-mapped memo for pure functions of small trivially-copyable keys (a display matrix, a
// transform's floats). A lookup hashes the key's bytes to one slot and compares them bitwise, so
// a hit returns exactly what computing would, and a miss just overwrites the slot: output never
// depends on whether, or how well, the memo works. Each thread that uses one has its own
// (callers keep them thread_local); no allocation after the first fill of a slot's value.
//
// `memo_enabled(false)` turns every memo off process-wide (tests compare output with memos on
// and off; `emote-sim stress --reference`).

#include "engine/core/state_digest.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

namespace emote::core {

namespace detail {
inline std::atomic<bool>& memo_switch() noexcept {
  static std::atomic<bool> on{true};
  return on;
}
} // namespace detail

inline void set_memo_enabled(bool on) noexcept {
  detail::memo_switch().store(on, std::memory_order_relaxed);
}
[[nodiscard]] inline bool memo_enabled() noexcept {
  return detail::memo_switch().load(std::memory_order_relaxed);
}

/// 64-bit hash of a key's bytes, read as 8-byte words (keys are padded to whole words).
template <class Key>
[[nodiscard]] std::uint64_t memo_hash(const Key& k) noexcept {
  static_assert(std::is_trivially_copyable_v<Key>);
  constexpr std::size_t words = (sizeof(Key) + 7) / 8;
  std::array<std::uint64_t, words> w{};
  std::memcpy(w.data(), &k, sizeof(Key));
  std::uint64_t h = mix64_seed;
  for (const std::uint64_t x : w) {
    h = mix64(h, x);
  }
  return h;
}

template <class Key, class Value, std::size_t SlotsLog2>
class direct_memo {
public:
  static_assert(std::is_trivially_copyable_v<Key>);
  static constexpr std::size_t slots = std::size_t{1} << SlotsLog2;

  /// The stored value for `key`, or null (a miss, or memos are off).
  [[nodiscard]] const Value* find(const Key& key) noexcept {
    if (!memo_enabled()) {
      return nullptr;
    }
    ensure();
    const slot& s = table_[index(key)];
    return s.used && std::memcmp(&s.key, &key, sizeof(Key)) == 0 ? &s.value : nullptr;
  }

  /// Start loading the slot of `key` into cache, for a find() a little later: with many
  /// instances the table is far larger than the cache, and a lookup is a memory round trip that
  /// a prefetch issued some work earlier hides.
  void prefetch(const Key& key) noexcept {
    if (!table_ || !memo_enabled()) {
      return;
    }
    const char* p = reinterpret_cast<const char*>(&table_[index(key)]);
    for (std::size_t off = 0; off < sizeof(slot); off += 64) {
      __builtin_prefetch(p + off);
    }
    __builtin_prefetch(p + sizeof(slot) - 1);
  }

  /// Store `value` for `key` (replacing whatever the slot held); returns the stored value.
  /// Does nothing and returns `value` when memos are off.
  const Value& store(const Key& key, const Value& value) {
    if (!memo_enabled()) {
      return value;
    }
    ensure();
    slot& s = table_[index(key)];
    std::memcpy(&s.key, &key, sizeof(Key));
    s.value = value;
    s.used = true;
    return s.value;
  }

private:
  struct slot {
    Key key{};
    Value value{};
    bool used = false;
  };
  static std::size_t index(const Key& key) noexcept {
    return static_cast<std::size_t>(memo_hash(key) >> (64 - SlotsLog2));
  }
  void ensure() {
    if (!table_) {
      table_ = std::make_unique<slot[]>(slots);
    }
  }

  std::unique_ptr<slot[]> table_;
};

} // namespace emote::core
