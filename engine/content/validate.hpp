#pragma once
// Per-file checking (formats.md §1.1 stage 2, §3, §4) and Sequence resolution (§5, §6): the
// stages the loader runs. Internal to engine/content.

#include "engine/content/checker.hpp"
#include "engine/content/model.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emote::content::detail {

/// Where a Sequence names an Animation: used to fill in the pointer and to locate resolution
/// errors (`<r path>`).
struct reference {
  enum class list_kind : std::uint8_t { steps, matched, timeout, offer };
  std::string id;
  std::string path;
  location loc;
  list_kind list = list_kind::steps;
  std::size_t step = 0;
  std::size_t candidate = 0;
};

struct checked_file {
  core::diagnostics dialect_warnings;    ///< formats.md §1.3 (a): whenever the JSON parsed
  core::diagnostics warnings;            ///< (b)-(d): only meaningful when !error
  std::optional<core::diagnostic> error; ///< the per-file error, if any (the first one)
  core::diagnostics further_errors;      ///< error_mode::all_errors: the errors after `error`
  std::string id;                        ///< set when the file passed stage 2
  location id_loc;
  emote_kind kind = emote_kind::animation;
  std::shared_ptr<animation> anim;   ///< kind == animation, passed
  std::shared_ptr<sequence> seq;     ///< kind == sequence, passed (unresolved)
  std::vector<reference> references; ///< R in validation order (sequences)
  location steps_loc;                ///< location of `$.steps`
};

struct check_options {
  bool quirk_warnings = true;
  error_mode errors = error_mode::first_error;
};

/// Stage 2 for one file's bytes (size and I/O are the loader's).
checked_file check_file(std::string_view bytes, const std::string& name,
                        const check_options& options);

// Fields shared by both file types, in their check order.
bool check_schema_version(const json_value& root, checker& c);
bool check_id(const json_value& root, checker& c, std::string& id, location& loc);
bool check_minecraft_version(const json_value& root, checker& c);
bool check_metadata(const json_value& root, checker& c, metadata& out);
/// `settings.player` (formats.md §3.1 rows, in order), `settings` being the object given.
bool check_player_settings(const json_value& settings, checker& c, player_settings& out);

// The type-specific checks, on an already-parsed root object.
void check_animation(const json_value& root, checker& c, checked_file& out,
                     const check_options& options);
void check_sequence(const json_value& root, checker& c, checked_file& out);

/// The skin layout of a node list (formats.md §6). Overflowing groups are reported through
/// `overflow` ("too many skin segments for <participant> <part>: <n>"), in (participant, part)
/// order.
skin_layout compute_skin_layout(const std::vector<node>& nodes,
                                std::vector<std::string>* overflow = nullptr);

/// Partner duplication (formats.md §5.2) of an Animation's nodes.
std::vector<node> expand_partner(const animation& a);

using animation_lookup = std::function<std::shared_ptr<const animation>(std::string_view)>;

/// formats.md §5: resolve a checked Sequence against the resolution set. On success fills in the
/// Sequence's references and resolved data; on failure returns the error. `known_ids`: the
/// resolution set's ids in ascending order, for a "did you mean" on an unknown one.
std::optional<core::diagnostic> resolve_sequence(checked_file& f, const animation_lookup& lookup,
                                                 std::span<const std::string_view> known_ids = {});

} // namespace emote::content::detail
