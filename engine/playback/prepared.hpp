#pragma once
// Prepared content (docs/architecture.md "Performance": bake at load): per Animation the evaluation
// order, the node chains, constant local matrices and, for Molang-free node chains, the world
// matrix of every tick 0..D computed once with the runtime code path (so baked and evaluated poses
// are equal bit for bit). Per emote the node union, its handles, default pose, skins and timings.
//
// A `library` prepares every entry of one catalog once; playbacks share it read-only.

#include "engine/api/event.hpp"
#include "engine/content/model.hpp"
#include "engine/math/types.hpp"
#include "engine/playback/segments.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace emote::playback {

/// Where a node's world matrix comes from on each evaluation.
enum class pose_source : std::uint8_t {
  table_constant, ///< the chain has no vector tracks: one world matrix for every tick
  table_per_tick, ///< the chain is Molang-free: world_table[offset + t]
  runtime,        ///< evaluate the node's local (constant_local when it has no vector tracks)
};

struct prepared_node {
  std::int32_t parent = -1;    ///< index in the same node list
  std::int32_t mirror_of = -1; ///< partner copy: the source node
  bool anchor = false;
  bool has_vector_tracks = false;
  bool has_vector_molang = false;
  pose_source pose = pose_source::runtime;
  std::uint32_t table = 0;    ///< offset into world_table (table poses)
  math::mat4f constant_local; ///< runtime nodes without vector tracks
};

/// One Animation as a playback uses it: standalone (its own nodes) or inside a Sequence (its
/// possibly partner-expanded node list, mapped into the Sequence's union).
class prepared_animation {
public:
  prepared_animation(std::shared_ptr<const content::animation> animation,
                     const std::vector<content::node>* nodes, std::vector<std::int32_t> union_index,
                     std::size_t bake_budget);

  [[nodiscard]] const content::animation& source() const noexcept { return *animation_; }
  [[nodiscard]] std::span<const content::node> nodes() const noexcept { return *nodes_; }
  [[nodiscard]] std::span<const prepared_node> prepared() const noexcept { return prepared_; }
  /// Source nodes (not partner copies) in evaluation order (playback.md §2.1).
  [[nodiscard]] std::span<const std::int32_t> order() const noexcept { return order_; }
  /// Partner copies in list order.
  [[nodiscard]] std::span<const std::int32_t> mirrors() const noexcept { return mirrors_; }
  /// node index → union index.
  [[nodiscard]] std::span<const std::int32_t> union_index() const noexcept { return union_index_; }
  [[nodiscard]] const content::node_tracks& tracks(std::int32_t node) const noexcept;
  [[nodiscard]] const math::mat4f& table(std::uint32_t offset) const noexcept {
    return world_table_[offset];
  }
  [[nodiscard]] std::int64_t duration() const noexcept { return animation_->duration.count(); }
  [[nodiscard]] animation_timing timing() const noexcept;
  /// Bytes of baked matrices.
  [[nodiscard]] std::size_t baked_bytes() const noexcept {
    return world_table_.size() * sizeof(math::mat4f);
  }
  [[nodiscard]] bool has_molang() const noexcept { return has_molang_; }

private:
  void bake(std::size_t budget);

  std::shared_ptr<const content::animation> animation_;
  const std::vector<content::node>* nodes_;
  std::vector<prepared_node> prepared_;
  std::vector<std::int32_t> order_;
  std::vector<std::int32_t> mirrors_;
  std::vector<std::int32_t> union_index_;
  std::vector<math::mat4f> world_table_;
  bool has_molang_ = false;
};

/// Content of one union node that a display needs.
struct union_node_info {
  const content::node* node = nullptr; ///< the first definition
  api::space space = api::space::scene;
  api::display_kind kind = api::display_kind::item;
  bool anchor = false;
  std::optional<api::skin_binding> skin;
  math::mat4f default_world; ///< the union default pose (world of the defining Animation)
};

/// One catalog entry ready to play.
class prepared_emote {
public:
  /// A standalone Animation.
  prepared_emote(std::shared_ptr<const content::animation> animation, std::size_t bake_budget);
  /// A Sequence (linear or two-player).
  prepared_emote(std::shared_ptr<const content::sequence> sequence, std::size_t bake_budget);

  [[nodiscard]] std::string_view id() const noexcept { return id_; }
  [[nodiscard]] bool is_sequence() const noexcept { return sequence_ != nullptr; }
  [[nodiscard]] bool two_player() const noexcept {
    return sequence_ != nullptr && sequence_->two_player();
  }
  [[nodiscard]] const content::animation* animation() const noexcept { return animation_.get(); }
  [[nodiscard]] const content::sequence* sequence() const noexcept { return sequence_.get(); }

  /// Standalone: one; Sequence: one per `sequence::animations`, same indices.
  [[nodiscard]] const prepared_animation& animation_at(std::int32_t i) const noexcept {
    return animations_[static_cast<std::size_t>(i)];
  }
  [[nodiscard]] std::size_t animation_count() const noexcept { return animations_.size(); }
  [[nodiscard]] std::span<const animation_timing> timings() const noexcept { return timings_; }

  /// The node union (standalone: the Animation's nodes).
  [[nodiscard]] std::span<const union_node_info> union_nodes() const noexcept { return nodes_; }
  /// Union indices of the display (non-anchor) nodes, in union order: one handle each.
  [[nodiscard]] std::span<const std::int32_t> display_nodes() const noexcept {
    return display_nodes_;
  }
  [[nodiscard]] std::size_t handle_count() const noexcept { return display_nodes_.size(); }

  /// The player settings in effect (the Sequence's for Sequences).
  [[nodiscard]] const content::player_settings& player() const noexcept;
  /// The rotation_deadzone before any segment was entered (the layout anchor's, or the
  /// Animation's own).
  [[nodiscard]] double initial_deadzone() const noexcept;

  /// Two-player: the offer as a one-step list (repeat 1, no transition).
  [[nodiscard]] std::span<const content::step> offer_steps() const noexcept { return offer_; }

private:
  void init_union(std::span<const content::node> nodes, const content::skin_layout& skin);

  std::string id_;
  std::shared_ptr<const content::animation> animation_;
  std::shared_ptr<const content::sequence> sequence_;
  std::vector<prepared_animation> animations_;
  std::vector<animation_timing> timings_;
  std::vector<union_node_info> nodes_;
  std::vector<std::int32_t> display_nodes_;
  std::vector<content::step> offer_;
};

/// Every catalog entry prepared once. Bakes at most `bake_budget` bytes of matrices in total
/// (entries in catalog order; unbaked nodes are evaluated per tick with the same result).
class library {
public:
  static constexpr std::size_t default_bake_budget = std::size_t{64} << 20;
  static constexpr std::size_t per_animation_bake_limit = std::size_t{4} << 20;

  explicit library(std::shared_ptr<const content::catalog> catalog,
                   std::size_t bake_budget = default_bake_budget);

  [[nodiscard]] std::shared_ptr<const prepared_emote> find(std::string_view id) const noexcept;
  [[nodiscard]] const content::catalog& catalog() const noexcept { return *catalog_; }
  [[nodiscard]] std::size_t baked_bytes() const noexcept { return baked_bytes_; }

private:
  std::shared_ptr<const content::catalog> catalog_;
  std::vector<std::shared_ptr<const prepared_emote>> emotes_; ///< same order as entries()
  std::size_t baked_bytes_ = 0;
};

api::display_kind display_kind_of(content::node_type t) noexcept;

} // namespace emote::playback
