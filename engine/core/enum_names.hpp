#pragma once
// The spelling of every enumerator of an enumeration, defined once and checked at compile time.
//
// An `enum_names<E, N>` holds the N names of E's enumerators, indexed by value (enumerations are
// contiguous from 0). Its declaration does not compile unless N is exactly the number of E's
// enumerators (`enumerator_count<E>()`), and its constructor rejects an empty or a repeated name,
// so a new enumerator cannot reach a file or the wire without a name, nor a table drift from its
// enumeration by one.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace emote::core {

namespace detail {

/// Whether V is one of its enumeration's enumerators. The compiler spells a named enumerator by its
/// name in the function signature (`V = ns::E::name`) and any other value as a cast (`(ns::E)3`);
/// GCC and Clang both do.
template <auto V>
consteval bool names_an_enumerator() {
  const std::string_view sig = __PRETTY_FUNCTION__;
  const auto eq = sig.rfind('=');
  return eq != std::string_view::npos && eq + 2 < sig.size() && sig[eq + 2] != '(';
}

template <class E, std::size_t I>
consteval std::size_t count_from() {
  if constexpr (I >= 256) {
    return I;
  } else if constexpr (names_an_enumerator<static_cast<E>(I)>()) {
    return count_from<E, I + 1>();
  } else {
    return I;
  }
}

} // namespace detail

/// The number of enumerators of E (contiguous from 0; at most 256 are counted).
template <class E>
consteval std::size_t enumerator_count() {
  static_assert(std::is_enum_v<E>);
  return detail::count_from<E, 0>();
}

template <class E, std::size_t N>
class enum_names {
  static_assert(std::is_enum_v<E>);
  static_assert(N == enumerator_count<E>(),
                "an enumeration's name table must name every enumerator, in order");

public:
  consteval enum_names(const std::array<std::string_view, N>& names) : names_(names) {
    for (std::size_t i = 0; i < N; ++i) {
      if (names[i].empty()) {
        throw "an enumerator name is empty";
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (names[i] == names[j]) {
          throw "two enumerators share a name";
        }
      }
    }
  }

  /// The name of `v`; empty for a value that is not an enumerator.
  [[nodiscard]] constexpr std::string_view operator()(E v) const noexcept {
    const auto i = static_cast<std::size_t>(v);
    return i < N ? names_[i] : std::string_view{};
  }
  /// The enumerator named `s` (exact, case-sensitive); nullopt when none is.
  [[nodiscard]] constexpr std::optional<E> parse(std::string_view s) const noexcept {
    for (std::size_t i = 0; i < N; ++i) {
      if (names_[i] == s) {
        return static_cast<E>(i);
      }
    }
    return std::nullopt;
  }
  [[nodiscard]] static constexpr std::size_t size() noexcept { return N; }
  [[nodiscard]] constexpr const std::array<std::string_view, N>& all() const noexcept {
    return names_;
  }

private:
  std::array<std::string_view, N> names_;
};

} // namespace emote::core
