#pragma once
// Runtime values (molang.md §3.1): a small tagged union; strings are interned ids, functions
// are built-in ids or a block of some program, objects name a store.

#include "engine/molang/program.hpp"

#include <cstdint>

namespace emote::molang {

enum class value_kind : std::uint8_t {
  number,
  string,         ///< index = string id
  math_function,  ///< index = math_member
  query_function, ///< index = query_function
  block,          ///< index = unit of `code`
  object,         ///< index = store
};

struct value {
  value_kind kind = value_kind::number;
  std::uint32_t index = 0;
  union {
    double number = 0.0;
    const program* code;
  };

  static value of(double x) noexcept {
    value v;
    v.number = x;
    return v;
  }
  static value make(value_kind k, std::uint32_t index) noexcept {
    value v;
    v.kind = k;
    v.index = index;
    return v;
  }
};

static_assert(sizeof(value) == 16);

} // namespace emote::molang
