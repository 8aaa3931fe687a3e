#pragma once
// Compound SNBT (formats.md §2.5): parsing into typed tags, equality, a canonical deterministic
// writer, and CompoundTag-style merging (playback.md §2.7).

#include "engine/core/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace emote::core {

enum class nbt_type : std::uint8_t {
  byte_tag,
  short_tag,
  int_tag,
  long_tag,
  float_tag,
  double_tag,
  string_tag,
  list_tag,
  compound_tag,
  byte_array,
  int_array,
  long_array,
};

struct nbt_tag;
struct nbt_entry;

/// A compound: keys are unique; entries keep their first written position (a duplicate key
/// replaces the value in place). Equality ignores order.
struct nbt_compound {
  std::vector<nbt_entry> entries;

  [[nodiscard]] bool empty() const noexcept;
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] const nbt_tag* find(std::string_view key) const noexcept;
  [[nodiscard]] nbt_tag* find(std::string_view key) noexcept;
  /// Insert or replace (replacement keeps the key's position).
  void set(std::string key, nbt_tag value);

  friend bool operator==(const nbt_compound& a, const nbt_compound& b);
};

/// One typed value. Only the members of its type are meaningful.
struct nbt_tag {
  nbt_type type = nbt_type::compound_tag;
  std::int64_t integer = 0;        ///< byte, short, int, long
  double number = 0;               ///< float (exactly a binary32 value) or double
  std::string string;              ///< string
  std::vector<nbt_tag> list;       ///< list elements (all of one type)
  std::vector<std::int64_t> array; ///< byte/int/long array elements
  nbt_compound compound;           ///< compound

  friend bool operator==(const nbt_tag& a, const nbt_tag& b);
};

/// A byte, short, int or long tag.
[[nodiscard]] inline bool is_integral(const nbt_tag& t) noexcept {
  return t.type == nbt_type::byte_tag || t.type == nbt_type::short_tag ||
         t.type == nbt_type::int_tag || t.type == nbt_type::long_tag;
}
/// An integral, float or double tag (Java's NumericTag).
[[nodiscard]] inline bool is_numeric(const nbt_tag& t) noexcept {
  return is_integral(t) || t.type == nbt_type::float_tag || t.type == nbt_type::double_tag;
}

struct nbt_entry {
  std::string key;
  nbt_tag value;
};

inline bool nbt_compound::empty() const noexcept {
  return entries.empty();
}
inline std::size_t nbt_compound::size() const noexcept {
  return entries.size();
}

/// Parse a string holding exactly one compound. On failure the error is the detail of
/// "invalid compound SNBT: <detail>" (without that prefix).
result<nbt_compound, std::string> parse_compound_snbt(std::string_view text);

/// Canonical SNBT: keys sorted by bytes, bare when they match [A-Za-z0-9._+-]+, strings always
/// double-quoted, numbers with their type suffix (b, s, none, L, f, d), shortest round-trip
/// digits. Equal compounds (per operator==) give identical text.
std::string to_snbt(const nbt_compound& c);
std::string to_snbt(const nbt_tag& t);

/// CompoundTag.merge: for each key of `source`, compounds on both sides merge recursively,
/// anything else replaces the target's value with a copy.
void merge_into(nbt_compound& target, const nbt_compound& source);

/// Item stack rule (formats.md §2.5): a string `id` that is a resource location. Returns the
/// error detail, or an empty string when valid; `normalized_id` receives the id with namespace.
std::string check_item_stack(const nbt_compound& c, std::string* normalized_id = nullptr);
/// Block state rule: a string `Name` resource location; optional `Properties` compound of strings.
std::string check_block_state(const nbt_compound& c);

} // namespace emote::core
