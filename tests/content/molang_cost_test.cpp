// `check` reports every emote's worst-case Molang operations per tick and warns above the
// per-tick session budget (players.md §8.6).
#include "support.hpp"

#include "engine/content/cost.hpp"
#include "engine/content/report.hpp"
#include "engine/molang/cost.hpp"

#include <string>

using namespace content_test;
namespace content = emote::content;
namespace core = emote::core;

TEST_CASE("check reports the Molang cost per tick and warns above the threshold") {
  const auto c = load_directory(EMOTE_SIM_TEST_DATA + "/content/molang_cost");
  REQUIRE(c->error_count() == 0);
  const auto heavy = c->find(std::string_view("cost:heavy"));
  const auto light = c->find(std::string_view("cost:light"));
  REQUIRE(heavy != nullptr);
  REQUIRE(light != nullptr);
  const std::uint64_t heavy_ops = content::tick_op_bound(*heavy);
  const std::uint64_t light_ops = content::tick_op_bound(*light);
  // 200,000 iterations of a ~9-operation body, twice (a tick can end and begin a cycle).
  CHECK(heavy_ops > 2 * 200'000 * 8);
  CHECK(heavy_ops < 2 * 200'000 * 20);
  CHECK(light_ops > 0);
  CHECK(light_ops < 100);

  content::check_options options;
  options.molang_tick_ops = 250'000;
  const content::check_findings f = content::check_findings_of(*c, options);
  CHECK(f.warnings == 1);
  REQUIRE(f.diagnostics.size() == 1);
  CHECK(f.diagnostics[0].file == "heavy.json");
  CHECK(f.diagnostics[0].severity == core::severity::warning);
  CHECK(f.diagnostics[0].message ==
        "expensive Molang: cost:heavy may run " + std::to_string(heavy_ops) +
            " operations in one tick, over the per-tick budget of 250000 (players.md §8.6)");

  const std::string text = content::check_report_text(*c, options);
  CHECK(text.find("molang: cost:heavy: at most " + std::to_string(heavy_ops) +
                  " operations per tick\n") != std::string::npos);
  CHECK(text.find("molang: cost:light: at most " + std::to_string(light_ops) +
                  " operations per tick\n") != std::string::npos);
  CHECK(text.find("0 errors, 1 warnings") != std::string::npos);
  const std::string json = content::check_report_json(*c, options);
  CHECK(json.find(R"({"emote":"cost:heavy","molang_ops_per_tick":)" + std::to_string(heavy_ops) +
                  "}\n") != std::string::npos);
  CHECK(json.find(R"("warnings":1}})") != std::string::npos);

  options.molang_tick_ops = heavy_ops; // at the bound: no warning
  CHECK(content::check_findings_of(*c, options).warnings == 0);
  options.molang_tick_ops = 0; // never
  CHECK(content::check_findings_of(*c, options).warnings == 0);
}
