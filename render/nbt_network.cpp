// Anonymous network NBT (render.md §5.4): the root's type byte, then its payload, without the
// root name that NBT files carry (the 1.20.2+ network form). Big-endian numbers; strings and
// compound keys in Java's modified UTF-8 with a u16 byte length; lists as element type byte and
// i32 count; compounds closed by TAG_End.
//
// Bounds, since nothing here may fail: a string (or key) whose modified UTF-8 form is over 65535
// bytes cannot be written (writeUTF throws on it), so it is cut to its longest prefix that fits,
// between scalar values. Callers that can warn (the text encoder) cut their strings themselves
// first and warn. A list built by code (never by the SNBT parser) whose elements differ in type
// writes only the elements of its first element's type. The writer walks the tree with its own
// stack, so no nesting depth can overflow the call stack.

#include "engine/core/utf8.hpp"
#include "render/content.hpp"
#include "render/content_detail.hpp"

#include <limits>
#include <vector>

namespace emote::render {
namespace detail {
namespace {

std::size_t modified_utf8_size(char32_t cp) noexcept {
  if (cp == 0) {
    return 2;
  }
  if (cp < 0x80) {
    return 1;
  }
  if (cp < 0x800) {
    return 2;
  }
  if (cp < 0x10000) {
    return 3;
  }
  return 6; // a surrogate pair, 3 bytes each
}

void append_unit(std::string& out, std::uint32_t u) {
  // One UTF-16 code unit (never NUL here) in modified UTF-8.
  if (u < 0x80) {
    out.push_back(static_cast<char>(u));
  } else if (u < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (u >> 6)));
    out.push_back(static_cast<char>(0x80 | (u & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (u >> 12)));
    out.push_back(static_cast<char>(0x80 | ((u >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (u & 0x3F)));
  }
}

} // namespace

std::size_t modified_utf8_length(std::string_view utf8) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < utf8.size();) {
    const auto d = core::decode_utf8(utf8, i);
    n += modified_utf8_size(d.code_point);
    i += d.length;
  }
  return n;
}

std::size_t modified_utf8_prefix(std::string_view utf8, std::size_t max_bytes) noexcept {
  std::size_t n = 0;
  std::size_t i = 0;
  while (i < utf8.size()) {
    const auto d = core::decode_utf8(utf8, i);
    const std::size_t size = modified_utf8_size(d.code_point);
    if (n + size > max_bytes) {
      break;
    }
    n += size;
    i += d.length;
  }
  return i;
}

} // namespace detail

namespace {

// NBT type ids on the wire.
constexpr std::uint8_t tag_end = 0;

std::uint8_t wire_type(core::nbt_type t) noexcept {
  switch (t) {
  case core::nbt_type::byte_tag:
    return 1;
  case core::nbt_type::short_tag:
    return 2;
  case core::nbt_type::int_tag:
    return 3;
  case core::nbt_type::long_tag:
    return 4;
  case core::nbt_type::float_tag:
    return 5;
  case core::nbt_type::double_tag:
    return 6;
  case core::nbt_type::byte_array:
    return 7;
  case core::nbt_type::string_tag:
    return 8;
  case core::nbt_type::list_tag:
    return 9;
  case core::nbt_type::compound_tag:
    return 10;
  case core::nbt_type::int_array:
    return 11;
  case core::nbt_type::long_array:
    return 12;
  }
  return 10;
}

// A u16 length and the modified UTF-8 form, cut to 65535 bytes (see the top of this file).
void write_string(byte_writer& w, std::string_view utf8) {
  const std::size_t keep = detail::modified_utf8_prefix(utf8, detail::max_nbt_string_bytes);
  const std::string_view s = utf8.substr(0, keep);
  const std::size_t n = detail::modified_utf8_length(s);
  w.u8(static_cast<std::uint8_t>(n >> 8));
  w.u8(static_cast<std::uint8_t>(n));
  std::string& out = w.buffer();
  for (std::size_t i = 0; i < s.size();) {
    const auto d = core::decode_utf8(s, i);
    const char32_t cp = d.code_point;
    if (cp == 0) {
      out.push_back(static_cast<char>(0xC0));
      out.push_back(static_cast<char>(0x80));
    } else if (cp < 0x10000) {
      detail::append_unit(out, static_cast<std::uint32_t>(cp));
    } else {
      const std::uint32_t v = static_cast<std::uint32_t>(cp) - 0x10000;
      detail::append_unit(out, 0xD800 + (v >> 10));
      detail::append_unit(out, 0xDC00 + (v & 0x3FF));
    }
    i += d.length;
  }
}

std::int32_t count32(std::size_t n) noexcept {
  constexpr auto max = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  return static_cast<std::int32_t>(n < max ? n : max);
}

struct frame {
  const core::nbt_tag* tag;
  std::size_t next;      ///< the next element or entry
  std::size_t remaining; ///< lists: elements still to write (the count already written)
};

class nbt_writer {
public:
  explicit nbt_writer(byte_writer& w) : w_(w) {}

  void run(const core::nbt_tag& root) {
    w_.u8(wire_type(root.type));
    begin(root);
    while (!stack_.empty()) {
      frame& f = stack_.back();
      const core::nbt_tag& t = *f.tag;
      if (t.type == core::nbt_type::list_tag) {
        if (f.remaining == 0) {
          stack_.pop_back();
          continue;
        }
        const auto element_type = t.list.front().type;
        while (t.list[f.next].type != element_type) {
          ++f.next;
        }
        const core::nbt_tag& e = t.list[f.next];
        ++f.next;
        --f.remaining;
        begin(e); // may push: `f` is not used after this
        continue;
      }
      if (f.next >= t.compound.entries.size()) {
        w_.u8(tag_end);
        stack_.pop_back();
        continue;
      }
      const core::nbt_entry& e = t.compound.entries[f.next];
      ++f.next;
      w_.u8(wire_type(e.value.type));
      write_string(w_, e.key);
      begin(e.value);
    }
  }

private:
  // Writes a scalar or array payload whole; for a list or compound, its header and a frame.
  void begin(const core::nbt_tag& t) {
    switch (t.type) {
    case core::nbt_type::byte_tag:
      w_.i8(static_cast<std::int8_t>(t.integer));
      return;
    case core::nbt_type::short_tag:
      w_.i16(static_cast<std::int16_t>(t.integer));
      return;
    case core::nbt_type::int_tag:
      w_.i32(static_cast<std::int32_t>(t.integer));
      return;
    case core::nbt_type::long_tag:
      w_.i64(t.integer);
      return;
    case core::nbt_type::float_tag:
      w_.f32(static_cast<float>(t.number));
      return;
    case core::nbt_type::double_tag:
      w_.f64(t.number);
      return;
    case core::nbt_type::string_tag:
      write_string(w_, t.string);
      return;
    case core::nbt_type::byte_array:
    case core::nbt_type::int_array:
    case core::nbt_type::long_array: {
      const std::int32_t n = count32(t.array.size());
      w_.i32(n);
      for (std::int32_t i = 0; i < n; ++i) {
        const std::int64_t x = t.array[static_cast<std::size_t>(i)];
        if (t.type == core::nbt_type::byte_array) {
          w_.i8(static_cast<std::int8_t>(x));
        } else if (t.type == core::nbt_type::int_array) {
          w_.i32(static_cast<std::int32_t>(x));
        } else {
          w_.i64(x);
        }
      }
      return;
    }
    case core::nbt_type::list_tag: {
      if (t.list.empty()) {
        w_.u8(tag_end); // an empty list has element type TAG_End
        w_.i32(0);
        return;
      }
      const auto element_type = t.list.front().type;
      std::size_t n = 0;
      for (const auto& e : t.list) {
        n += e.type == element_type ? 1 : 0;
      }
      const std::int32_t count = count32(n);
      w_.u8(wire_type(element_type));
      w_.i32(count);
      stack_.push_back(frame{&t, 0, static_cast<std::size_t>(count)});
      return;
    }
    case core::nbt_type::compound_tag:
      stack_.push_back(frame{&t, 0, 0});
      return;
    }
  }

  byte_writer& w_;
  std::vector<frame> stack_;
};

} // namespace

void write_network_nbt(byte_writer& w, const core::nbt_tag& t) {
  nbt_writer(w).run(t);
}

} // namespace emote::render
