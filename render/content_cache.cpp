#include "render/content_cache.hpp"

#include "render/content.hpp"
#include "render/wire.hpp"

namespace emote::render {

namespace {

/// The text a display's content is encoded from: its item, block or text.
const std::string& source_of(const display& d) noexcept {
  return d.kind == api::display_kind::item    ? d.item
         : d.kind == api::display_kind::block ? d.block
                                              : d.text_json;
}

void encode(const version_table& v, const display& d, cached_content& into) {
  into.raw.clear();
  into.warnings.clear();
  const std::string& source = source_of(d);
  byte_writer w(into.raw);
  const skin_profile prof{d.captured.textures ? &*d.captured.textures : nullptr,
                          d.captured.uuid ? &*d.captured.uuid : nullptr, d.captured.name};
  into.state = write_display_content(w, v, d.kind, source, d.skin ? &prof : nullptr, into.warnings);
}

/// Everything encode() reads of `d`, each field sized so that no two differ in one key.
void key_of(const display& d, std::string& key) {
  key.assign(1, static_cast<char>(d.kind));
  append_sized(key, source_of(d));
  if (d.skin) {
    key.push_back('s');
    append_sized(key, d.captured.textures ? d.captured.textures->value : "");
    append_sized(key, d.captured.textures && d.captured.textures->signature
                          ? *d.captured.textures->signature
                          : "");
    key.push_back(d.captured.textures ? 't' : '-');
    key.push_back(d.captured.textures && d.captured.textures->signature ? 's' : '-');
    key.push_back(d.captured.uuid ? 'u' : '-');
    if (d.captured.uuid) {
      key.append(reinterpret_cast<const char*>(d.captured.uuid->data()), d.captured.uuid->size());
    }
    append_sized(key, d.captured.name);
  }
}

} // namespace

content_cache::content_cache(std::span<const version_table* const> vers, core::cache_mode mode)
    : vers_(vers), mode_(mode), maps_(vers.size()) {
  for (const version_table* v : vers) {
    empty_.push_back(empty_contents(*v));
  }
}

const cached_content& content_cache::get(const display& d, std::size_t ver) {
  const version_table& v = *vers_[ver];
  if (mode_ == core::cache_mode::off) {
    encode(v, d, fresh_);
    return fresh_;
  }
  key_of(d, key_);
  auto& map = maps_[ver];
  auto it = map.find(key_);
  if (it == map.end()) {
    if (map.size() >= limit) {
      map.clear();
    }
    cached_content cc;
    encode(v, d, cc);
    return map.emplace(key_, std::move(cc)).first->second;
  }
  if (mode_ == core::cache_mode::check) {
    encode(v, d, fresh_);
    if (!(fresh_ == it->second)) {
      core::cache_mismatch e("render content cache");
      e.session = static_cast<std::int64_t>(d.session);
      e.handle = static_cast<std::int64_t>(d.handle);
      e.detail = "node " + d.node + ", protocol " + std::to_string(v.protocol);
      throw e;
    }
  }
  return it->second;
}

std::size_t content_cache::size() const noexcept {
  std::size_t n = 0;
  for (const auto& m : maps_) {
    n += m.size();
  }
  return n;
}

} // namespace emote::render
