#include "server/host/content_loader.hpp"

#include "engine/content/loader.hpp"
#include "engine/content/model.hpp"
#include "engine/json/writer.hpp"

#include <spdlog/spdlog.h>

#include <system_error>

namespace emote::server {
namespace {

using json::json_out;

void ticks_of(json_out& o, content::ticks t) {
  o.i64(t.count());
}

void candidates(json_out& o, const content::step& s) {
  o.ch('[');
  for (std::size_t i = 0; i < s.candidates.size(); ++i) {
    if (i != 0) {
      o.ch(',');
    }
    o.str(s.candidates[i].id);
    if (s.weighted) {
      o.ch(',');
      o.i64(s.candidates[i].weight);
    }
  }
  o.ch(']');
}

// A step list as the file writes it, with times in ticks.
void steps(json_out& o, const std::vector<content::step>& list) {
  o.ch('[');
  for (std::size_t i = 0; i < list.size(); ++i) {
    const content::step& s = list[i];
    if (i != 0) {
      o.ch(',');
    }
    if (s.kind == content::step_kind::wait) {
      o.raw(R"({"wait":)");
      ticks_of(o, s.wait);
      o.ch('}');
      continue;
    }
    o.raw(R"({"emote":)");
    candidates(o, s);
    o.raw(R"(,"repeat":)");
    o.i64(s.repeat);
    o.raw(R"(,"transition":)");
    ticks_of(o, s.transition);
    o.ch('}');
  }
  o.ch(']');
}

std::string nodes_json(const std::vector<content::node>& nodes) {
  std::string out;
  json_out o(out);
  o.ch('[');
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const content::node& n = nodes[i];
    if (i != 0) {
      o.ch(',');
    }
    o.raw(R"({"id":)");
    o.str(n.id);
    o.raw(R"(,"type":)");
    o.str(content::name(n.type));
    o.raw(R"(,"parent":)");
    if (n.parent >= 0 && static_cast<std::size_t>(n.parent) < nodes.size()) {
      o.str(nodes[static_cast<std::size_t>(n.parent)].id);
    } else {
      o.null();
    }
    o.raw(R"(,"space":)");
    o.str(content::name(n.space));
    if (n.skin) {
      o.raw(R"(,"skin":{"participant":)");
      o.str(content::name(n.skin->participant));
      o.raw(R"(,"part":)");
      o.str(content::name(n.skin->part));
      o.raw(R"(,"order":)");
      o.i64(n.skin->order);
      o.ch('}');
    }
    o.ch('}');
  }
  o.ch(']');
  return out;
}

std::string metadata_json(const content::metadata& m) {
  std::string out;
  json_out o(out);
  o.raw(R"({"name":)");
  o.str(m.name);
  o.raw(R"(,"description":)");
  o.str(m.description);
  for (const auto& [key, value] : m.extra) {
    o.ch(',');
    o.str(key);
    o.ch(':');
    o.raw(value); // compact JSON text from the loader
  }
  o.ch('}');
  return out;
}

std::string sequence_steps_json(const content::sequence& s) {
  std::string out;
  json_out o(out);
  if (!s.partner) {
    steps(o, s.steps);
    return out;
  }
  const content::partner_step& p = *s.partner;
  o.raw(R"([{"await_partner":{"emote":)");
  o.str(p.offer_id);
  o.raw(R"(,"timeout":)");
  ticks_of(o, p.timeout);
  o.raw(R"(},"matched":)");
  steps(o, p.matched);
  o.raw(R"(,"timeout":)");
  steps(o, p.timeout_steps);
  o.raw("}]");
  return out;
}

protocol::emote_summary summary_of(const content::catalog_entry& e) {
  protocol::emote_summary s;
  s.id = e.id;
  s.type = content::name(e.kind);
  s.name = e.meta().name;
  s.description = e.meta().description;
  s.standalone = e.standalone();
  s.duration_ticks = e.duration();
  s.fixed_duration = e.kind == content::emote_kind::animation || e.sequence->fixed_duration;
  s.cooldown_ticks = e.cooldown().count();
  s.two_player = e.two_player();
  return s;
}

class engine_content_loader final : public content_loader {
public:
  core::result<loaded_content, std::string>
  load(const std::vector<std::filesystem::path>& roots, const std::vector<std::string>& disabled,
       const std::vector<std::string>& registered) override {
    for (const auto& r : roots) {
      std::error_code ec;
      if (!std::filesystem::is_directory(r, ec)) {
        return core::failure{r.string() + ": not a folder"};
      }
    }
    content::load_options options;
    options.disabled = disabled;
    options.quirk_warnings = false;
    loaded_content out;
    out.catalog = content::load_paths(roots, options);
    out.diagnostics = out.catalog->diagnostics();
    for (const auto& document : registered) {
      auto r = content::register_document(*out.catalog, document, options, "");
      out.diagnostics.insert(out.diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
      if (r.ok()) {
        out.catalog = std::move(r.updated);
      }
    }
    out.loaded = static_cast<std::int64_t>(out.catalog->size());
    return out;
  }

  core::result<loaded_content, core::diagnostics>
  add(const content::catalog& base, std::string_view document,
      const std::vector<std::string>& disabled) override {
    content::load_options options;
    options.disabled = disabled;
    options.quirk_warnings = false;
    auto r = content::register_document(base, document, options, "");
    if (!r.ok() || skipped_count(r.diagnostics) != 0) {
      return core::failure{std::move(r.diagnostics)};
    }
    loaded_content out;
    out.catalog = std::move(r.updated);
    out.loaded = static_cast<std::int64_t>(out.catalog->size());
    out.diagnostics = std::move(r.diagnostics);
    return out;
  }

  std::int64_t size(const content::catalog& c) const override {
    return static_cast<std::int64_t>(c.size());
  }

  std::vector<protocol::emote_summary> list(const content::catalog& c) const override {
    std::vector<protocol::emote_summary> out;
    out.reserve(c.size());
    for (const auto& e : c.entries()) {
      out.push_back(summary_of(e));
    }
    return out;
  }

  std::optional<protocol::emote_details> info(const content::catalog& c,
                                              std::string_view id) const override {
    const content::catalog_entry* e = c.find(id);
    if (e == nullptr) {
      return std::nullopt;
    }
    protocol::emote_details d;
    d.summary = summary_of(*e);
    d.metadata_json = metadata_json(e->meta());
    if (e->kind == content::emote_kind::animation) {
      d.nodes_json = nodes_json(e->animation->nodes);
    } else {
      d.nodes_json = nodes_json(e->sequence->node_union);
      d.steps_json = sequence_steps_json(*e->sequence);
    }
    return d;
  }
};

} // namespace

std::unique_ptr<content_loader> make_content_loader() {
  return std::make_unique<engine_content_loader>();
}

std::int64_t skipped_count(const core::diagnostics& d) {
  std::int64_t n = 0;
  for (const auto& x : d) {
    n += x.severity == core::severity::error ? 1 : 0;
  }
  return n;
}

void log_skipped_files(std::string_view when, const core::diagnostics& d) {
  for (const auto& x : d) {
    if (x.severity == core::severity::error) {
      spdlog::warn("{}: skipped {}", when, core::format_diagnostic(x));
    }
  }
}

} // namespace emote::server
