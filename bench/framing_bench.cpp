// Packet compression for `stress --wire-protocol` (render.md §5.6): libdeflate's whole-buffer
// zlib encoder and zlib's deflate (a reused stream, as a connection keeps its Deflater) at levels
// 1 and 6, and render::packet_framer (libdeflate, framing included) against zlib's compress2, on
// packets the size of the pipeline's compressed ones. All write standard zlib streams. The
// figures of docs/guide/performance.md "Like for like: the mod's packet pipeline" come from here.
#include "render/framing.hpp"

#include <benchmark/benchmark.h>
#include <libdeflate.h>
#include <zlib.h>

#include <string>
#include <vector>

namespace {

/// A metadata-like packet: small varints, big-endian floats of a few distinct values, an item
/// stack's NBT-ish tail; compresses about as well as the real ones.
std::string packet(std::size_t n) {
  std::string s;
  std::uint64_t x = 7;
  while (s.size() < n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const char* words[] = {"minecraft:player_head", "\x3f\x80\x00\x00", "\x00\x00\x00\x00",
                           "\x0b\x0c\x0d",          "textures",         "\xbe\xef"};
    s += words[(x >> 33) % 6];
  }
  s.resize(n);
  return s;
}

void BM_frame_libdeflate(benchmark::State& state) {
  const std::string p = packet(static_cast<std::size_t>(state.range(0)));
  emote::render::packet_framer framer(256);
  std::string out;
  for (auto _ : state) {
    out.clear();
    framer.append(out, p);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * p.size()));
  state.counters["ratio"] = static_cast<double>(out.size()) / static_cast<double>(p.size());
}

void BM_frame_zlib(benchmark::State& state) {
  const std::string p = packet(static_cast<std::size_t>(state.range(0)));
  std::vector<Bytef> out(compressBound(p.size()));
  uLongf n = 0;
  for (auto _ : state) {
    n = out.size();
    compress2(out.data(), &n, reinterpret_cast<const Bytef*>(p.data()), p.size(),
              emote::render::compression_level);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * p.size()));
  state.counters["ratio"] = static_cast<double>(n) / static_cast<double>(p.size());
}

/// libdeflate alone at a level (no framing).
void BM_libdeflate_level(benchmark::State& state) {
  const std::string p = packet(static_cast<std::size_t>(state.range(0)));
  libdeflate_compressor* c = libdeflate_alloc_compressor(static_cast<int>(state.range(1)));
  std::vector<char> out(libdeflate_zlib_compress_bound(c, p.size()));
  std::size_t n = 0;
  for (auto _ : state) {
    n = libdeflate_zlib_compress(c, p.data(), p.size(), out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
  libdeflate_free_compressor(c);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * p.size()));
  state.counters["ratio"] = static_cast<double>(n) / static_cast<double>(p.size());
}

/// zlib with one z_stream reset per packet, as a connection keeps its Deflater.
void BM_zlib_stream_level(benchmark::State& state) {
  const std::string p = packet(static_cast<std::size_t>(state.range(0)));
  z_stream z{};
  deflateInit(&z, static_cast<int>(state.range(1)));
  std::vector<Bytef> out(deflateBound(&z, p.size()));
  std::size_t n = 0;
  for (auto _ : state) {
    deflateReset(&z);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.data()));
    z.avail_in = static_cast<uInt>(p.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    n = out.size() - z.avail_out;
    benchmark::DoNotOptimize(out.data());
  }
  deflateEnd(&z);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * p.size()));
  state.counters["ratio"] = static_cast<double>(n) / static_cast<double>(p.size());
}

BENCHMARK(BM_libdeflate_level)->ArgsProduct({{300, 1000, 8000}, {1, 6}});
BENCHMARK(BM_zlib_stream_level)->ArgsProduct({{300, 1000, 8000}, {1, 6}});
BENCHMARK(BM_frame_libdeflate)->Arg(300)->Arg(1000)->Arg(8000);
BENCHMARK(BM_frame_zlib)->Arg(300)->Arg(1000)->Arg(8000);

} // namespace
