// Frame encoding throughput (the hot path of the stress test): bytes of NDJSON produced per second
// for frames shaped like steady-state playback (one transform update per display per tick) and
// like start ticks (spawns), with and without matrices, through the shared-variant encoder.
#include "protocol/decode.hpp"
#include "protocol/encode.hpp"

#include <benchmark/benchmark.h>

#include <cmath>

using namespace emote;

namespace {

api::transform_record transform_for(int i) {
  api::transform_record t;
  const float a = 0.01F * static_cast<float>(i);
  const float s = std::sin(a);
  const float c = std::cos(a);
  t.matrix = {c, 0, s, 0.1F * static_cast<float>(i), 0, 1, 0, 1.62F, -s, 0, c, -0.35F, 0, 0, 0, 1};
  t.translation = {0.1F * static_cast<float>(i), 1.62F, -0.35F};
  t.left_rotation = {0, std::sin(a / 2), 0, std::cos(a / 2)};
  t.scale = {0.9999999F, 1, 1.0000001F};
  t.right_rotation = {0, 0, 0, 1};
  return t;
}

// `displays` transform updates, as a stress tick with that many active displays produces.
api::frame update_frame(int displays) {
  api::frame f;
  f.tick = 123456;
  for (int i = 0; i < displays; ++i) {
    api::ev_display_update u;
    u.handle = i + 1;
    u.transform = transform_for(i);
    u.interpolation_duration = 1;
    f.events.emplace_back(std::move(u));
  }
  return f;
}

api::frame spawn_frame(int displays) {
  api::frame f;
  f.tick = 7;
  for (int i = 0; i < displays; ++i) {
    api::ev_display_spawn s;
    s.session = 1 + i / 74;
    s.handle = i + 1;
    s.node = "left_arm_lower";
    s.space = api::space::initiator;
    s.kind = api::display_kind::item;
    s.item =
        R"({id:"minecraft:player_head",count:1,components:{"minecraft:profile":{name:"alice"}}})";
    s.item_display = "thirdperson_righthand";
    s.dimension = "minecraft:overworld";
    s.position = {1024.5, 64, -2048.25};
    s.yaw = 0;
    s.transform = transform_for(i);
    s.skin = api::skin_binding{"initiator", "left_arm", 2, {4, 8}};
    f.events.emplace_back(std::move(s));
  }
  return f;
}

void BM_encode_updates(benchmark::State& state) {
  const api::frame f = update_frame(static_cast<int>(state.range(0)));
  const bool matrix = state.range(1) != 0;
  std::string buffer;
  std::size_t bytes = 0;
  for (auto _ : state) {
    buffer.clear();
    protocol::encode_frame(buffer, f, matrix);
    bytes += buffer.size();
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(state.iterations()) *
                                                      static_cast<double>(f.events.size()),
                                                  benchmark::Counter::kIsRate);
  state.counters["bytes/frame"] = static_cast<double>(buffer.size());
}
BENCHMARK(BM_encode_updates)->Args({100, 0})->Args({100, 1})->Args({5000, 0})->Args({5000, 1});

void BM_encode_spawns(benchmark::State& state) {
  const api::frame f = spawn_frame(static_cast<int>(state.range(0)));
  std::string buffer;
  std::size_t bytes = 0;
  for (auto _ : state) {
    buffer.clear();
    protocol::encode_frame(buffer, f, true);
    bytes += buffer.size();
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_encode_spawns)->Arg(740);

// The server's path: one frame_encoder, several subscribers on three distinct filters, each
// frame encoded once per filter and shared.
void BM_frame_encoder_variants(benchmark::State& state) {
  const api::frame f = update_frame(static_cast<int>(state.range(0)));
  protocol::frame_filter plain;
  protocol::frame_filter matrix = protocol::full_filter();
  protocol::frame_filter displays;
  displays.types = protocol::event_type_mask("display.");
  displays.dimensions = {"minecraft:overworld"};
  const protocol::frame_filter* subscribers[] = {&plain, &plain,  &matrix,   &displays,
                                                 &plain, &matrix, &displays, &plain};
  protocol::frame_encoder enc;
  std::size_t bytes = 0;
  for (auto _ : state) {
    enc.begin(f);
    for (const auto* filter : subscribers) {
      auto line = enc.encode(*filter);
      benchmark::DoNotOptimize(line->line.data());
    }
    bytes += enc.encode(plain)->line.size() + enc.encode(matrix)->line.size() +
             enc.encode(displays)->line.size();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_frame_encoder_variants)->Arg(5000);

void BM_decode_update(benchmark::State& state) {
  const std::string line =
      R"({"op":"player.update","player":"069a79f4-44e9-4726-a5be-fca90e38aaf5","position":[1024.5,64.0,-2048.25],"yaw":-93.75,"pitch":12.5,"on_ground":true,"velocity":[0.0,-0.0784000015258789,0.0]})";
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto r = protocol::decode_request(line);
    benchmark::DoNotOptimize(r.ok());
    bytes += line.size();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_decode_update);

} // namespace
