// Packet builders (render.md §5) byte for byte against layouts written out by hand from
// minecraft-data 3.119.0's protocol.json (packet ids, field order, serializer and entity type
// ids of 1.21.1 = 767, 1.21.4 = 769 and 26.1 = 775).

#include "render/content.hpp"
#include "render/packets.hpp"
#include "render/renderer.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace emote;
using namespace emote::render;

namespace {

std::string hex(const std::string& b) {
  static const char* digits = "0123456789abcdef";
  std::string h;
  for (unsigned char c : b) {
    h.push_back(digits[c >> 4]);
    h.push_back(digits[c & 15]);
  }
  return h;
}

const version_table& v(std::int32_t protocol) {
  const version_table* t = find_version(protocol);
  REQUIRE(t != nullptr);
  return *t;
}

template <class F>
std::string packet(F&& f) {
  std::string b;
  byte_writer w(b);
  f(w);
  return hex(b);
}

constexpr std::array<std::uint8_t, 16> test_uuid{0, 1, 2,  3,  4,  5,  6,  7,
                                                 8, 9, 10, 11, 12, 13, 14, 15};
const std::string uuid_hex = "000102030405060708090a0b0c0d0e0f";
const std::string pos_hex = "3ff0000000000000"
                            "4000000000000000"
                            "4008000000000000"; // 1, 2, 3

} // namespace

TEST_CASE("bundle_delimiter") {
  for (std::int32_t p : {767, 769, 775}) {
    CHECK(packet([&](byte_writer& w) { write_bundle_delimiter(w, v(p)); }) == "00");
  }
}

TEST_CASE("spawn_entity per layout") {
  // 767: velocity last (3 x i16); item_display is entity type 59 (entities of 1.20.5).
  CHECK(packet([&](byte_writer& w) {
          write_spawn_entity(w, v(767), 5, test_uuid, entity_kind::item_display, {1, 2, 3}, 90);
        }) == "01"
              "05" +
                  uuid_hex + "3b" + pos_hex +
                  "00"
                  "40"
                  "00"
                  "00"
                  "000000000000");
  // 769: the same layout; text_display is 124.
  CHECK(packet([&](byte_writer& w) {
          write_spawn_entity(w, v(769), 5, test_uuid, entity_kind::text_display, {1, 2, 3}, 180);
        }) == "01"
              "05" +
                  uuid_hex + "7c" + pos_hex +
                  "00"
                  "80"
                  "00"
                  "00"
                  "000000000000");
  // 775: lpVec3 zero (one 0x00) right after the position; item_display is 72.
  CHECK(packet([&](byte_writer& w) {
          write_spawn_entity(w, v(775), 5, test_uuid, entity_kind::item_display, {1, 2, 3}, -90);
        }) == "01"
              "05" +
                  uuid_hex + "48" + pos_hex +
                  "00"
                  "00"
                  "c0"
                  "00"
                  "00");
  // block_display is 15 on 769 and 775.
  CHECK(packet([&](byte_writer& w) {
          write_spawn_entity(w, v(775), 1000000001, test_uuid, entity_kind::block_display,
                             {1, 2, 3}, 0);
        }) == "01"
              "8194ebdc03" +
                  uuid_hex + "0f" + pos_hex +
                  "00"
                  "00"
                  "00"
                  "00"
                  "00");
}

TEST_CASE("entity_metadata entries") {
  metadata_entry flags{0, serializer::byte, 0x40, {}, {}};
  metadata_entry translation{11, serializer::vector3, 0, {0, 1, 0, 0}, {}};
  metadata_entry rotation{14, serializer::quaternion, 0, {-0.0f, 0, 0, 1}, {}};
  metadata_entry brightness{16, serializer::int_, -1, {}, {}};
  metadata_entry range{17, serializer::float_, 0, {2, 0, 0, 0}, {}};
  metadata_entry state{23, serializer::block_state, 1, {}, {}};
  const metadata_entry list[] = {flags, translation, rotation, brightness, range, state};
  const std::string body = "05"
                           "000040"
                           "0b%%000000003f80000000000000"
                           "0e&&80000000"
                           "00000000"
                           "00000000"
                           "3f800000"
                           "1001ffffffff0f"
                           "110340000000"
                           "170e01"
                           "ff";
  auto expect = [&](const std::string& id, const std::string& v3, const std::string& q) {
    std::string b = id + body;
    b.replace(b.find("%%"), 2, v3);
    b.replace(b.find("&&"), 2, q);
    return b;
  };
  // 769: entity_metadata 0x5d, vector3 29, quaternion 30; 775: 0x63, 39, 40.
  CHECK(packet([&](byte_writer& w) { write_entity_metadata(w, v(769), 5, list); }) ==
        expect("5d", "1d", "1e"));
  CHECK(packet([&](byte_writer& w) { write_entity_metadata(w, v(775), 5, list); }) ==
        expect("63", "27", "28"));
  // 767: entity_metadata 0x58, vector3 29.
  const metadata_entry one[] = {translation};
  CHECK(packet([&](byte_writer& w) { write_entity_metadata(w, v(767), 5, one); }) ==
        "5805"
        "0b1d000000003f80000000000000"
        "ff");

  // Item stacks and text components go in as their encoded bytes.
  std::string slot;
  byte_writer sw(slot);
  warnings none;
  write_item_stack(sw, v(769), "", nullptr, none);
  CHECK(hex(slot) == "00");
  const metadata_entry item[] = {{23, serializer::item_stack, 0, {}, slot}};
  CHECK(packet([&](byte_writer& w) { write_entity_metadata(w, v(769), 5, item); }) == "5d05"
                                                                                      "170700"
                                                                                      "ff");
}

TEST_CASE("entity_destroy") {
  const std::int32_t ids[] = {5, 1000000001};
  CHECK(packet([&](byte_writer& w) { write_entity_destroy(w, v(767), ids); }) == "42"
                                                                                 "02"
                                                                                 "05"
                                                                                 "8194ebdc03");
  CHECK(packet([&](byte_writer& w) { write_entity_destroy(w, v(769), ids); }) == "47"
                                                                                 "02"
                                                                                 "05"
                                                                                 "8194ebdc03");
  CHECK(packet([&](byte_writer& w) { write_entity_destroy(w, v(775), ids); }) == "4d"
                                                                                 "02"
                                                                                 "05"
                                                                                 "8194ebdc03");
}

TEST_CASE("absolute move: entity_teleport on 767, sync_entity_position from 768") {
  CHECK(packet([&](byte_writer& w) {
          write_absolute_move(w, v(767), 5, {1, 2, 3}, 90);
        }) == "70"
              "05" +
                  pos_hex +
                  "40"
                  "00"
                  "00");
  const std::string zeros = "0000000000000000"
                            "0000000000000000"
                            "0000000000000000";
  CHECK(packet([&](byte_writer& w) {
          write_absolute_move(w, v(769), 5, {1, 2, 3}, 90);
        }) == "20"
              "05" +
                  pos_hex + zeros +
                  "42b40000"
                  "00000000"
                  "00");
  CHECK(packet([&](byte_writer& w) {
          write_absolute_move(w, v(775), 5, {1, 2, 3}, -0.5f);
        }) == "23"
              "05" +
                  pos_hex + zeros +
                  "bf000000"
                  "00000000"
                  "00");
}

TEST_CASE("entity_look") {
  CHECK(packet([&](byte_writer& w) { write_entity_look(w, v(767), 5, 90); }) == "30054000"
                                                                                "00");
  CHECK(packet([&](byte_writer& w) { write_entity_look(w, v(769), 5, 359.9f); }) == "3205ff00"
                                                                                    "00");
  CHECK(packet([&](byte_writer& w) { write_entity_look(w, v(775), 5, 180); }) == "38058000"
                                                                                 "00");
}

TEST_CASE("entity_equipment with six empty slots") {
  const std::string slots = "8000"
                            "8100"
                            "8200"
                            "8300"
                            "8400"
                            "0500";
  CHECK(packet([&](byte_writer& w) { write_blank_equipment(w, v(767), 42); }) == "5b2a" + slots);
  CHECK(packet([&](byte_writer& w) { write_blank_equipment(w, v(769), 42); }) == "602a" + slots);
  CHECK(packet([&](byte_writer& w) { write_blank_equipment(w, v(775), 42); }) == "662a" + slots);
}

TEST_CASE("shared flags byte") {
  player_flags f;
  CHECK(shared_flags_byte(f) == 0);
  f.on_fire = true;
  f.sneaking = true;
  f.sprinting = true;
  f.swimming = true;
  CHECK(shared_flags_byte(f) == 0x1B);
  f.invisible = true;
  f.glowing = true;
  f.gliding = true;
  CHECK(static_cast<std::uint8_t>(shared_flags_byte(f)) == 0xFB);
}
