#pragma once
// A direct-mapped memo for pure functions of small trivially-copyable keys (a display matrix, a
// transform's floats). A lookup hashes the key's bytes to one slot and compares them bitwise, so
// a hit returns exactly what computing would, and a miss just overwrites the slot: output never
// depends on whether, or how well, the memo works. Each thread that uses one has its own
// (callers keep them thread_local); no allocation after the first fill of a slot's value.
//
// Whether a memo is used at all is the caller's explicit option (core::cache_options, carried by
// the engine and stress configurations): `on`, `off` (compute every time: `emote-sim stress
// --reference`), or `check` (`--check-caches`: every hit is recomputed and compared, and the
// first mismatch stops the run with a core::cache_mismatch naming where it happened).

#include "engine/core/prefetch.hpp"
#include "engine/core/state_digest.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace emote::core {

/// How a cache is used: looked up (`on`), bypassed (`off`), or looked up and every hit checked
/// against a fresh computation (`check`).
enum class cache_mode : std::uint8_t { on, off, check };

/// The caches' options, explicit per engine / stress run / encoder.
struct cache_options {
  cache_mode mode = cache_mode::on;
  /// Slots of the per-thread memos (powers of two, min_memo_slots..max_memo_slots): matrix
  /// decompositions (engine) and transform texts (protocol encoder).
  std::uint32_t decomposition_slots = 32768;
  std::uint32_t transform_text_slots = 32768;

  static constexpr std::uint32_t min_memo_slots = 16;
  static constexpr std::uint32_t max_memo_slots = std::uint32_t{1} << 24;
  friend bool operator==(const cache_options&, const cache_options&) = default;
};

/// Why memo slot counts cannot be used (not a power of two, out of range); nullopt when valid.
[[nodiscard]] inline std::optional<std::string> memo_slots_problem(std::uint64_t slots) {
  if (slots < cache_options::min_memo_slots || slots > cache_options::max_memo_slots ||
      (slots & (slots - 1)) != 0) {
    return "must be a power of two from " + std::to_string(cache_options::min_memo_slots) + " to " +
           std::to_string(cache_options::max_memo_slots);
  }
  return std::nullopt;
}

/// A cached value that differs from the value computed afresh (`check` mode). The layers it
/// passes through fill in what they know: the tick, the session, the display handle.
class cache_mismatch : public std::runtime_error {
public:
  explicit cache_mismatch(std::string cache_name)
      : std::runtime_error("cache mismatch"), cache(std::move(cache_name)) {}

  std::string cache; ///< "decomposition memo", "baked pose", "player view", ...
  std::optional<std::int64_t> tick;
  std::optional<std::int64_t> session;
  std::optional<std::int64_t> handle;
  std::string detail; ///< what was compared (a node, a player)

  /// `cache mismatch in the <cache> at tick T, session S, handle H (<detail>)`.
  [[nodiscard]] std::string text() const {
    std::string s = "cache mismatch in the " + cache;
    const auto add = [&s](const char* name, const std::optional<std::int64_t>& v, bool& first) {
      if (v) {
        s += first ? " at " : ", ";
        s += name;
        s += ' ';
        s += std::to_string(*v);
        first = false;
      }
    };
    bool first = true;
    add("tick", tick, first);
    add("session", session, first);
    add("handle", handle, first);
    if (!detail.empty()) {
      s += " (" + detail + ")";
    }
    return s;
  }
  [[nodiscard]] const char* what() const noexcept override {
    message_ = text();
    return message_.c_str();
  }

private:
  mutable std::string message_;
};

/// A memo's size and use so far (metrics).
struct memo_stats {
  std::uint64_t slots = 0;   ///< configured slots
  std::uint64_t entries = 0; ///< slots holding a value
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
};

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

/// Memory for a memo table of `bytes`, zeroed: large tables are aligned to and advised for
/// transparent huge pages (Linux), since lookups land anywhere in them and a miss of the address
/// translation costs as much as the cache miss. free_table() releases it.
[[nodiscard]] void* allocate_table(std::size_t bytes);
void free_table(void* p) noexcept;

template <class Key, class Value>
class direct_memo {
public:
  static_assert(std::is_trivially_copyable_v<Key>);
  static_assert(std::is_trivially_copyable_v<Value>);

  /// Use `slots` slots (a power of two, see memo_slots_problem); a change empties the memo.
  void resize(std::uint32_t slots) {
    if (slots == slots_) {
      return;
    }
    table_.reset();
    slots_ = slots;
    shift_ = 64;
    for (std::uint32_t n = slots; n > 1; n >>= 1) {
      --shift_;
    }
    stats_.entries = 0;
  }

  /// The hash a lookup of `key` uses (memo_hash): callers that prefetch a slot and look it up a
  /// little later compute it once and pass it to the *_hashed calls.
  [[nodiscard]] static std::uint64_t hash(const Key& key) noexcept { return memo_hash(key); }

  /// The stored value for `key`, or null (a miss).
  [[nodiscard]] const Value* find(const Key& key) noexcept { return find_hashed(key, hash(key)); }
  /// find() with `h` = hash(key).
  [[nodiscard]] const Value* find_hashed(const Key& key, std::uint64_t h) noexcept {
    if (table_) {
      const slot& s = table_.get()[slot_of(h)];
      if (s.used && std::memcmp(&s.key, &key, sizeof(Key)) == 0) {
        ++stats_.hits;
        return &s.value;
      }
    }
    ++stats_.misses;
    return nullptr;
  }

  /// Start loading the slot of `key` into cache, for a find() a little later: with many
  /// instances the table is far larger than the cache, and a lookup is a memory round trip that
  /// a prefetch issued some work earlier hides.
  void prefetch(const Key& key) noexcept { prefetch_hashed(hash(key)); }
  /// prefetch() with `h` = hash(key).
  void prefetch_hashed(std::uint64_t h) noexcept {
    if (table_) {
      prefetch_bytes(&table_.get()[slot_of(h)], sizeof(slot));
    }
  }

  /// Store `value` for `key` (replacing whatever the slot held); returns the stored value.
  const Value& store(const Key& key, const Value& value) {
    return store_hashed(key, hash(key), value);
  }
  /// store() with `h` = hash(key).
  const Value& store_hashed(const Key& key, std::uint64_t h, const Value& value) {
    if (!table_) {
      table_ = table_ptr(static_cast<slot*>(allocate_table(slots_ * sizeof(slot))));
      std::uninitialized_value_construct_n(table_.get(), slots_);
    }
    slot& s = table_.get()[slot_of(h)];
    stats_.entries += s.used ? 0 : 1;
    std::memcpy(&s.key, &key, sizeof(Key));
    s.value = value;
    s.used = true;
    return s.value;
  }

  [[nodiscard]] memo_stats stats() const noexcept {
    memo_stats s = stats_;
    s.slots = slots_;
    return s;
  }

  /// Test only: flips one bit in the value of the first used slot, as a memory error would;
  /// false when the memo holds nothing.
  bool corrupt_one_entry_for_test() noexcept {
    for (std::uint32_t i = 0; table_ && i < slots_; ++i) {
      if (table_.get()[i].used) {
        reinterpret_cast<unsigned char*>(&table_.get()[i].value)[0] ^= 0x10;
        return true;
      }
    }
    return false;
  }

private:
  struct slot {
    Key key{};
    Value value{};
    bool used = false;
  };
  [[nodiscard]] std::size_t slot_of(std::uint64_t h) const noexcept {
    return static_cast<std::size_t>(h >> shift_);
  }

  // Slots are trivially destructible: the table is freed without running destructors.
  static_assert(std::is_trivially_destructible_v<Key> && std::is_trivially_destructible_v<Value>);
  struct table_free {
    void operator()(slot* p) const noexcept { free_table(p); }
  };
  using table_ptr = std::unique_ptr<slot, table_free>;
  table_ptr table_;
  std::uint32_t slots_ = 32768;
  unsigned shift_ = 64 - 15;
  memo_stats stats_;
};

} // namespace emote::core
