#pragma once
// result<T, E>: a value or an error, for errors as values (docs/architecture.md "Style").

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace emote::core {

template <class E>
struct failure {
  E error;
};
template <class E>
failure(E) -> failure<E>;

template <class T, class E>
class [[nodiscard]] result {
public:
  result(T value) : v_(std::in_place_index<0>, std::move(value)) {} // NOLINT(google-explicit-constructor)
  template <class U>
  result(failure<U> f) : v_(std::in_place_index<1>, std::move(f.error)) {} // NOLINT

  [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  E& error() & { assert(!ok()); return std::get<1>(v_); }
  const E& error() const& { assert(!ok()); return std::get<1>(v_); }

private:
  std::variant<T, E> v_;
};

} // namespace emote::core
