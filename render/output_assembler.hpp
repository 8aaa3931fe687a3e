#pragma once
// The renderer's output (render.md §6): packet entries in order, each audience's recipients
// written once and shared by the steps that follow, equal bytes shared, bundle delimiters built
// once per version and step, and the render.warning records (once per tuple, render.md §5.4).
// A part of the renderer (render/render_parts.hpp), with unit tests in
// tests/render/renderer_parts_test.cpp.

#include "render/display_state.hpp"
#include "render/renderer.hpp"
#include "render/tables.hpp"
#include "render/viewer_set.hpp"
#include "render/wire.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace emote::render {

class output_assembler {
public:
  explicit output_assembler(std::span<const version_table* const> vers);

  /// Start writing into `o` (cleared by the caller): the shared ranges of an earlier output
  /// (recipients, delimiters, groupings) start over.
  void begin(render_output& o);
  /// The version every viewer uses (the number of tables when they differ): audiences of it
  /// are taken as they are. Set once the step's viewers are known.
  void set_only_version(std::size_t ver) noexcept { only_version_ = ver; }
  void end() noexcept { out_ = nullptr; }
  [[nodiscard]] render_output& out() noexcept { return *out_; }
  /// Moves on with every begin(): caches of built bytes compare their stamp with it.
  [[nodiscard]] std::uint64_t stamp() const noexcept { return stamp_; }

  /// A render.warning record, once per (emote, node or player, protocol, message).
  void warn(const std::string& emote, const std::string& node, const std::string& player_id,
            std::int32_t protocol, const std::string& message);

  /// Build one packet into the output data; an empty build (nothing to send) is no packet.
  template <class F>
  std::optional<range_ref> build(F&& f) {
    const auto begin = static_cast<std::uint32_t>(out_->data.size());
    byte_writer w(out_->data);
    f(w);
    const auto size = static_cast<std::uint32_t>(out_->data.size() - begin);
    if (size == 0) {
      return std::nullopt;
    }
    return range_ref{begin, size};
  }

  /// One entry of version `ver` for `to` (the last recipients range is reused when equal).
  void entry(std::size_t ver, std::span<const std::uint32_t> to, range_ref data);
  /// One entry for one viewer.
  void single(const active& a, range_ref data) {
    const std::uint32_t to = a.index;
    entry(a.ver, std::span<const std::uint32_t>(&to, 1), data);
  }

  /// Group an audience by version (counting sort, join order kept within a version) for the
  /// grouped_ranges/grouped_step calls that follow (several steps of one audience share it).
  void group_by_version(std::span<const active* const> aud);
  /// Moves on with every group_by_version and every begin(): an audience grouped under an older
  /// serial must be grouped again.
  [[nodiscard]] std::uint64_t group_serial() const noexcept { return group_serial_; }

  /// One step for the audience of the last group_by_version (render.md §6): one entry per
  /// version present, ascending protocol, its packet from `f(ver)` (nullopt: nothing to send
  /// to that version).
  template <class F>
  void grouped_ranges(F&& f) {
    for (std::size_t ver = 0; ver < vers_.size(); ++ver) {
      if (bucket_count_[ver] == 0) {
        continue;
      }
      if (const std::optional<range_ref> data = f(ver)) {
        // The group's recipients of this version are written once for all its steps.
        range_ref to;
        if (grouped_serial_[ver] == group_serial_) {
          to = grouped_to_[ver];
        } else {
          to = recipients(ver, std::span<const std::uint32_t>(scratch_to_)
                                   .subspan(bucket_begin_[ver], bucket_count_[ver]));
          grouped_serial_[ver] = group_serial_;
          grouped_to_[ver] = to;
        }
        last_to_[ver] = to;
        out_->entries.push_back(
            packet_entry{vers_[ver]->protocol, to.begin, to.size, data->begin, data->size});
      }
    }
  }

  /// The same with the packet built once per version by `f(ver, writer)` (writing nothing:
  /// no packet).
  template <class F>
  void grouped_step(F&& f) {
    grouped_ranges([&](std::size_t ver) { return build([&](byte_writer& w) { f(ver, w); }); });
  }

  /// group_by_version(aud), then grouped_step(f).
  template <class F>
  void shared_step(std::span<const active* const> aud, F&& f) {
    group_by_version(aud);
    grouped_step(f);
  }

  /// This step's bundle_delimiter bytes of version `ver`, built once.
  range_ref delimiter_bytes(std::size_t ver);

private:
  range_ref recipients(std::size_t ver, std::span<const std::uint32_t> to);

  std::span<const version_table* const> vers_;
  render_output* out_ = nullptr;
  std::uint64_t stamp_ = 0;
  std::size_t only_version_ = 0;
  std::vector<range_ref> last_to_;   ///< per version: the last recipients range
  std::vector<range_ref> delimiter_; ///< per version: this step's bundle_delimiter bytes
  std::vector<std::uint64_t> delimiter_stamp_;
  std::vector<std::uint32_t> scratch_to_; ///< an audience's indexes grouped by version
  std::vector<std::uint32_t> bucket_count_, bucket_begin_, bucket_fill_; ///< per version
  std::uint64_t group_serial_ = 0;
  std::vector<std::uint64_t> grouped_serial_; ///< per version
  std::vector<range_ref> grouped_to_;         ///< per version
  std::unordered_set<std::string> warned_;
};

} // namespace emote::render
