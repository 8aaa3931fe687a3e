#pragma once
// The loaded content: Animations, Sequences and the Catalog, fully validated and resolved
// (formats.md). Plain immutable data: the loader builds it once, everything downstream reads it
// through `std::shared_ptr<const catalog>`. Node, candidate and event references are indices,
// never names, so playback never looks anything up by string.

#include "engine/core/coordinates.hpp"
#include "engine/core/diagnostic.hpp"
#include "engine/core/snbt.hpp"
#include "engine/core/tick.hpp"
#include "engine/core/vocabulary.hpp"
#include "engine/math/easing.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace emote::molang {
class program;
class symbol_table;
} // namespace emote::molang

namespace emote::content {

using core::ticks;
using program_ptr = std::shared_ptr<const molang::program>;

// ---------------------------------------------------------------------------------------------
// Enumerations; `name()` gives the spelling used in files.

enum class emote_kind : std::uint8_t { animation, sequence };
enum class playback_mode : std::uint8_t { once, hold, loop, server_sync };
enum class node_type : std::uint8_t { anchor, item_display, block_display, text_display };
using core::physical_arm;
enum class item_display_context : std::uint8_t {
  none,
  thirdperson_lefthand,
  thirdperson_righthand,
  firstperson_lefthand,
  firstperson_righthand,
  head,
  gui,
  ground,
  fixed,
  on_shelf,
};
enum class participant : std::uint8_t { initiator, partner };
enum class skin_part : std::uint8_t { head, body, left_arm, right_arm, left_leg, right_leg };
enum class interpolation : std::uint8_t { linear, step };
/// The 31 keyframe easings (formats.md §3.4): the math module defines and evaluates them.
using easing = math::easing;
enum class event_source : std::uint8_t { player, server, node };
enum class event_origin : std::uint8_t { root, node };
enum class candidate_kind : std::uint8_t { animation, continue_repeat, break_repeat };
enum class step_kind : std::uint8_t { emote, wait };

// The file spelling of each enumerator (formats.md §3): the validator reads with these tables and
// name() writes with them. Node spaces and arms use core's tables (core/vocabulary.hpp).
inline constexpr core::enum_names<emote_kind, 2> emote_kind_names{{"animation", "sequence"}};
inline constexpr core::enum_names<playback_mode, 4> playback_mode_names{
    {"once", "hold", "loop", "server_sync"}};
inline constexpr core::enum_names<node_type, 4> node_type_names{
    {"anchor", "item_display", "block_display", "text_display"}};
inline constexpr core::enum_names<item_display_context, 10> item_display_context_names{
    {"none", "thirdperson_lefthand", "thirdperson_righthand", "firstperson_lefthand",
     "firstperson_righthand", "head", "gui", "ground", "fixed", "on_shelf"}};
inline constexpr core::enum_names<participant, 2> participant_names{{"initiator", "partner"}};
inline constexpr core::enum_names<skin_part, 6> skin_part_names{
    {"head", "body", "left_arm", "right_arm", "left_leg", "right_leg"}};
inline constexpr core::enum_names<interpolation, 2> interpolation_names{{"linear", "step"}};
inline constexpr core::enum_names<event_source, 3> event_source_names{{"player", "server", "node"}};
inline constexpr core::enum_names<event_origin, 2> event_origin_names{{"root", "node"}};

using core::name;
std::string_view name(emote_kind v) noexcept;
std::string_view name(playback_mode v) noexcept;
std::string_view name(node_type v) noexcept;
std::string_view name(item_display_context v) noexcept;
std::string_view name(participant v) noexcept;
std::string_view name(skin_part v) noexcept;
std::string_view name(interpolation v) noexcept;
std::string_view name(event_source v) noexcept;
std::string_view name(event_origin v) noexcept;

// ---------------------------------------------------------------------------------------------
// Shared pieces

struct metadata {
  std::string name;
  std::string description;
  /// Every other `metadata` key in file order: (key, value as compact JSON text).
  std::vector<std::pair<std::string, std::string>> extra;
};

struct stop_conditions {
  double movement_distance = 0;
  bool jump = false;
  bool submerge = false;
  bool ride = false;
  bool damage = false;
  bool attack = false;
  bool game_mode_change = false;
  friend bool operator==(const stop_conditions&, const stop_conditions&) = default;
};

struct player_settings {
  bool hidden = false;
  content::stop_conditions stop_conditions;
  friend bool operator==(const player_settings&, const player_settings&) = default;
};

// ---------------------------------------------------------------------------------------------
// Animation

struct animation_settings {
  bool standalone = true;
  ticks cooldown;
  double rotation_deadzone = 50;
  ticks display_interpolation{1};
  player_settings player;
  playback_mode mode = playback_mode::once;
  ticks loop_delay;
};

/// A node's default local transform: translation, XYZ Euler degrees, scale.
struct transform {
  std::array<double, 3> position{0, 0, 0};
  std::array<double, 3> rotation{0, 0, 0};
  std::array<double, 3> scale{1, 1, 1};
};

struct skin_binding {
  content::participant participant = participant::initiator;
  skin_part part = skin_part::head;
  std::int32_t order = 0;
};

struct node {
  std::string id;
  node_type type = node_type::anchor;
  std::int32_t parent = -1;               ///< index in the same node list, -1 for a root
  core::space space = core::space::scene; ///< effective space (the root's)
  bool is_root = true;
  content::transform transform;
  bool visible = true;           ///< displays; anchors: true, meaningless
  core::nbt_compound entity_nbt; ///< displays; empty = none
  std::string entity_nbt_snbt;   ///< canonical SNBT of entity_nbt ("{}" when empty)

  // item_display: either a fixed stack or the participant's hand.
  core::nbt_compound item_stack;                ///< when !participant_hand
  std::string item_stack_snbt;                  ///< canonical SNBT of item_stack
  std::string item_id;                          ///< item_stack's `id` with namespace
  std::optional<physical_arm> participant_hand; ///< item_source participant_hand
  item_display_context item_display = item_display_context::none;
  std::optional<skin_binding> skin;

  // block_display
  core::nbt_compound block_state;
  std::string block_state_snbt;

  // text_display: the `text` value as compact JSON (members in file order)
  std::string text_json;

  /// Partner copies made by duplication (formats.md §5.2): index of the source node in the same
  /// list; the copy receives the source's evaluated transform, visibility and NBT state.
  std::int32_t mirror_of = -1;
};

/// One component of a vector keyframe: a constant or a compiled track expression.
struct track_value {
  double constant = 0;
  program_ptr expression; ///< non-null: evaluate this instead of `constant`
  std::string source;     ///< the Molang text when `expression` is set
  [[nodiscard]] bool is_expression() const noexcept { return expression != nullptr; }
};
using track_vector = std::array<track_value, 3>;

struct vector_keyframe {
  ticks time;
  track_vector pre;  ///< value arriving at this keyframe (equals post unless pre/post given)
  track_vector post; ///< value leaving this keyframe; governs segment k -> k+1
  content::interpolation interpolation = interpolation::linear;
  content::easing easing = easing::linear;
};

struct visible_keyframe {
  ticks time;
  bool value = true;
  program_ptr expression; ///< non-null: 0 hides, anything else shows
  std::string source;
};

struct nbt_keyframe {
  ticks time;
  core::nbt_compound value; ///< fixed value (when !is_select())
  program_ptr select;       ///< option picker
  std::string select_source;
  std::vector<core::nbt_compound> options; ///< >= 2 when select
  [[nodiscard]] bool is_select() const noexcept { return select != nullptr; }
};

struct node_tracks {
  std::vector<vector_keyframe> position;
  std::vector<vector_keyframe> rotation;
  std::vector<vector_keyframe> scale;
  std::vector<visible_keyframe> visible;
  std::vector<nbt_keyframe> nbt;
  [[nodiscard]] bool empty() const noexcept {
    return position.empty() && rotation.empty() && scale.empty() && visible.empty() && nbt.empty();
  }
};

struct callback {
  std::string name;    ///< resource location with namespace (`swing` -> `minecraft:swing`)
  std::string payload; ///< "" by default
};

struct command_event {
  ticks time; ///< timeline events; 0 for the others
  event_source source = event_source::player;
  std::int32_t source_node = -1; ///< node index when source == node (a display)
  event_origin origin = event_origin::root;
  std::int32_t origin_node = -1; ///< node index when origin == node
  std::array<double, 3> offset{0, 0, 0};
  std::vector<std::string> commands; ///< as written (never starting with '/')
  std::vector<content::callback> callbacks;
};

struct event_lists {
  std::vector<command_event> start;
  std::vector<command_event> timeline; ///< ascending time, file order within a time
  std::vector<command_event> loop;
  std::vector<command_event> stop;
  [[nodiscard]] bool has_lifecycle() const noexcept {
    return !start.empty() || !loop.empty() || !stop.empty();
  }
};

/// One skin-bound node's texture region (formats.md §6): rows [start, end) of the part's
/// 12-pixel side face, row 0 at the top.
struct skin_region {
  std::int32_t node = -1; ///< index in the node list the layout was computed for
  std::string node_id;
  content::participant participant = participant::initiator;
  skin_part part = skin_part::head;
  std::int32_t order = 0;
  std::int32_t start = 0;
  std::int32_t end = 12;
};
/// Regions in node-list order. Two layouts are equal iff their sets of (node_id, participant,
/// part, start, end) are equal (see same_layout()).
using skin_layout = std::vector<skin_region>;
bool same_layout(const skin_layout& a, const skin_layout& b);

struct animation {
  std::string id;
  std::string file; ///< discovery name of the source file
  content::metadata metadata;
  animation_settings settings;
  ticks duration; ///< D, 1..12000

  /// One symbol table for every Molang string of this Animation (slots shared by programs).
  std::shared_ptr<const molang::symbol_table> symbols;
  program_ptr initialize; ///< may be null
  program_ptr tick;       ///< may be null (always null for server_sync)
  std::string initialize_source;
  std::string tick_source;

  std::vector<node> nodes;         ///< member order
  std::vector<node_tracks> tracks; ///< one per node, same indices
  event_lists events;
  skin_layout skin;               ///< layout of `nodes` (no partner expansion)
  bool has_partner_nodes = false; ///< any node of effective space partner

  /// Index of the node with this id, or -1.
  [[nodiscard]] std::int32_t find_node(std::string_view node_id) const noexcept;
};

// ---------------------------------------------------------------------------------------------
// Sequence

struct candidate {
  std::string id;
  candidate_kind kind = candidate_kind::animation;
  std::int32_t weight = 0;                             ///< 1..100 in weighted mode, 0 in equal mode
  std::shared_ptr<const content::animation> animation; ///< kind == animation
  std::int32_t animation_index = -1;                   ///< index in sequence::animations
};

struct step {
  step_kind kind = step_kind::emote;
  // emote step
  std::vector<content::candidate> candidates;
  bool weighted = false;
  std::int32_t repeat = 1;
  ticks transition;
  // wait step
  ticks wait;
};

struct placement {
  core::position_coordinates position;
  core::rotation_coordinates rotation;
};

struct participants {
  placement initiator;
  placement partner;
};

/// The single await_partner step of a two-player Sequence.
struct partner_step {
  std::string offer_id;
  std::shared_ptr<const content::animation> offer;
  std::int32_t offer_index = -1; ///< index in sequence::animations
  ticks timeout;
  std::vector<step> matched;
  std::vector<step> timeout_steps;
};

/// A referenced Animation as this Sequence uses it.
struct sequence_animation {
  std::shared_ptr<const content::animation> animation;
  /// The Animation's nodes; in a two-player Sequence an Animation without partner nodes gets
  /// the partner copies appended (mirror_of set, formats.md §5.2).
  std::vector<node> nodes;
  bool expanded = false;
  skin_layout skin;                      ///< layout of `nodes`
  std::vector<std::int32_t> union_index; ///< nodes[i] -> index in sequence::node_union
};

struct sequence {
  std::string id;
  std::string file;
  content::metadata metadata;
  ticks cooldown;
  player_settings player;
  std::optional<content::participants> participants; ///< two-player only

  std::vector<step> steps;             ///< linear Sequences (empty for two-player)
  std::optional<partner_step> partner; ///< two-player Sequences

  // Resolution (formats.md §5)
  /// Distinct referenced Animations in validation order; [0] is the layout anchor.
  std::vector<sequence_animation> animations;
  /// The union U: first definitions in first-seen order. Parents and mirror_of are union
  /// indices (mirror_of as in the defining Animation).
  std::vector<node> node_union;
  /// For each union node: (index in `animations`, index in that animation's `nodes`).
  std::vector<std::pair<std::int32_t, std::int32_t>> union_source;
  skin_layout skin; ///< the common layout; `node` indexes node_union

  /// Preview lengths of formats.md §5.4 (first candidates). Linear: `steps`. Two-player: the offer
  /// (its D), `matched` and `timeout`.
  std::int64_t steps_length = 0;
  std::int64_t offer_length = 0;
  std::int64_t matched_length = 0;
  std::int64_t timeout_length = 0;
  /// Reported duration: linear = steps_length; two-player = offer_length + matched_length.
  std::int64_t duration = 0;
  /// Every emote step (branches included) has a single Animation candidate.
  bool fixed_duration = false;

  [[nodiscard]] bool two_player() const noexcept { return partner.has_value(); }
  [[nodiscard]] const content::animation& layout_anchor() const noexcept {
    return *animations.front().animation;
  }
  /// Index in `animations` of the Animation with this id, or -1.
  [[nodiscard]] std::int32_t find_animation(std::string_view animation_id) const noexcept;
};

// ---------------------------------------------------------------------------------------------
// Catalog

struct catalog_entry {
  std::string id;
  emote_kind kind = emote_kind::animation;
  std::shared_ptr<const content::animation> animation; ///< kind == animation
  std::shared_ptr<const content::sequence> sequence;   ///< kind == sequence
  bool disabled = false;                               ///< listed in the config's `disabled`
  bool runtime = false;                                ///< added by emote.register

  [[nodiscard]] bool standalone() const noexcept;
  [[nodiscard]] bool two_player() const noexcept;
  [[nodiscard]] std::int64_t duration() const noexcept; ///< D, or the Sequence's duration
  [[nodiscard]] ticks cooldown() const noexcept;
  [[nodiscard]] const content::metadata& meta() const noexcept;
  [[nodiscard]] const player_settings& player() const noexcept;
};

/// One file seen by discovery (or a registered document).
struct source_file {
  std::string name;      ///< discovery name (relative path with '/'), used in diagnostics
  std::string full_path; ///< path on disk ("" for in-memory documents)
  std::uint64_t size = 0;
  std::string id;          ///< the emote id it defines when it parsed that far
  bool registered = false; ///< its emote is in the catalog
};

class catalog {
public:
  catalog() = default;
  catalog(std::vector<catalog_entry> entries, std::vector<source_file> files,
          core::diagnostics diagnostics);

  /// Registered emotes, ascending id (bytes).
  [[nodiscard]] const std::vector<catalog_entry>& entries() const noexcept { return entries_; }
  [[nodiscard]] const catalog_entry* find(std::string_view id) const noexcept;
  [[nodiscard]] std::shared_ptr<const content::animation> find_animation(std::string_view id) const;
  [[nodiscard]] std::shared_ptr<const content::sequence> find_sequence(std::string_view id) const;
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] std::size_t animation_count() const noexcept;
  [[nodiscard]] std::size_t sequence_count() const noexcept;

  /// Files in discovery order.
  [[nodiscard]] const std::vector<source_file>& files() const noexcept { return files_; }
  /// Everything the load reported, in `check` order (per file: warnings by position, then its
  /// error).
  [[nodiscard]] const core::diagnostics& diagnostics() const noexcept { return diagnostics_; }
  [[nodiscard]] std::size_t error_count() const noexcept;
  [[nodiscard]] std::size_t warning_count() const noexcept;

private:
  std::vector<catalog_entry> entries_;
  std::vector<source_file> files_;
  core::diagnostics diagnostics_;
};

} // namespace emote::content
