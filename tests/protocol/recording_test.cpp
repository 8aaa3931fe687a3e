#include "protocol/recording.hpp"

#include "engine/core/sha256.hpp"
#include "protocol/decode.hpp"
#include "protocol/encode.hpp"
#include "protocol/recording_scenario.hpp"
#include "protocol/scenario.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace emote;
using namespace emote::protocol;
using emote::core::sha256_hex;

namespace {

std::string frame_line(api::tick_number tick) {
  api::frame f{tick,
               {api::ev_playback_started{1, "alice", "fx:slide", api::role::solo},
                api::ev_display_view{1, -0.0F, 3}}};
  frame_encoder enc;
  enc.begin(f);
  return enc.encode(full_filter())->line;
}

std::string sample_recording(bool with_frames) {
  std::string out;
  append_header(out, recording_header{"0.1.0", 1, 7, R"({"clock":"realtime","seed":7})",
                                      std::string(64, 'a'), "2024-05-01T12:00:00Z", "b1 GNU-1",
                                      std::nullopt});
  append_connect(out, 0, 1, "controller", "proxy/1.0");
  auto hello = decode_request(R"({"op":"hello","token":"secret","client":"proxy/1.0"})");
  append_msg(out, 0, 1, hello->record);
  append_msg(
      out, 0, 1,
      decode_request(R"({"op":"player.join","player":"alice","position":[0,64,0]})")->record);
  append_msg(
      out, 0, 1,
      decode_request(
          R"({"op":"player.join","player":"kept","position":[0,64,0],"keep_on_disconnect":true})")
          ->record);
  append_connect(out, 1, 2, "controller", "bot");
  append_msg(out, 1, 2,
             decode_request(R"({"op":"player.join","player":"bob","position":[1,64,0]})")->record);
  append_msg(out, 1, 2, decode_request(R"({"op":"subscribe","matrix":true})")->record);
  append_msg(out, 1, 1,
             decode_request(R"({"op":"emote.play","id":"a","player":"alice","emote":"fx:slide"})")
                 ->record);
  append_frame(out, 1, frame_line(1), with_frames ? std::optional(frame_line(1)) : std::nullopt);
  append_msg(out, 3, 2, decode_request(R"({"op":"player.leave","player":"bob"})")->record);
  append_msg(out, 3, 2,
             decode_request(R"({"op":"player.join","player":"bob","position":[2,64,0]})")->record);
  append_disconnect(out, 4, 2);
  append_frame(out, 4, frame_line(4), with_frames ? std::optional(frame_line(4)) : std::nullopt);
  append_disconnect(out, 5, 1);
  return out;
}

} // namespace

TEST_CASE("recording lines have the documented shapes") {
  std::string out;
  append_header(out, recording_header{"0.1.0", 1, 7, R"({"seed":7})", "ab", "2024-05-01T12:00:00Z",
                                      "c417296 GNU-12.2.0", std::nullopt});
  CHECK(
      out ==
      R"({"emote_sim_recording":1,"server":"0.1.0","build":"c417296 GNU-12.2.0","protocol":1,"seed":7,"config":{"seed":7},"content_digest":"ab","started":"2024-05-01T12:00:00Z"})"
      "\n");
  out.clear();
  append_connect(out, 3, 2, "observer", "nc");
  append_disconnect(out, 9, 2);
  append_msg(out, 4, 2, R"({"op":"ping"})");
  CHECK(out == "{\"tick\":3,\"conn\":2,\"connect\":{\"role\":\"observer\",\"client\":\"nc\"}}\n"
               "{\"tick\":9,\"conn\":2,\"disconnect\":{}}\n"
               "{\"tick\":4,\"conn\":2,\"msg\":{\"op\":\"ping\"}}\n");
  out.clear();
  const std::string line = "{\"op\":\"frame\",\"tick\":5,\"events\":[]}\n";
  append_frame(out, 5, line, std::nullopt);
  CHECK(out == "{\"tick\":5,\"digest\":\"" +
                   sha256_hex("{\"op\":\"frame\",\"tick\":5,\"events\":[]}") + "\"}\n");
  out.clear();
  append_frame(out, 5, line, line);
  CHECK(out.ends_with(",\"frame\":{\"op\":\"frame\",\"tick\":5,\"events\":[]}}\n"));
  // With packets (render.md §6) the digest still covers the events only.
  out.clear();
  const std::string with_packets =
      R"({"op":"frame","tick":5,"events":[],"packets":[{"to":["a"],"protocol":769,"data":"AA=="}]})";
  append_frame(out, 5, line, with_packets);
  CHECK(out == "{\"tick\":5,\"digest\":\"" +
                   sha256_hex("{\"op\":\"frame\",\"tick\":5,\"events\":[]}") +
                   "\",\"frame\":" + with_packets + "}\n");
}

TEST_CASE("a recording reads back: header, connections, messages without tokens, digests, frames") {
  for (bool with_frames : {false, true}) {
    auto rec = parse_recording(sample_recording(with_frames));
    REQUIRE_MESSAGE(rec.ok(), (rec.ok() ? "" : rec.error()));
    CHECK(rec->header.server == "0.1.0");
    CHECK(rec->header.seed == 7);
    CHECK(rec->header.config_json == R"({"clock":"realtime","seed":7})");
    CHECK(rec->header.started == "2024-05-01T12:00:00Z");
    CHECK(rec->header.build == "b1 GNU-1");
    CHECK_FALSE(rec->truncated_tail);
    CHECK(rec->last_tick == 5);
    REQUIRE(rec->entries.size() == 14);
    const auto& c = std::get<rec_connect>(rec->entries[0]);
    CHECK(c.conn == 1);
    CHECK(c.role == "controller");
    CHECK(c.client == "proxy/1.0");
    const auto& hello = std::get<rec_msg>(rec->entries[1]);
    CHECK(hello.json == R"({"op":"hello","client":"proxy/1.0"})"); // token removed
    const auto& f = std::get<rec_frame>(rec->entries[8]);
    CHECK(f.tick == 1);
    CHECK(f.digest == sha256_hex(frame_line(1).substr(0, frame_line(1).size() - 1)));
    CHECK(f.frame_line.has_value() == with_frames);
    if (with_frames) {
      CHECK(*f.frame_line + "\n" == frame_line(1)); // the exact bytes, "-0.0" included
    }
    CHECK(std::holds_alternative<rec_disconnect>(rec->entries.back()));
  }
}

TEST_CASE("a truncated last line is ignored; other damage is an error with its line") {
  const std::string full = sample_recording(true);
  // Cut inside the last line (a crash while writing).
  const std::string cut = full.substr(0, full.size() - 10);
  auto rec = parse_recording(cut);
  REQUIRE(rec.ok());
  CHECK(rec->truncated_tail);
  CHECK(rec->entries.size() == 13);
  // Every prefix is readable.
  for (std::size_t n = full.find('\n') + 1; n < full.size(); n += 7) {
    CHECK_MESSAGE(parse_recording(std::string_view(full).substr(0, n)).ok(), n);
  }
  // A complete last line without its newline still counts.
  auto no_newline = parse_recording(full.substr(0, full.size() - 1));
  REQUIRE(no_newline.ok());
  CHECK(no_newline->entries.size() == 14);

  std::string broken = full;
  broken.insert(broken.find('\n') + 1, "{oops\n");
  // Damage after the header (protocol.md §8): what precedes it is kept, the line is named.
  auto bad = parse_recording(broken);
  REQUIRE(bad.ok());
  CHECK(bad->damage.starts_with("2:2: invalid JSON at offset 1"));
  CHECK(bad->entries.empty());
  // A flipped byte in the middle: the entries before the damaged line's last tick remain.
  std::string flipped = full;
  const auto play = flipped.find(R"({"tick":3,"conn":2,"msg")");
  REQUIRE(play != std::string::npos);
  flipped[play + 1] = '#'; // {#tick":3,...
  const std::size_t flipped_line =
      static_cast<std::size_t>(std::count(full.begin(), full.begin() + play, '\n')) + 1;
  auto part = parse_recording(flipped);
  REQUIRE(part.ok());
  CHECK(part->damage.starts_with(std::to_string(flipped_line) + ":2: invalid JSON"));
  CHECK(part->last_tick == 0); // tick 1 may be incomplete: 0 is the last whole tick
  CHECK(part->entries.size() == 4);
  // A missing header is an error naming line 1.
  CHECK(parse_recording(full.substr(full.find('\n') + 1))
            .error()
            .starts_with("line 1: not an emote-sim recording"));

  CHECK(parse_recording("").error() == "empty recording (no header line)");
  CHECK(
      parse_recording("{\"tick\":0}\n").error().starts_with("line 1: not an emote-sim recording"));
  std::string back = full + "{\"tick\":2,\"conn\":1,\"disconnect\":{}}\n";
  CHECK(parse_recording(back)->damage == "16:1: tick 2 goes back in time");
  std::string tampered = sample_recording(true);
  const auto at = tampered.find("\"reason\"") != std::string::npos
                      ? tampered.find("\"reason\"")
                      : tampered.find("\"role\":\"solo\"");
  tampered.replace(at, 13, "\"role\":\"oops\"");
  CHECK(parse_recording(tampered)->damage.ends_with("the frame does not match its digest"));
}

TEST_CASE("record-to-scenario: one script, connection ops dropped, disconnects become leaves") {
  auto rec = parse_recording(sample_recording(false));
  REQUIRE(rec.ok());
  auto text = recording_to_scenario(*rec, scenario_conversion{"", {"emotes"}, "[]"});
  REQUIRE(text.ok());
  auto s = parse_scenario(*text, "/tmp/rec/case.json");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error()));
  CHECK(s->name == "recorded 2024-05-01T12:00:00Z");
  CHECK(s->seed == 7);
  CHECK(s->ticks == 6);
  CHECK(s->emotes[0] == std::filesystem::path("/tmp/rec/emotes"));
  REQUIRE(s->script.size() == 8);
  const std::pair<std::int64_t, const char*> expected[] = {
      {0, R"({"op":"player.join","player":"alice","position":[0,64,0]})"},
      {0, R"({"op":"player.join","player":"kept","position":[0,64,0],"keep_on_disconnect":true})"},
      {1, R"({"op":"player.join","player":"bob","position":[1,64,0]})"},
      {1, R"({"op":"emote.play","id":"1/a","player":"alice","emote":"fx:slide"})"},
      {3, R"({"op":"player.leave","player":"bob"})"},
      {3, R"({"op":"player.join","player":"bob","position":[2,64,0]})"},
      {4, R"({"op":"player.leave","player":"bob"})"},   // conn 2 closed
      {5, R"({"op":"player.leave","player":"alice"})"}, // conn 1 closed; "kept" stays
  };
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    CHECK(s->script[i].tick == expected[i].first);
    CHECK(s->script[i].line == expected[i].second);
  }
}

TEST_CASE("record-to-scenario: ids are unique across connections and map to their replies") {
  std::string text;
  append_header(
      text, recording_header{
                "0.1.0", 1, 0, "{}", std::string(64, 'a'), "2024-05-01T12:00:00Z", "b1 GNU-1", {}});
  append_connect(text, 0, 1, "controller", "a");
  append_connect(text, 0, 2, "controller", "b");
  auto msg = [&](std::int64_t tick, std::int64_t conn, const char* line) {
    append_msg(text, tick, conn, decode_request(line)->record);
  };
  msg(0, 1, R"({"op":"player.join","id":1,"player":"alice","position":[0,64,0]})");
  append_reply(text, 0, 1, R"({"op":"reply","id":1,"tick":0,"ok":true})");
  msg(0, 2, R"({"op":"player.join","id":1,"player":"bob","position":[1,64,0]})");
  append_reply(text, 0, 2, R"({"op":"reply","id":1,"tick":0,"ok":true})");
  msg(1, 2, R"({"op":"emote.play","id":1,"player":"bob","emote":"x:nope"})"); // id reused
  append_reply(text, 1, 2,
               R"({"op":"reply","id":1,"tick":1,"ok":false,"error":{"code":"unknown_emote"}})");
  msg(1, 1, R"({"op":"emote.play","player":"carol","emote":"x:a"})"); // no id, refused
  append_reply(text, 1, 1,
               R"({"op":"reply","tick":1,"ok":false,"error":{"code":"unknown_player"}})");
  msg(1, 1, R"({"op":"emote.stop","player":"alice"})"); // no id, accepted: no reply
  msg(2, 2, R"({"op":"ping","id":"1/1"})"); // a string id that looks like a remapped one
  append_reply(text, 2, 2, R"({"op":"reply","id":"1/1","tick":2,"ok":true})");
  append_disconnect(text, 3, 2);
  auto rec = parse_recording(text);
  REQUIRE_MESSAGE(rec.ok(), (rec.ok() ? "" : rec.error()));
  auto c = convert_recording(*rec, scenario_conversion{"ids", {}, "[]"});
  REQUIRE(c.ok());
  const char* lines[] = {
      R"({"op":"player.join","id":"1/1","player":"alice","position":[0,64,0]})",
      R"({"op":"player.join","id":"2/1","player":"bob","position":[1,64,0]})",
      R"({"op":"emote.play","id":"2/1~2","player":"bob","emote":"x:nope"})",
      R"({"op":"emote.play","id":"1/~2","player":"carol","emote":"x:a"})",
      R"({"op":"emote.stop","player":"alice"})",
      R"({"op":"ping","id":"2/1/1"})",
      R"({"op":"player.leave","player":"bob"})",
  };
  REQUIRE(c->text.script.size() == std::size(lines));
  for (std::size_t i = 0; i < std::size(lines); ++i) {
    CHECK(c->text.script[i].line == lines[i]);
  }
  REQUIRE(c->origins.size() == std::size(lines));
  CHECK(c->origins[0].joins == "alice");
  CHECK(c->origins[6].leaves == "bob");
  CHECK(c->origins[6].source == rec->entries.size() - 1);  // the disconnect
  CHECK(c->origins[1].source + 2 == c->origins[2].source); // its reply between them
  const std::pair<const char*, const char*> replies[] = {{"1/1", R"("ok":true)"},
                                                         {"2/1", R"("ok":true)"},
                                                         {"2/1~2", "unknown_emote"},
                                                         {"1/~2", "unknown_player"},
                                                         {"2/1/1", R"("ok":true)"}};
  REQUIRE(c->replies.size() == std::size(replies));
  for (std::size_t i = 0; i < std::size(replies); ++i) {
    CHECK(c->replies[i].id == replies[i].first);
    CHECK(c->replies[i].json.find(replies[i].second) != std::string::npos);
  }
  // Every id in the scenario is distinct.
  auto s = parse_scenario(write_scenario(c->text), "/tmp/ids.json");
  REQUIRE(s.ok());
}

TEST_CASE("content digests follow discovery order and cover paths and bytes") {
  const std::string ab = content_digest_of({{"b.json", "2"}, {"A.json", "1"}});
  CHECK(ab == content_digest_of({{"A.json", "1"}, {"b.json", "2"}})); // sorted by lower-cased path
  CHECK(ab != content_digest_of({{"A.json", "2"}, {"b.json", "1"}}));
  CHECK(content_digest_of({{"ab", "c"}}) != content_digest_of({{"a", "bc"}}));
  // The layout: path, 0, size (8 bytes big-endian), bytes.
  std::string layout = std::string("x.json") + '\0' + std::string(7, '\0') + '\x02' + "{}";
  CHECK(content_digest_of({{"x.json", "{}"}}) == sha256_hex(layout));

  const auto dir = std::filesystem::temp_directory_path() / "emote_digest_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "Sub");
  std::ofstream(dir / "b.json") << "{\"b\":1}";
  std::ofstream(dir / "Sub" / "a.JSON") << "{\"a\":1}";
  std::ofstream(dir / "notes.txt") << "ignored";
  auto d = content_digest({dir});
  REQUIRE(d.ok());
  CHECK(*d == content_digest_of({{"Sub/a.JSON", "{\"a\":1}"}, {"b.json", "{\"b\":1}"}}));
  auto two = content_digest({dir, dir / "Sub"});
  REQUIRE(two.ok());
  CHECK(*two ==
        content_digest_of(
            {{"0/Sub/a.JSON", "{\"a\":1}"}, {"0/b.json", "{\"b\":1}"}, {"1/a.JSON", "{\"a\":1}"}}));
  CHECK_FALSE(content_digest({dir / "missing"}).ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("recordings are read from files") {
  const auto file = std::filesystem::temp_directory_path() / "emote_recording_test.ndjson";
  std::ofstream(file, std::ios::binary) << sample_recording(true);
  auto rec = read_recording(file);
  REQUIRE(rec.ok());
  CHECK(rec->entries.size() == 14);
  std::filesystem::remove(file);
  CHECK_FALSE(read_recording(file).ok());
}

TEST_CASE("a recorded frame with packets reads back: the digest covers its events") {
  std::string out;
  append_header(
      out,
      recording_header{
          "0.1.0", 1, 7, "{}", std::string(64, 'a'), "2024-05-01T12:00:00Z", {}, std::nullopt});
  const std::string events = R"({"op":"frame","tick":2,"events":[]})";
  const std::string with_packets =
      R"({"op":"frame","tick":2,"events":[],"packets":[{"to":["a"],"protocol":769,"data":"AA=="}]})";
  append_frame(out, 2, events, with_packets);
  auto rec = parse_recording(out);
  REQUIRE_MESSAGE(rec.ok(), (rec.ok() ? "" : rec.error()));
  const auto* f = std::get_if<rec_frame>(&rec->entries.back());
  REQUIRE(f != nullptr);
  CHECK(f->digest == sha256_hex(events));
  CHECK(*f->frame_line == with_packets);
  // A packets member whose events were changed no longer matches.
  std::string tampered = out;
  tampered.replace(tampered.find(R"("events":[],"packets")"), 11, R"("events":[1])");
  CHECK(parse_recording(tampered)->damage.ends_with("the frame does not match its digest"));
}

TEST_CASE("state digests and dumps read back by tick; a malformed one names its line") {
  std::string text;
  recording_header h;
  h.server = "0.1.0";
  h.content_digest = std::string(64, 'a');
  h.started = "2026-01-01T00:00:00Z";
  append_header(text, h);
  append_state(text, 0, "00000000000000ff");
  append_state_dump(text, 0, R"({"tick":1})");
  append_frame(text, 1, R"({"op":"frame","tick":1,"events":[]})", std::nullopt,
               std::string_view("0123456789abcdef"));
  CHECK(text.find(R"({"tick":0,"state":"00000000000000ff"})"
                  "\n"
                  R"({"tick":0,"state_dump":{"tick":1}})") != std::string::npos);
  const auto r = parse_recording(text);
  REQUIRE(r.ok());
  CHECK(r->states.size() == 2);
  CHECK(r->states.at(0) == "00000000000000ff");
  CHECK(r->states.at(1) == "0123456789abcdef");
  CHECK(r->state_dumps.at(0) == R"({"tick":1})");
  // The frame line still reads as a frame.
  CHECK(r->entries.size() == 1);
  // Damage after the header is named (protocol.md §8), the part before it kept.
  const auto bad = parse_recording(text + R"({"tick":2,"state":"XYZ"})" + "\n");
  REQUIRE(bad.ok());
  CHECK(bad->damage.starts_with("5:1: state must be"));
  const auto bad_dump = parse_recording(text + R"({"tick":2,"state_dump":3})" + "\n");
  REQUIRE(bad_dump.ok());
  CHECK(bad_dump->damage == "5:1: state_dump must be an object");
}

TEST_CASE("the header lists each content file's digest; a difference names the files "
          "(protocol.md §8)") {
  const content_manifest before =
      content_manifest_of({{"b.json", "2"}, {"A.json", "1"}, {"c/old.json", "3"}, {"Z.json", "4"}});
  CHECK(
      before.digest ==
      content_digest_of({{"A.json", "1"}, {"b.json", "2"}, {"c/old.json", "3"}, {"Z.json", "4"}}));
  // Discovery order, each file's bytes digested.
  REQUIRE(before.files.size() == 4);
  CHECK(before.files[0] == content_file_digest{"A.json", sha256_hex("1")});
  CHECK(before.files[1].path == "b.json");
  CHECK(before.files[2].path == "c/old.json");
  CHECK(before.files[3].path == "Z.json");

  // Written after content_digest and read back in the same order.
  recording_header h;
  h.server = "0.1.0";
  h.content_digest = before.digest;
  h.content_files = before.files;
  h.started = "2026-01-01T00:00:00Z";
  std::string text;
  append_header(text, h);
  CHECK(text.find(R"("content_files":{"A.json":")" + sha256_hex("1") + R"(","b.json":)") !=
        std::string::npos);
  auto r = parse_recording(text);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error()));
  REQUIRE(r->header.content_files.has_value());
  CHECK(*r->header.content_files == before.files);
  // An older header without the field reads as "not listed"; a malformed one is a header error.
  h.content_files.reset();
  text.clear();
  append_header(text, h);
  CHECK(text.find("content_files") == std::string::npos);
  CHECK_FALSE(parse_recording(text)->header.content_files.has_value());
  std::string bad = text;
  bad.replace(bad.find(R"(,"started")"), 0, R"(,"content_files":["a.json"])");
  CHECK(parse_recording(bad).error() == "line 1: header content_files must be an object");

  // b changed, c/old removed, d added, the others equal.
  const content_manifest after =
      content_manifest_of({{"A.json", "1"}, {"b.json", "2!"}, {"d.json", "5"}, {"Z.json", "4"}});
  CHECK(describe_content_change(before.files, after.files) ==
        "  changed: b.json\n  removed: c/old.json\n  added: d.json\n");
  CHECK(describe_content_change(after.files, before.files) ==
        "  changed: b.json\n  added: c/old.json\n  removed: d.json\n");
  CHECK(describe_content_change(before.files, before.files).empty());
  CHECK(describe_content_change(before.files, after.files, 1) ==
        "  changed: b.json\n  ... and 2 more\n");
}

TEST_CASE("describe_config_change: flattened keys that differ, absent on either side, run-only "
          "keys left out") {
  const std::string a = R"({"seed":1,"tps":20,"limits":{"max_players":10,"tps":1,"x":{}},"a":[1]})";
  const std::string b = R"({"seed":2,"tps":40,"limits":{"max_players":10,"tps":2,"y":true}})";
  // "tps" is run-only at the top level only; limits.x is an empty object, kept as {}.
  CHECK(describe_config_change(a, b) == "  seed: A 1, B 2\n"
                                        "  limits.tps: A 1, B 2\n"
                                        "  limits.x: A {}, B (absent)\n"
                                        "  a: A [1], B (absent)\n"
                                        "  limits.y: A (absent), B true\n");
  CHECK(describe_config_change(a, a).empty());
  CHECK(describe_config_change("{", "{}") == "  A: {\n  B: {}\n");
}
