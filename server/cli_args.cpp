#include "server/cli_args.hpp"

#include <cstdlib>

namespace emote::server {

using core::failure;

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
  for (const auto& [k, v] : ordered_) {
    if (k == name) {
      return true;
    }
  }
  return false;
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

std::filesystem::path config_file(const cli_args& args, const std::filesystem::path& fallback) {
  if (auto v = args.value("config")) {
    return *v;
  }
  if (const char* env = std::getenv("EMOTE_SIM_CONFIG"); env != nullptr && *env != 0) {
    return env;
  }
  if (std::error_code ec; !fallback.empty() && std::filesystem::exists(fallback, ec)) {
    return fallback;
  }
  return {};
}

} // namespace emote::server
