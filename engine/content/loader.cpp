// The loading pipeline (formats.md §1.1): discovery, per-file checks, duplicate ids, resolution,
// registry cap.
#include "engine/content/loader.hpp"

#include "engine/content/validate.hpp"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <map>
#include <set>
#include <system_error>
#include <unordered_map>

namespace emote::content {
namespace {

namespace fs = std::filesystem;
using detail::checked_file;

constexpr std::uint64_t max_file_bytes = 8388608;

struct input_file {
  std::string name;
  std::string full_path;
  bool in_memory = false;
  std::string bytes; ///< in-memory content
};

struct outcome {
  source_file file;
  checked_file checked;
  std::optional<core::diagnostic> late_error; ///< duplicate id, resolution, registry
};

core::diagnostic file_error(const std::string& name, std::string message) {
  core::diagnostic d;
  d.file = name;
  d.line = 1;
  d.column = 1;
  d.path = "$";
  d.message = std::move(message);
  d.severity = core::severity::error;
  return d;
}

core::diagnostic id_error(const outcome& o, std::string message) {
  core::diagnostic d;
  d.file = o.file.name;
  d.line = static_cast<int>(o.checked.id_loc.line);
  d.column = static_cast<int>(o.checked.id_loc.column);
  d.path = "$.id";
  d.message = std::move(message);
  d.severity = core::severity::error;
  return d;
}

// formats.md §1.1 stage 2: "failed to read file", with the operating system's reason.
std::string read_failure(const std::error_code& ec) {
  return ec ? "failed to read file: " + ec.message() : std::string("failed to read file");
}
std::string read_failure(int error_number) {
  return read_failure(std::error_code(error_number, std::generic_category()));
}

std::string size_message() {
  return "file must not exceed " + std::to_string(max_file_bytes) + " bytes";
}

// Stage 2 for one discovered file.
checked_file check_input(const input_file& in, std::uint64_t& size,
                         const detail::check_options& opts) {
  checked_file out;
  if (in.in_memory) {
    size = in.bytes.size();
    if (size > max_file_bytes) {
      out.error = file_error(in.name, size_message());
      return out;
    }
    return detail::check_file(in.bytes, in.name, opts);
  }
  std::error_code ec;
  size = fs::file_size(in.full_path, ec);
  if (ec) {
    out.error = file_error(in.name, read_failure(ec));
    return out;
  }
  if (size > max_file_bytes) {
    out.error = file_error(in.name, size_message());
    return out;
  }
  errno = 0;
  std::ifstream f(in.full_path, std::ios::binary);
  if (!f) {
    out.error = file_error(in.name, read_failure(errno));
    return out;
  }
  // Read at most one byte more than the limit: the file may have grown since it was measured.
  std::string bytes(static_cast<std::size_t>(size) + 1, '\0');
  errno = 0;
  f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (f.bad()) {
    out.error = file_error(in.name, read_failure(errno));
    return out;
  }
  bytes.resize(static_cast<std::size_t>(f.gcount()));
  if (bytes.size() > max_file_bytes) {
    out.error = file_error(in.name, size_message());
    return out;
  }
  size = bytes.size();
  return detail::check_file(bytes, in.name, opts);
}

detail::check_options check_options_of(const load_options& options) {
  return {options.quirk_warnings,
          options.all_errors ? detail::error_mode::all_errors : detail::error_mode::first_error};
}

bool is_disabled(const load_options& options, std::string_view id) {
  return std::find(options.disabled.begin(), options.disabled.end(), id) != options.disabled.end();
}

catalog_entry entry_for(const checked_file& c, const load_options& options) {
  catalog_entry e;
  e.id = c.id;
  e.kind = c.kind;
  e.animation = c.anim;
  e.sequence = c.seq;
  e.disabled = is_disabled(options, c.id);
  return e;
}

// A file's diagnostics in check order: warnings by (line, column, generation), then its error
// (with `all_errors`, its errors in the order found).
void append_diagnostics(const outcome& o, core::diagnostics& out) {
  core::diagnostics w = o.checked.dialect_warnings;
  if (!o.checked.error) {
    w.insert(w.end(), o.checked.warnings.begin(), o.checked.warnings.end());
  }
  std::stable_sort(w.begin(), w.end(), [](const core::diagnostic& a, const core::diagnostic& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  out.insert(out.end(), w.begin(), w.end());
  if (o.checked.error) {
    out.push_back(*o.checked.error);
    out.insert(out.end(), o.checked.further_errors.begin(), o.checked.further_errors.end());
  } else if (o.late_error) {
    out.push_back(*o.late_error);
  }
}

std::shared_ptr<const catalog> run_pipeline(const std::vector<input_file>& inputs,
                                            const load_options& options, core::diagnostics extra) {
  const detail::check_options copts = check_options_of(options);
  std::vector<outcome> files(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto& o = files[i];
    o.file.name = inputs[i].name;
    o.file.full_path = inputs[i].full_path;
    o.checked = check_input(inputs[i], o.file.size, copts);
    o.file.id = o.checked.id;
  }
  auto passed = [](const outcome& o) { return !o.checked.error && !o.late_error; };

  // Stage 3: duplicate ids, both types together.
  std::unordered_map<std::string, int> id_count;
  for (const auto& o : files) {
    if (passed(o)) {
      ++id_count[o.checked.id];
    }
  }
  for (auto& o : files) {
    if (passed(o) && id_count[o.checked.id] > 1) {
      o.late_error = id_error(o, "duplicate emote id: " + o.checked.id);
    }
  }

  // Stage 4: resolution set and Sequences in ascending id order.
  std::unordered_map<std::string, std::shared_ptr<const animation>> resolution_set;
  std::vector<outcome*> sequences;
  for (auto& o : files) {
    if (!passed(o)) {
      continue;
    }
    if (o.checked.kind == emote_kind::animation) {
      if (!is_disabled(options, o.checked.id)) {
        resolution_set.emplace(o.checked.id, o.checked.anim);
      }
    } else {
      sequences.push_back(&o);
    }
  }
  std::sort(sequences.begin(), sequences.end(),
            [](const outcome* a, const outcome* b) { return a->checked.id < b->checked.id; });
  const detail::animation_lookup lookup =
      [&resolution_set](std::string_view id) -> std::shared_ptr<const animation> {
    const auto it = resolution_set.find(std::string(id));
    return it == resolution_set.end() ? nullptr : it->second;
  };
  std::vector<std::string_view> known_ids; // for "did you mean" on an unknown one
  known_ids.reserve(resolution_set.size());
  for (const auto& [id, a] : resolution_set) {
    known_ids.push_back(id);
  }
  std::sort(known_ids.begin(), known_ids.end());
  for (auto* o : sequences) {
    if (auto err = detail::resolve_sequence(o->checked, lookup, known_ids)) {
      o->late_error = std::move(err);
    }
  }

  // Stage 5: registry, ascending id, capped.
  std::vector<outcome*> survivors;
  for (auto& o : files) {
    if (passed(o)) {
      survivors.push_back(&o);
    }
  }
  std::sort(survivors.begin(), survivors.end(),
            [](const outcome* a, const outcome* b) { return a->checked.id < b->checked.id; });
  std::vector<catalog_entry> entries;
  for (std::size_t i = 0; i < survivors.size(); ++i) {
    auto& o = *survivors[i];
    if (i >= options.registry_limit) {
      o.late_error = id_error(o, "emote registry is full (" +
                                     std::to_string(options.registry_limit) + " emotes)");
      continue;
    }
    o.file.registered = true;
    entries.push_back(entry_for(o.checked, options));
  }

  core::diagnostics diags = std::move(extra);
  std::vector<source_file> sources;
  sources.reserve(files.size());
  for (const auto& o : files) {
    append_diagnostics(o, diags);
    sources.push_back(o.file);
  }
  return std::make_shared<const catalog>(std::move(entries), std::move(sources), std::move(diags));
}

std::string ascii_lower(std::string s) {
  for (auto& c : s) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return s;
}

bool json_name(const fs::path& p) {
  const auto n = p.filename().string();
  return n.size() >= 5 && ascii_lower(n.substr(n.size() - 5)) == ".json";
}

// A hidden entry (a name starting with '.'): Kubernetes keeps a ConfigMap's files in a hidden
// timestamped folder and its `..data` link beside the visible links (formats.md §1.1 stage 1).
bool hidden_name(const fs::path& p) {
  const auto n = p.filename().native();
  return !n.empty() && n.front() == '.';
}

// A file reached again (through a symlink to a file already found) is read once, under its
// first name.
bool first_time(std::set<fs::path>& real_paths, const std::string& full_path) {
  std::error_code ec;
  const fs::path r = fs::canonical(full_path, ec);
  return ec || real_paths.insert(r).second;
}

} // namespace

std::vector<discovered_file> discover_directory(const std::filesystem::path& root) {
  std::vector<discovered_file> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  const fs::recursive_directory_iterator end;
  while (!ec && it != end) {
    const auto& entry = *it;
    std::error_code fec;
    if (hidden_name(entry.path())) {
      it.disable_recursion_pending(); // a hidden folder is not entered
    } else if (entry.is_regular_file(fec) && json_name(entry.path())) {
      found.push_back(
          {entry.path().lexically_relative(root).generic_string(), entry.path().string()});
    }
    it.increment(ec);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    const auto la = ascii_lower(a.name);
    const auto lb = ascii_lower(b.name);
    return la != lb ? la < lb : a.name < b.name;
  });
  std::set<fs::path> real_paths;
  std::erase_if(found, [&real_paths](const discovered_file& f) {
    return !first_time(real_paths, f.full_path);
  });
  return found;
}

std::shared_ptr<const catalog> load_paths(std::span<const std::filesystem::path> roots,
                                          const load_options& options) {
  std::vector<input_file> inputs;
  core::diagnostics extra;
  const bool prefix = roots.size() > 1;
  std::set<fs::path> real_paths; // across the roots
  for (const auto& root : roots) {
    std::error_code ec;
    std::string shown = root.generic_string();
    while (shown.size() > 1 && shown.back() == '/') {
      shown.pop_back();
    }
    if (fs::is_directory(root, ec)) {
      for (auto& f : discover_directory(root)) {
        if (!first_time(real_paths, f.full_path)) {
          continue;
        }
        input_file in;
        in.name = prefix ? shown + "/" + f.name : std::move(f.name);
        in.full_path = std::move(f.full_path);
        inputs.push_back(std::move(in));
      }
    } else if (fs::exists(root, ec)) {
      if (!first_time(real_paths, root.string())) {
        continue;
      }
      input_file in;
      in.name = shown;
      in.full_path = root.string();
      inputs.push_back(std::move(in));
    } else {
      extra.push_back(file_error(
          shown,
          read_failure(ec ? ec : std::make_error_code(std::errc::no_such_file_or_directory))));
    }
  }
  return run_pipeline(inputs, options, std::move(extra));
}

std::shared_ptr<const catalog> load_directory(const std::filesystem::path& root,
                                              const load_options& options) {
  return load_paths(std::span<const std::filesystem::path>(&root, 1), options);
}

std::shared_ptr<const catalog> load_files(std::vector<memory_file> files,
                                          const load_options& options) {
  std::vector<input_file> inputs;
  inputs.reserve(files.size());
  for (auto& f : files) {
    input_file in;
    in.name = std::move(f.name);
    in.in_memory = true;
    in.bytes = std::move(f.bytes);
    inputs.push_back(std::move(in));
  }
  return run_pipeline(inputs, options, {});
}

register_result register_document(const catalog& base, std::string_view document,
                                  const load_options& options, std::string_view name) {
  register_result result;
  input_file in;
  in.name.assign(name);
  in.in_memory = true;
  in.bytes.assign(document);
  outcome o;
  o.file.name = in.name;
  o.checked = check_input(in, o.file.size, check_options_of(options));
  o.file.id = o.checked.id;
  if (!o.checked.error) {
    if (base.find(o.checked.id) != nullptr) {
      o.late_error = id_error(o, "duplicate emote id: " + o.checked.id);
    } else if (o.checked.kind == emote_kind::sequence) {
      const detail::animation_lookup lookup =
          [&base](std::string_view id) -> std::shared_ptr<const animation> {
        const auto* e = base.find(id);
        if (e == nullptr || e->kind != emote_kind::animation || e->disabled) {
          return nullptr;
        }
        return e->animation;
      };
      std::vector<std::string_view> known_ids; // for "did you mean" on an unknown one
      for (const auto& e : base.entries()) {
        if (e.kind == emote_kind::animation && !e.disabled) {
          known_ids.push_back(e.id);
        }
      }
      std::sort(known_ids.begin(), known_ids.end());
      o.late_error = detail::resolve_sequence(o.checked, lookup, known_ids);
    }
    if (!o.late_error && base.size() >= options.registry_limit) {
      o.late_error = id_error(o, "emote registry is full (" +
                                     std::to_string(options.registry_limit) + " emotes)");
    }
  }
  append_diagnostics(o, result.diagnostics);
  result.id = o.checked.id;
  if (o.checked.error || o.late_error) {
    return result;
  }
  o.file.registered = true;
  auto entries = base.entries();
  auto entry = entry_for(o.checked, options);
  entry.runtime = true;
  entries.push_back(std::move(entry));
  auto files = base.files();
  files.push_back(o.file);
  auto diags = base.diagnostics();
  diags.insert(diags.end(), result.diagnostics.begin(), result.diagnostics.end());
  result.updated =
      std::make_shared<const catalog>(std::move(entries), std::move(files), std::move(diags));
  return result;
}

std::shared_ptr<const catalog> unregister(const catalog& base, std::string_view id) {
  std::vector<catalog_entry> entries;
  entries.reserve(base.entries().size());
  for (const auto& e : base.entries()) {
    if (e.id != id) {
      entries.push_back(e);
    }
  }
  auto files = base.files();
  for (auto& f : files) {
    if (f.id == id) {
      f.registered = false;
    }
  }
  return std::make_shared<const catalog>(std::move(entries), std::move(files), base.diagnostics());
}

} // namespace emote::content
