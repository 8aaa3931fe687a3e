// formats.md §1 (pipeline, dialect, diagnostics) and §6 (skin regions), plus robustness.
#include "support.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace content_test;
namespace fs = std::filesystem;

namespace {

class temp_dir {
public:
  temp_dir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("emote-sim-content-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  void write(const std::string& rel, const std::string& bytes) const {
    const auto p = path_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
  }
  [[nodiscard]] const fs::path& path() const { return path_; }

private:
  fs::path path_;
};

std::vector<std::string> names(const catalog& c) {
  std::vector<std::string> n;
  for (const auto& f : c.files()) {
    n.push_back(f.name);
  }
  return n;
}

// An item node bound to the body at the given order and local Y scale.
std::string body_node(const std::string& part, int order, double y_scale,
                      const std::string& space = "initiator") {
  return R"({"type":"item_display","space":")" + space +
         R"(","item_stack_snbt":"{id:\"minecraft:player_head\"}","item_display":"head","skin":{"participant":")" +
         space + R"(","part":")" + part + R"(","order":)" + std::to_string(order) +
         R"(},"transform":{"position":[0,0,0],"rotation":[0,0,0],"scale":[1,)" +
         std::to_string(y_scale) + R"(,1]}})";
}

skin_layout layout_of(const std::vector<std::pair<int, double>>& groups,
                      const std::string& part = "body", std::vector<std::string>* w = nullptr) {
  auto d = anim("demo:skin", 1);
  std::string nodes = "{";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i > 0) {
      nodes += ",";
    }
    nodes += "\"n" + std::to_string(i) + "\":" + body_node(part, groups[i].first, groups[i].second);
  }
  nodes += "}";
  d.set("nodes", nodes);
  const auto c = load(d);
  accepted(*c);
  if (w != nullptr) {
    *w = warnings(*c);
  }
  return c->entries().at(0).animation->skin;
}

std::vector<std::pair<int, int>> rows(const skin_layout& l) {
  std::vector<std::pair<int, int>> r;
  for (const auto& x : l) {
    r.emplace_back(x.start, x.end);
  }
  return r;
}

using row_list = std::vector<std::pair<int, int>>;

} // namespace

TEST_CASE("discovery: .json files, recursive, ordered by lower-cased path") {
  temp_dir dir;
  dir.write("B.json", anim("x:b", 1).text());
  dir.write("a.JSON", anim("x:a", 1).text());
  dir.write("sub/c.json", anim("x:c", 1).text());
  dir.write("Z/x.Json", anim("x:z", 1).text());
  dir.write("A.json", anim("x:aa", 1).text());
  dir.write("notes.txt", "not json");
  dir.write("json", "no extension");
  const auto c = load_directory(dir.path());
  accepted(*c);
  CHECK(names(*c) ==
        std::vector<std::string>{"A.json", "a.JSON", "B.json", "sub/c.json", "Z/x.Json"});
  CHECK(c->size() == 5);
  CHECK(c->files()[0].full_path.find("A.json") != std::string::npos);
  CHECK(c->files()[0].registered);
}

TEST_CASE("discovery: directory symlinks are not followed") {
  temp_dir dir;
  temp_dir other;
  other.write("hidden.json", anim("x:hidden", 1).text());
  dir.write("seen.json", anim("x:seen", 1).text());
  std::error_code ec;
  fs::create_directory_symlink(other.path(), dir.path() / "link", ec);
  REQUIRE_FALSE(ec);
  const auto c = load_directory(dir.path());
  CHECK(names(*c) == std::vector<std::string>{"seen.json"});
}

TEST_CASE("discovery: a Kubernetes ConfigMap mount reads each file once") {
  // kubelet's layout: the files in a hidden timestamped folder, `..data` linking to it, and a
  // visible link per file through `..data`.
  temp_dir dir;
  const std::string stamp = "..2026_12_04_10_00_00.123456789";
  dir.write(stamp + "/wave.json", anim("k8s:wave", 1).text());
  dir.write(stamp + "/sit.json", anim("k8s:sit", 1).text());
  std::error_code ec;
  fs::create_directory_symlink(stamp, dir.path() / "..data", ec);
  REQUIRE_FALSE(ec);
  for (const char* f : {"wave.json", "sit.json"}) {
    fs::create_symlink(fs::path("..data") / f, dir.path() / f, ec);
    REQUIRE_FALSE(ec);
  }
  // A hidden file at the top is skipped too, and a second visible link to a file already found
  // is read once, under its first name.
  dir.write(".editor-backup.json", anim("k8s:backup", 1).text());
  fs::create_symlink("sit.json", dir.path() / "zz-sit-again.json", ec);
  REQUIRE_FALSE(ec);
  const auto c = load_directory(dir.path());
  INFO(dump(*c));
  accepted(*c);
  CHECK(names(*c) == std::vector<std::string>{"sit.json", "wave.json"});
  CHECK(c->size() == 2);
  CHECK(c->error_count() == 0);
  // Several roots naming the same files load them once as well.
  const std::vector<fs::path> twice{dir.path(), dir.path() / stamp};
  const auto t = load_paths(twice);
  CHECK(t->size() == 2);
  CHECK(t->error_count() == 0);
}

TEST_CASE("several roots load as one content set") {
  temp_dir anims;
  temp_dir seqs;
  anims.write("a.json", anim("demo:a", 1).text());
  seqs.write("s.json", seq(R"([{"emote":"demo:a"}])").text());
  const std::vector<fs::path> roots{seqs.path(), anims.path()};
  const auto c = load_paths(roots);
  accepted(*c);
  CHECK(c->size() == 2);
  CHECK(c->files()[0].name == seqs.path().generic_string() + "/s.json");
  // A missing root is reported, the rest still loads.
  const std::vector<fs::path> missing{anims.path(), anims.path() / "nope"};
  const auto m = load_paths(missing);
  CHECK(m->size() == 1);
  CHECK(m->error_count() == 1);
  // A read failure names the operating system's reason.
  REQUIRE(m->diagnostics().size() == 1);
  CHECK(m->diagnostics()[0].message == "failed to read file: No such file or directory");
  const std::vector<fs::path> device{fs::path("/dev/null")};
  const auto n = load_paths(device);
  REQUIRE(n->diagnostics().size() == 1);
  CHECK(n->diagnostics()[0].message.starts_with("failed to read file: "));
  CHECK(n->diagnostics()[0].message.size() > std::string("failed to read file: ").size());
}

TEST_CASE("size limit and invalid bytes on disk") {
  temp_dir dir;
  const std::string text = a0().text();
  dir.write("big.json", text + std::string(8388609 - text.size(), ' '));
  dir.write("ok.json", anim("x:ok", 1).text());
  std::string bad = anim("x:bad_utf8", 1).text();
  bad.replace(bad.find("\"Base\""), 6, "\"caf\xff\"");
  dir.write("utf8.json", bad);
  const auto c = load_directory(dir.path());
  INFO(dump(*c));
  CHECK(c->size() == 2);
  CHECK(c->error_count() == 1);
  const auto& d = c->diagnostics();
  REQUIRE(d.size() == 2);
  CHECK(d[0].file == "big.json");
  CHECK(d[0].path == "$");
  CHECK(d[0].message == "file must not exceed 8388608 bytes");
  CHECK(d[0].line == 1);
  CHECK(d[0].column == 1);
  CHECK(d[1].file == "utf8.json");
  CHECK(d[1].message == "invalid UTF-8 replaced");
  CHECK(c->find_animation("x:bad_utf8")->metadata.name == "caf\xef\xbf\xbd");
}

TEST_CASE("robustness: deep nesting, invalid UTF-8, huge repeat") {
  const auto deep = load(std::vector{std::string(100000, '[')});
  rejected(*deep, "$", "invalid JSON: nesting too deep");
  std::string balanced =
      "{\"type\":\"animation\",\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  rejected(*load(std::vector{balanced}), "$", "invalid JSON: nesting too deep");
  const auto garbage = load(std::vector{std::string("\xff\xfe\x00\x01", 4)});
  rejected(*garbage, "$", "invalid JSON");
  const auto huge = load(std::vector{
      seq(R"([{"emote":"demo:a","repeat":2147483647},{"wait":"1t"},{"emote":"demo:a","repeat":2147483647}])")
          .text(),
      anim("demo:a", 1).text()});
  rejected(*huge, "$.steps", "Compiled sequence is too long: example:sit");
  const auto snbt_deep =
      load(a0().set("nodes.display.entity_nbt", "\"{a:" + std::string(100000, '[') + "\""));
  rejected(*snbt_deep, "$.nodes.display.entity_nbt", "invalid compound SNBT: nesting too deep");
}

TEST_CASE("stage 2 order: size, JSON, object, type") {
  rejected(*load(std::vector{std::string()}), "$", "invalid JSON");
  rejected(*load(std::vector{std::string("[1]")}), "$", "must be an object");
  rejected(*load(std::vector{std::string("{}")}), "$.type", "is required");
  rejected(*load(std::vector{std::string("{\"type\":1}")}), "$.type", "must be a string");
  rejected(*load(std::vector{std::string("{\"type\":\"emote\"}")}), "$.type",
           "unsupported emote file type: emote");
  // Invalid JSON is located where parsing failed; end of input is after the last character.
  const auto c = load(std::vector{std::string("{\n  \"type\": \"animation\",\n  \"id\": ")});
  REQUIRE(c->diagnostics().size() == 1);
  CHECK(c->diagnostics()[0].line == 3);
  CHECK(c->diagnostics()[0].column == 9);
}

TEST_CASE("locations: values, and the enclosing '{' for absent members") {
  std::string text = a0().erase("metadata.name").text();
  const auto c = load(std::vector{text});
  rejected(*c, "$.metadata.name", "is required");
  const auto& d = c->diagnostics().back();
  CHECK(d.line == 1);
  CHECK(static_cast<std::size_t>(d.column) == text.find("{\"description\"") + 1);
  const auto e = load(a0().set("settings.cooldown", "\"soon\""));
  rejected(*e, "$.settings.cooldown", "must be a valid Minecraft time: expected float");
}

TEST_CASE("duplicate ids drop every file that shares them") {
  const auto c = load(std::vector{anim("demo:a", 1).text(), anim("demo:b", 1).text(),
                                  seq(R"([{"emote":"demo:b"}])", "demo:a").text()});
  INFO(dump(*c));
  CHECK(c->size() == 1);
  CHECK(c->find("demo:b") != nullptr);
  REQUIRE(c->error_count() == 2);
  for (const auto& d : c->diagnostics()) {
    CHECK(d.path == "$.id");
    CHECK(d.message == "duplicate emote id: demo:a");
    CHECK(d.line == 1);
  }
  CHECK(c->diagnostics()[0].file == "f0.json");
  CHECK(c->diagnostics()[1].file == "f2.json");
}

TEST_CASE("the registry holds at most 512 emotes, in ascending id order") {
  std::vector<std::string> texts;
  for (int i = 0; i < 514; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "demo:a%03d", 513 - i);
    texts.push_back(anim(id, 1).text());
  }
  const auto c = load(texts);
  CHECK(c->size() == 512);
  REQUIRE(c->error_count() == 2);
  CHECK(c->entries().front().id == "demo:a000");
  CHECK(c->entries().back().id == "demo:a511");
  const auto& d = c->diagnostics();
  CHECK(d[0].file == "f0.json"); // demo:a513
  CHECK(d[0].message == "emote registry is full (512 emotes)");
  CHECK(d[0].path == "$.id");
  CHECK(d[1].file == "f1.json"); // demo:a512
  CHECK(c->find("demo:a512") == nullptr);
  CHECK(c->find("demo:a100") != nullptr);
}

TEST_CASE("diagnostics: warnings by position, then the error; files in order") {
  std::string text = a0().set("settings.extra_b", "1").text();
  text = "// lead\n" + text;
  const auto c =
      load(std::vector{text, a0().set("id", "\"test:other\"").set("schema_version", "3").text()});
  const auto& d = c->diagnostics();
  REQUIRE(d.size() == 3);
  CHECK(d[0].message == "non-standard JSON: comment");
  CHECK(d[0].line == 1);
  CHECK(d[1].path == "$.settings.extra_b");
  CHECK(d[1].line == 2);
  CHECK(d[2].file == "f1.json");
  CHECK(d[2].path == "$.schema_version");
  CHECK(d[2].severity == emote::core::severity::error);
  // Unknown keys are not reported for a rejected file; dialect warnings are.
  const auto r =
      load(std::vector{"// x\n" + a0().set("zzz", "1").set("schema_version", "5").text()});
  CHECK(warnings(*r) == std::vector<std::string>{"$: non-standard JSON: comment"});
  CHECK(r->error_count() == 1);
}

TEST_CASE("Molang quirks are warnings at the field") {
  const auto c = load(a0().set("timeline.tracks.display.rotation[0].value[1]", "\"1 ?? 2\""));
  accepted(*c);
  const auto w = warnings(*c);
  REQUIRE(w.size() == 1);
  CHECK(w[0].rfind("$.timeline.tracks.display.rotation[0].value[1]: ?? tests truthiness: at 1:",
                   0) == 0);
  load_options quiet;
  quiet.quirk_warnings = false;
  CHECK(load(
            std::vector{
                a0().set("timeline.tracks.display.rotation[0].value[1]", "\"1 ?? 2\"").text()},
            quiet)
            ->warning_count() == 0);
}

TEST_CASE("formats.md §6 skin regions") {
  CHECK(rows(layout_of({{0, 1}, {1, 1}})) == row_list{{0, 6}, {6, 12}});
  CHECK(rows(layout_of({{0, 0.5}, {1, 1}})) == row_list{{0, 4}, {4, 12}});
  CHECK(rows(layout_of({{0, 1}, {1, 1}, {2, 1}})) == row_list{{0, 4}, {4, 8}, {8, 12}});
  CHECK(rows(layout_of({{0, 0}, {1, 1}})) == row_list{{0, 11}, {11, 12}});
  CHECK(rows(layout_of({{3, 1}, {3, 0.5}})) == row_list{{0, 12}, {0, 12}}); // one group
  CHECK(rows(layout_of({{0, 1}, {1, 1}}, "head")) == row_list{{0, 12}, {0, 12}});
  // Groups ordered by order, not by member order; scale sign ignored.
  CHECK(rows(layout_of({{5, -1}, {2, 0.5}})) == row_list{{4, 12}, {0, 4}});
  std::vector<std::pair<int, double>> many;
  for (int i = 0; i < 13; ++i) {
    many.emplace_back(i, 1);
  }
  std::vector<std::string> w;
  const auto l = layout_of(many, "left_arm", &w);
  for (const auto& r : l) {
    CHECK(r.start == 0);
    CHECK(r.end == 12);
  }
  CHECK(w ==
        std::vector<std::string>{"$.nodes: too many skin segments for initiator left_arm: 13"});
  many.pop_back();
  const auto twelve = layout_of(many, "left_arm", &w);
  CHECK(w.empty());
  CHECK(twelve.back().start == 11);
  CHECK(twelve.back().end == 12);
}

TEST_CASE("emote.register and emote.unregister") {
  const auto base = load(std::vector{anim("demo:a", 1).text()});
  auto r = register_document(*base, anim("demo:b", 2).text());
  REQUIRE(r.ok());
  CHECK(r.id == "demo:b");
  CHECK(r.updated->size() == 2);
  CHECK(r.updated->find("demo:b")->runtime);
  CHECK(base->size() == 1); // the base is untouched
  r = register_document(*r.updated,
                        seq(R"([{"emote":"demo:a"},{"emote":"demo:b"}])", "demo:s").text());
  REQUIRE(r.ok());
  CHECK(r.updated->find_sequence("demo:s")->steps_length == 3);
  // Failures carry the file's diagnostics.
  auto bad = register_document(*base, anim("demo:a", 1).text());
  CHECK_FALSE(bad.ok());
  REQUIRE(bad.diagnostics.size() == 1);
  CHECK(bad.diagnostics[0].message == "duplicate emote id: demo:a");
  bad = register_document(*base, seq(R"([{"emote":"demo:missing"}])").text());
  CHECK_FALSE(bad.ok());
  CHECK(bad.diagnostics.back().message == "Unknown or disabled animation: demo:missing");
  bad = register_document(*base, "{\"type\":");
  CHECK_FALSE(bad.ok());
  CHECK(bad.diagnostics.back().file == "<document>");
  load_options one;
  one.registry_limit = 1;
  bad = register_document(*base, anim("demo:c", 1).text(), one);
  CHECK_FALSE(bad.ok());
  CHECK(bad.diagnostics.back().message == "emote registry is full (1 emotes)");
  const auto without = unregister(*base, "demo:a");
  CHECK(without->size() == 0);
  CHECK_FALSE(without->files()[0].registered);
}

TEST_CASE("catalog lookups") {
  const auto c = load(std::vector{anim("demo:b", 3).text(), anim("demo:a", 2).text(),
                                  seq(R"([{"emote":"demo:a"}])", "demo:c").text()});
  accepted(*c);
  REQUIRE(c->size() == 3);
  CHECK(c->entries()[0].id == "demo:a");
  CHECK(c->entries()[2].id == "demo:c");
  CHECK(c->animation_count() == 2);
  CHECK(c->sequence_count() == 1);
  CHECK(c->find("demo:b")->duration() == 3);
  CHECK(c->find("demo:c")->duration() == 2);
  CHECK(c->find("demo:c")->standalone());
  CHECK(c->find_animation("demo:c") == nullptr);
  CHECK(c->find_sequence("demo:c")->animations[0].animation == c->find_animation("demo:a"));
  CHECK(c->find("demo:zz") == nullptr);
}
