// `emote-sim stress [--time 30s] [--instances N] [--recipients R] [--emotes DIR] [--json]`
// (protocol.md §9, players.md §8.3–8.4).
#include "server/cli_args.hpp"
#include "server/commands.hpp"
#include "server/content_loader.hpp"
#include "server/stress.hpp"

#include "engine/content/model.hpp"
#include "engine/core/memo.hpp"
#include "engine/core/time_string.hpp"
#include "protocol/config.hpp"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <string>

namespace emote::server {
namespace {

namespace fs = std::filesystem;

constexpr cli_option stress_cli[] = {
    {"time"},        {"instances"},      {"recipients"},    {"emotes"},        {"config"},
    {"json", false}, {"unpaced", false}, {"serial", false}, {"scalar", false}, {"reference", false},

};

constexpr const char* stress_help =
    R"(usage: emote-sim stress [--time 30s] [--instances N] [--recipients R] [--emotes DIR]
                        [--config FILE] [--json] [--unpaced] [--serial] [--scalar]
                        [--reference]

Plays N instances of the loaded Animations (fixed-seed assignment, start phases and grid of
docs/spec/players.md §8.3) at 20 TPS; every tick's frame is encoded once and read by R in-memory
recipients. Prints instances, peak displays, ticks sampled, MSPT avg / p95 / max, estimated
TPS, the time split (engine, encode, fan-out), traffic, a checksum of every frame byte and the
peak resident memory. Figures and what they mean: docs/guide/performance.md.

  --time T          test length: ticks (600t) or seconds (30s); default 30s
  --instances N     animation instances, 1..1000000 (default 100)
  --recipients R    in-memory recipients, 0..100000 (default 20)
  --emotes DIR      the emote folder (default: the config's `emotes`)
  --config FILE     configuration for `emotes` and `disabled` (default: EMOTE_SIM_CONFIG, else
                    config/emote-sim.json when it exists)
  --json            one JSON object instead of the text report
  --unpaced         run ticks back to back instead of on 50 ms deadlines
  --serial          read every recipient on this thread (no fan-out worker)
  --scalar          recipients read without AVX2/AVX-512 (same checksum)
  --reference       the unoptimised path: no baked poses, no memoised decompositions or
                    transform texts (same bytes and checksum, for comparison)
)";

bool parse_count(const std::string& text, std::size_t max, std::size_t& out) {
  std::size_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || p != text.data() + text.size() || v > max) {
    return false;
  }
  out = v;
  return true;
}

} // namespace

int cmd_stress(std::span<const std::string_view> argv) {
  auto parsed = cli_args::parse(argv, stress_cli);
  if (!parsed) {
    std::fprintf(stderr, "emote-sim stress: %s (see emote-sim stress --help)\n",
                 parsed.error().c_str());
    return 2;
  }
  const cli_args& args = *parsed;
  if (args.help()) {
    std::fputs(stress_help, stdout);
    return 0;
  }
  if (!args.positional().empty()) {
    std::fprintf(stderr, "emote-sim stress: unexpected argument '%s'\n",
                 args.positional()[0].c_str());
    return 2;
  }

  stress_options options;
  if (auto t = args.value("time")) {
    const auto ticks = core::parse_time(*t, 1);
    if (!ticks) {
      std::fprintf(stderr, "emote-sim stress: --time '%s': %s\n", t->c_str(),
                   std::string(core::time_error_detail(ticks.error())).c_str());
      return 2;
    }
    options.ticks = *ticks;
  }
  if (auto v = args.value("instances");
      v && (!parse_count(*v, 1000000, options.instance_config.instances) ||
            options.instance_config.instances == 0)) {
    std::fprintf(stderr, "emote-sim stress: --instances must be an integer 1..1000000\n");
    return 2;
  }
  if (auto v = args.value("recipients"); v && !parse_count(*v, 100000, options.recipients)) {
    std::fprintf(stderr, "emote-sim stress: --recipients must be an integer 0..100000\n");
    return 2;
  }
  options.paced = !args.has("unpaced");
  options.parallel = !args.has("serial");
  options.simd = !args.has("scalar");
  if (args.has("reference")) {
    options.instance_config.bake_budget = 0;
    core::set_memo_enabled(false);
  }

  // The emote folder and `disabled` come from the same configuration stack as `serve`.
  const fs::path file = config_file(args, "config/emote-sim.json");
  protocol::config_loader loader;
  if (auto err = protocol::add_file_and_environment(loader, file)) {
    std::fprintf(stderr, "emote-sim stress: %s\n", err->text().c_str());
    return 2;
  }
  if (auto v = args.value("emotes")) {
    if (auto err = loader.set("emotes", *v, "--emotes")) {
      std::fprintf(stderr, "emote-sim stress: %s\n", err->text().c_str());
      return 2;
    }
  }
  auto cfg = loader.build();
  if (!cfg) {
    std::fprintf(stderr, "emote-sim stress: %s\n", cfg.error().text().c_str());
    return 2;
  }
  auto loaded = make_content_loader()->load({cfg->emotes}, cfg->engine.disabled, {});
  if (!loaded) {
    std::fprintf(stderr, "emote-sim stress: %s\n", loaded.error().c_str());
    return 1;
  }
  if (loaded->catalog->animation_count() == 0) {
    std::fprintf(stderr, "emote-sim stress: no Animation loaded from %s\n",
                 cfg->emotes.string().c_str());
    return 1;
  }

  const stress_report report = run_stress(loaded->catalog, options);
  const std::string out =
      args.has("json") ? stress_report_json(report) : stress_report_text(report);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return report.recipients_agree ? 0 : 1;
}

} // namespace emote::server
