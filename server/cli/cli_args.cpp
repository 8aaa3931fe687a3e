#include "server/cli/cli_args.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

namespace emote::server {

using core::failure;

namespace {

constexpr std::size_t help_width = 100;

// `--name VALUE` as shown in usage lines and option lists.
std::string option_form(const cli_option& o) {
  std::string s = "--" + std::string(o.name);
  if (o.takes_value) {
    s += " " + std::string(o.value);
  }
  return s;
}

} // namespace

core::result<cli_args, std::string> cli_args::parse(std::span<const std::string_view> args,
                                                    std::span<const cli_option> options) {
  cli_args out;
  bool only_positional = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (only_positional || !a.starts_with("-") || a == "-") {
      out.positional_.emplace_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    if (a == "--help" || a == "-h") {
      out.help_ = true;
      continue;
    }
    if (!a.starts_with("--")) {
      return failure{"unknown option '" + std::string(a) + "'"};
    }
    std::string_view name = a.substr(2);
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); eq != std::string_view::npos) {
      inline_value = std::string(name.substr(eq + 1));
      name = name.substr(0, eq);
    }
    const cli_option* opt = nullptr;
    for (const auto& o : options) {
      if (o.name == name) {
        opt = &o;
      }
    }
    if (opt == nullptr) {
      return failure{"unknown option '--" + std::string(name) + "'"};
    }
    if (!opt->repeatable && out.has(name)) {
      return failure{"option '--" + std::string(name) + "' given twice"};
    }
    std::string value;
    if (opt->takes_value) {
      if (inline_value) {
        value = *inline_value;
      } else if (i + 1 < args.size()) {
        value = std::string(args[++i]);
      } else {
        return failure{"option '--" + std::string(name) + "' needs a value"};
      }
    } else if (inline_value) {
      return failure{"option '--" + std::string(name) + "' takes no value"};
    }
    out.ordered_.emplace_back(std::string(name), std::move(value));
  }
  return out;
}

bool cli_args::has(std::string_view name) const {
  return std::any_of(ordered_.begin(), ordered_.end(),
                     [&](const auto& kv) { return kv.first == name; });
}

std::optional<std::string> cli_args::value(std::string_view name) const {
  std::optional<std::string> out;
  for (const auto& [k, v] : ordered_) {
    if (k == name) {
      out = v;
    }
  }
  return out;
}

std::vector<std::string> cli_args::values(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : ordered_) {
    if (k == name) {
      out.push_back(v);
    }
  }
  return out;
}

std::string cli_help(const cli_command& command) {
  // The usage line, wrapped under its first option.
  const std::string head = "usage: emote-sim " + std::string(command.name);
  std::string usage = head;
  std::size_t line_start = 0;
  auto add = [&](const std::string& word) {
    if (usage.size() - line_start + 1 + word.size() > help_width) {
      usage += "\n";
      line_start = usage.size();
      usage += std::string(head.size(), ' ');
    }
    usage += " " + word;
  };
  if (!command.operands.empty()) {
    add(std::string(command.operands));
  }
  for (const auto& o : command.options) {
    add("[" + option_form(o) + "]" + (o.repeatable ? "..." : ""));
  }
  std::string out = usage + "\n";
  if (!command.description.empty()) {
    out += "\n" + std::string(command.description);
    if (!command.description.ends_with('\n')) {
      out += "\n";
    }
  }
  if (command.options.empty()) {
    return out;
  }
  std::size_t width = 0;
  for (const auto& o : command.options) {
    width = std::max(width, option_form(o).size());
  }
  out += "\n";
  for (const auto& o : command.options) {
    std::string form = option_form(o);
    form.resize(width, ' ');
    std::string help_text(o.help);
    // Defaults of configuration keys come from the table; long ones are in the sample file.
    if (!o.default_json.empty() && o.takes_value) {
      std::string_view d = o.default_json;
      if (d.size() >= 2 && d.front() == '"' && d.back() == '"') {
        d = d.substr(1, d.size() - 2);
      }
      help_text += d.empty() || d == "[]" ? std::string()
                   : d.size() > 40        ? std::string(" (default: see config/emote-sim.json)")
                                          : " (default: " + std::string(d) + ")";
    }
    std::string_view help = help_text;
    bool first = true;
    do {
      const auto nl = help.find('\n');
      const std::string_view line = help.substr(0, nl);
      out += "  " + (first ? form : std::string(width, ' ')) + "  " + std::string(line);
      while (out.ends_with(' ')) {
        out.pop_back();
      }
      out += "\n";
      first = false;
      help = nl == std::string_view::npos ? std::string_view() : help.substr(nl + 1);
    } while (!help.empty());
  }
  return out;
}

std::string cli_synopsis(const cli_command& command) {
  std::string s(command.name);
  if (!command.operands.empty()) {
    s += " " + std::string(command.operands);
  }
  if (!command.options.empty()) {
    s += " [OPTIONS]";
  }
  constexpr std::size_t column = 38;
  s.resize(std::max(column, s.size() + 2), ' ');
  return s + std::string(command.summary);
}

core::result<cli_args, int> parse_command_line(const cli_command& command,
                                               std::span<const std::string_view> args) {
  const std::string prefix = "emote-sim " + std::string(command.name) + ": ";
  const std::string see = " (see emote-sim " + std::string(command.name) + " --help)\n";
  auto parsed = cli_args::parse(args, command.options);
  if (!parsed) {
    std::cerr << prefix << parsed.error() << see;
    return failure{2};
  }
  if (parsed->help()) {
    std::cout << cli_help(command) << std::flush;
    return failure{0};
  }
  const std::size_t n = parsed->positional().size();
  if (n > command.max_operands) {
    std::cerr << prefix << "unexpected argument '" << parsed->positional()[command.max_operands]
              << "'" << see;
    return failure{2};
  }
  if (n < command.min_operands) {
    std::cerr << prefix << "expected " << command.operands << see;
    return failure{2};
  }
  return std::move(parsed).value();
}

std::vector<cli_option> config_cli_options(std::span<const std::string_view> keys) {
  std::vector<cli_option> out;
  for (const settings::config_key& k : settings::config_keys()) {
    if (!keys.empty() && std::find(keys.begin(), keys.end(), k.name) == keys.end()) {
      continue;
    }
    cli_option o;
    o.name = k.flag;
    o.takes_value = k.type != settings::config_type::boolean;
    o.repeatable = k.type == settings::config_type::string_list;
    o.value = k.value_name;
    o.help = k.help;
    o.config_key = k.name;
    o.default_json = k.default_json;
    out.push_back(o);
  }
  return out;
}

cli_option config_file_option() {
  return value_option(
      "config", "FILE",
      "the configuration file (default: EMOTE_SIM_CONFIG, else\n"
      "config/emote-sim.json when it exists); config/emote-sim.json shows every key");
}

std::filesystem::path config_file(const cli_args& args) {
  if (auto v = args.value("config")) {
    return *v;
  }
  if (const char* env = std::getenv("EMOTE_SIM_CONFIG"); env != nullptr && *env != 0) {
    return env;
  }
  const std::filesystem::path fallback = "config/emote-sim.json";
  if (std::error_code ec; std::filesystem::exists(fallback, ec)) {
    return fallback;
  }
  return {};
}

core::result<settings::server_config, std::string>
load_config(const cli_args& args, std::span<const cli_option> options) {
  const std::filesystem::path file = config_file(args);
  settings::config_loader loader;
  if (auto err = settings::add_file_and_environment(loader, file)) {
    return failure{err->text()};
  }
  // The command line is the last layer: each declared option that sets a key, in table order.
  for (const auto& o : options) {
    if (o.config_key.empty() || !args.has(o.name)) {
      continue;
    }
    const std::string source = "--" + std::string(o.name);
    // A repeatable option gives a list, one element per occurrence.
    auto err = !o.takes_value ? loader.set(o.config_key, "true", source)
               : o.repeatable ? loader.set_list(o.config_key, args.values(o.name), source)
                              : loader.set(o.config_key, *args.value(o.name), source);
    if (err) {
      return failure{err->text()};
    }
  }
  auto cfg = loader.build();
  if (!cfg) {
    return failure{cfg.error().text()};
  }
  cfg->config_file = file;
  return std::move(cfg).value();
}

int write_command_output(std::string_view command, const std::optional<std::string>& out,
                         std::string_view text) {
  if (!out) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream f(*out, std::ios::binary | std::ios::trunc);
  if (!f.write(text.data(), static_cast<std::streamsize>(text.size())) || !f.flush()) {
    std::fprintf(stderr, "%.*s: cannot write %s\n", static_cast<int>(command.size()),
                 command.data(), out->c_str());
    return 2;
  }
  return 0;
}

} // namespace emote::server
