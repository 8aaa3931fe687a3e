#include "render/output_assembler.hpp"

#include "render/packets.hpp"

#include <algorithm>

namespace emote::render {

namespace {
/// Distinct render.warning tuples remembered for "once per tuple" before the set starts over.
constexpr std::size_t warned_limit = 65536;
} // namespace

output_assembler::output_assembler(std::span<const version_table* const> vers)
    : vers_(vers), only_version_(vers.size()), last_to_(vers.size()), delimiter_(vers.size()),
      delimiter_stamp_(vers.size(), 0), bucket_count_(vers.size()), bucket_begin_(vers.size()),
      bucket_fill_(vers.size()), grouped_serial_(vers.size(), 0), grouped_to_(vers.size()) {}

void output_assembler::begin(render_output& o) {
  out_ = &o;
  ++stamp_;
  only_version_ = vers_.size();
  std::fill(last_to_.begin(), last_to_.end(), range_ref{0, 0});
  ++group_serial_; // recipients ranges point into the previous output
}

void output_assembler::warn(const std::string& emote, const std::string& node,
                            const std::string& player_id, std::int32_t protocol,
                            const std::string& message) {
  std::string key;
  append_sized(key, emote);
  append_sized(key, node);
  append_sized(key, player_id);
  key.append(reinterpret_cast<const char*>(&protocol), sizeof protocol);
  key.append(message);
  if (warned_.size() >= warned_limit) {
    warned_.clear(); // bounded memory: a warning may then be repeated, never lost
  }
  if (warned_.insert(std::move(key)).second) {
    out_->warnings.push_back(api::ev_render_warning{emote, node, player_id, protocol, message});
  }
}

range_ref output_assembler::recipients(std::size_t ver, std::span<const std::uint32_t> to) {
  range_ref& last = last_to_[ver];
  if (last.size == to.size() && last.begin + last.size <= out_->recipients.size() &&
      std::equal(to.begin(), to.end(), out_->recipients.begin() + last.begin)) {
    return last;
  }
  last.begin = static_cast<std::uint32_t>(out_->recipients.size());
  last.size = static_cast<std::uint32_t>(to.size());
  out_->recipients.insert(out_->recipients.end(), to.begin(), to.end());
  return last;
}

void output_assembler::entry(std::size_t ver, std::span<const std::uint32_t> to, range_ref data) {
  const range_ref r = recipients(ver, to);
  out_->entries.push_back(
      packet_entry{vers_[ver]->protocol, r.begin, r.size, data.begin, data.size});
}

void output_assembler::group_by_version(std::span<const active* const> aud) {
  ++group_serial_;
  std::fill(bucket_count_.begin(), bucket_count_.end(), 0U);
  if (only_version_ < vers_.size()) {
    // Every viewer on one version: the audience as it is.
    scratch_to_.resize(aud.size());
    for (std::size_t k = 0; k < aud.size(); ++k) {
      scratch_to_[k] = aud[k]->index;
    }
    bucket_begin_[only_version_] = 0;
    bucket_count_[only_version_] = static_cast<std::uint32_t>(aud.size());
    return;
  }
  for (const active* a : aud) {
    ++bucket_count_[a->ver];
  }
  std::uint32_t at = 0;
  for (std::size_t ver = 0; ver < vers_.size(); ++ver) {
    bucket_begin_[ver] = at;
    at += bucket_count_[ver];
  }
  scratch_to_.resize(aud.size());
  std::copy(bucket_begin_.begin(), bucket_begin_.end(), bucket_fill_.begin());
  for (const active* a : aud) {
    scratch_to_[bucket_fill_[a->ver]++] = a->index;
  }
}

range_ref output_assembler::delimiter_bytes(std::size_t ver) {
  if (delimiter_stamp_[ver] != stamp_) {
    delimiter_stamp_[ver] = stamp_;
    delimiter_[ver] = *build([&](byte_writer& w) { write_bundle_delimiter(w, *vers_[ver]); });
  }
  return delimiter_[ver];
}

} // namespace emote::render
