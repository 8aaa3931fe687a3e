#pragma once
// Loading emote content (formats.md §1): discovery, per-file validation, duplicate ids,
// Sequence resolution and the registry cap, producing an immutable catalog.

#include "engine/content/model.hpp"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emote::content {

struct load_options {
  /// Config `disabled`: these Animations stay registered but cannot be resolved by Sequences.
  std::vector<std::string> disabled;
  /// Registry cap (formats.md §1.1 stage 5).
  std::size_t registry_limit = 512;
  /// Report Molang quirk warnings (check); loading for play may skip them.
  bool quirk_warnings = true;
  /// `check` (formats.md §1.3): report every error of a rejected file, not only the first (which
  /// stays the first). What loads, and every other diagnostic, is the same either way.
  bool all_errors = false;
};

/// An in-memory file: its discovery name and bytes.
struct memory_file {
  std::string name;
  std::string bytes;
};

/// A file found by discovery: its name relative to the root ('/' separators) and its full path.
struct discovered_file {
  std::string name;
  std::string full_path;
};

/// Discovery (formats.md §1.1 stage 1) under one directory: the `.json` files in load order.
/// Hidden entries (a name starting with '.') are skipped and not entered, directory symlinks are
/// not followed, and a file reached again through a symlink is kept once, under its first name —
/// so a Kubernetes ConfigMap mount (a hidden timestamped folder, a `..data` link to it and a
/// visible link per file) reads each file once.
std::vector<discovered_file> discover_directory(const std::filesystem::path& root);

/// Load every `.json` file under each root (a directory, walked recursively, or a single file)
/// as one content set. With one directory root files are named relative to it; with several
/// roots, or a file root, names are prefixed with the root as given.
std::shared_ptr<const catalog> load_paths(std::span<const std::filesystem::path> roots,
                                          const load_options& options = {});

/// Load one emote root directory (what the server and a reload do).
std::shared_ptr<const catalog> load_directory(const std::filesystem::path& root,
                                              const load_options& options = {});

/// Load files already in memory, in the given order (tests, fuzzing, benchmarks). Names are used
/// as given for diagnostics; ordering is the caller's.
std::shared_ptr<const catalog> load_files(std::vector<memory_file> files,
                                          const load_options& options = {});

/// `emote.register`: validate one JSON document as a file named `name` would be, resolve it
/// against `base` (a Sequence against base's Animations), and on success return `base` plus the
/// new entry. Fails with the file's diagnostics when it is invalid, its id is already
/// registered, or the registry is full.
struct register_result {
  std::shared_ptr<const content::catalog> updated; ///< base plus the new entry; null on failure
  std::string id;
  core::diagnostics diagnostics; ///< warnings, and the error on failure
  [[nodiscard]] bool ok() const noexcept { return updated != nullptr; }
};
register_result register_document(const catalog& base, std::string_view document,
                                  const load_options& options = {},
                                  std::string_view name = "<document>");

/// `base` without the entry `id` (emote.unregister). Sequences that reference a removed
/// Animation keep their own reference and stay registered.
std::shared_ptr<const catalog> unregister(const catalog& base, std::string_view id);

} // namespace emote::content
