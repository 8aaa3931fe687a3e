#include "server/stress/stress_populated.hpp"

#include "server/host/tick_composer.hpp"
#include "server/stress/stress_common.hpp"
#include "server/stress/stress_readers.hpp"

#include "engine/content/model.hpp"
#include "engine/core/java_random.hpp"
#include "engine/json/writer.hpp"
#include "engine/sim/engine.hpp"
#include "engine/world/player.hpp"
#include "render/tables.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <string_view>
#include <unordered_map>
#include <variant>

namespace emote::server {

std::shared_ptr<const content::catalog> following_animations(const content::catalog& source) {
  std::vector<content::catalog_entry> entries;
  for (const content::catalog_entry& e : source.entries()) {
    if (e.kind != content::emote_kind::animation || !e.animation) {
      continue;
    }
    auto copy = std::make_shared<content::animation>(*e.animation);
    copy->settings.player.stop_conditions.movement_distance = 0;
    content::catalog_entry entry = e;
    entry.animation = std::move(copy);
    entries.push_back(std::move(entry));
  }
  return std::make_shared<const content::catalog>(
      std::move(entries), std::vector<content::source_file>{}, core::diagnostics{});
}

namespace {

using stress_common::ms_between;
using stress_common::now_ns;

constexpr double degrees = std::numbers::pi / 180.0;

/// One walker: where it is and where it heads (degrees, Minecraft yaw: 0 faces +z).
struct walker {
  double x = 0, z = 0;
  double heading = 0;
};

} // namespace

struct populated_run::impl {
  populated_options opt;
  sim::engine engine;
  tick_composer composer; ///< serve's tick: the Engine, then the renderer on its frame
  core::java_random walk_rng;
  std::vector<walker> walkers;
  std::vector<api::input> updates; ///< one player.update per player, rewritten each tick
  std::vector<api::input> plays;   ///< one emote.play per player
  std::vector<std::int64_t> first_play;
  std::vector<std::uint32_t> due; ///< players to play this tick
  std::unordered_map<std::string, std::uint32_t> index_of;
  api::frame* frame = nullptr;
  api::frame empty_frame;
  // The pipelined mode's copy of one tick for the renderer (snapshot()).
  api::frame held_frame;
  std::vector<world::player_state> held_states;
  std::vector<const world::player_state*> held_players;
  std::vector<const world::player_state*> held_online;
  /// `--pipelined`: the renderer writes one while the other may be read.
  render::render_output outs[2];
  int current = 0;                                  ///< the last one written
  const render::render_output* last = &outs[0];     ///< the last tick's entries
  std::span<const world::player_state* const> seen; ///< the players the last render saw
  std::uint64_t plays_ok = 0, plays_refused = 0, stops_other = 0;

  static sim::engine_config engine_config(const populated_options& o) {
    sim::engine_config c;
    c.max_active_display_entities = 0; // unlimited: N players × their Animations' displays
    c.max_players = static_cast<std::int32_t>(
        std::max<std::size_t>(o.players, static_cast<std::size_t>(c.max_players)));
    return c;
  }

  impl(std::shared_ptr<const content::catalog> catalog, const populated_options& o)
      : opt(o), engine(following_animations(*catalog), engine_config(o)), composer(o.render),
        walk_rng(o.seed ^ 0x57A1CL) {
    std::vector<std::string> ids;
    for (const content::catalog_entry& e : engine.catalog().entries()) {
      ids.push_back(e.id);
    }
    core::java_random g(o.seed);
    const std::vector<std::string> assigned = rules::stress_assignment(ids, o.players, g);
    const double half = o.area / 2;
    walkers.resize(o.players);
    updates.reserve(o.players);
    plays.reserve(o.players);
    first_play.resize(o.players);
    due.reserve(o.players);
    index_of.reserve(o.players);
    for (std::size_t i = 0; i < o.players; ++i) {
      walker& w = walkers[i];
      w.x = (g.next_double() - 0.5) * o.area;
      w.z = (g.next_double() - 0.5) * o.area;
      w.x = std::clamp(w.x, -half, half);
      w.z = std::clamp(w.z, -half, half);
      w.heading = g.next_double() * 360.0;
      first_play[i] =
          o.warmup > 0
              ? g.next_int(static_cast<std::int32_t>(std::min<std::int64_t>(o.warmup, INT32_MAX)))
              : 0;
      const std::string id = "p" + std::to_string(i);
      index_of.emplace(id, static_cast<std::uint32_t>(i));

      api::player_join j;
      j.player = id;
      j.fields.position = core::dvec3{w.x, 64, w.z};
      j.fields.yaw = static_cast<float>(w.heading);
      j.fields.viewer.protocol = std::optional<std::int32_t>(o.protocol);
      j.fields.viewer.view_distance = o.view_distance;
      j.fields.viewer.entity_id =
          std::optional<std::int32_t>(static_cast<std::int32_t>(o.entity_id_base + i));
      j.fields.viewer.name = id;
      engine.apply(j);

      api::player_update u;
      u.player = id;
      u.fields.position = j.fields.position;
      u.fields.yaw = j.fields.yaw;
      updates.emplace_back(std::move(u));

      api::emote_play p;
      p.player = id;
      p.emote = assigned[i];
      p.source = api::play_source::api; // players.md §6.2: no cooldown or permission checks
      plays.emplace_back(std::move(p));
    }
    frame = &empty_frame;
  }

  void walk(std::size_t i) {
    walker& w = walkers[i];
    const double half = opt.area / 2;
    w.heading += (walk_rng.next_double() - 0.5) * 2 * opt.turn;
    w.heading = std::fmod(w.heading, 360.0);
    if (w.heading < 0) {
      w.heading += 360.0;
    }
    double dx = -std::sin(w.heading * degrees) * opt.speed;
    double dz = std::cos(w.heading * degrees) * opt.speed;
    // Mirrored at the square's edges: x flips the heading's sign, z mirrors it about 90°.
    if (std::abs(w.x + dx) > half) {
      dx = -dx;
      w.heading = std::fmod(360.0 - w.heading, 360.0);
    }
    if (std::abs(w.z + dz) > half) {
      dz = -dz;
      w.heading = std::fmod(540.0 - w.heading, 360.0);
    }
    w.x += dx;
    w.z += dz;
    auto& u = std::get<api::player_update>(updates[i]);
    u.fields.position = core::dvec3{w.x, 64, w.z};
    u.fields.yaw = static_cast<float>(w.heading);
  }

  void inputs() {
    const std::int64_t t = engine.tick();
    for (std::size_t i = 0; i < walkers.size(); ++i) {
      walk(i);
      engine.apply(updates[i]);
    }
    // First plays in index order, then the restarts in the order their stops came.
    for (std::size_t i = 0; i < first_play.size(); ++i) {
      if (first_play[i] == t) {
        play(static_cast<std::uint32_t>(i));
      }
    }
    for (const std::uint32_t i : due) {
      play(i);
    }
    due.clear();
  }

  void play(std::uint32_t i) {
    if (engine.apply(plays[i]).ok()) {
      ++plays_ok;
    } else {
      ++plays_refused;
    }
  }

  void engine_step() {
    frame = &composer.engine_step(engine);
    for (const api::event& e : frame->events) {
      const auto* st = std::get_if<api::ev_playback_stopped>(&e);
      if (st == nullptr) {
        continue;
      }
      const auto it = index_of.find(st->player);
      if (it == index_of.end()) {
        continue;
      }
      if (st->reason != api::stop_reason::finished) {
        ++stops_other;
      }
      // Played again in the next tick: the server stays populated.
      due.push_back(it->second);
    }
  }

  void snapshot() {
    // The frame's events move out (the Engine clears its frame at the next tick anyway); the
    // players are copied, as the Engine changes them in the next tick.
    held_frame.tick = frame->tick;
    held_frame.events.swap(frame->events);
    frame->events.clear();
    engine.players(held_online);
    held_states.resize(held_online.size());
    held_players.resize(held_online.size());
    for (std::size_t i = 0; i < held_online.size(); ++i) {
      held_states[i] = *held_online[i];
      held_players[i] = &held_states[i];
    }
  }

  /// `--pipelined` (a what-if serve does not do): the composer's renderer on the held copy, one
  /// tick behind, into the other of two outputs.
  void render_held() {
    current ^= 1;
    composer.renderer().step(held_frame, held_players, outs[current], !opt.unread);
    last = &outs[current];
    seen = held_online;
    held_frame.events.clear(); // here rather than on the Engine's thread
  }

  /// The composer's second half, as serve's tick: the frame for the online players in join order.
  void render_step() {
    const protocol::tick_output& out = composer.render_step(engine, !opt.unread);
    last = out.packets.output;
    seen = composer.players();
  }
};

populated_run::populated_run(std::shared_ptr<const content::catalog> catalog,
                             const populated_options& o)
    : impl_(std::make_unique<impl>(std::move(catalog), o)) {}
populated_run::~populated_run() = default;

void populated_run::inputs() {
  impl_->inputs();
}
void populated_run::engine_step() {
  impl_->engine_step();
}
void populated_run::render_step() {
  impl_->render_step();
}
void populated_run::snapshot() {
  impl_->snapshot();
}
void populated_run::render_held() {
  impl_->render_held();
}
void populated_run::step() {
  inputs();
  engine_step();
  render_step();
}
std::int64_t populated_run::tick() const noexcept {
  return impl_->engine.tick();
}
const api::frame& populated_run::frame() const noexcept {
  return *impl_->frame;
}
const render::render_output& populated_run::packets() const noexcept {
  return *impl_->last;
}
std::span<const world::player_state* const> populated_run::viewers() const noexcept {
  return impl_->seen;
}
std::size_t populated_run::sessions() const noexcept {
  return impl_->engine.session_count();
}
std::int64_t populated_run::displays() const noexcept {
  return impl_->engine.active_displays();
}
std::uint64_t populated_run::plays() const noexcept {
  return impl_->plays_ok;
}
std::uint64_t populated_run::play_failures() const noexcept {
  return impl_->plays_refused;
}
std::uint64_t populated_run::other_stops() const noexcept {
  return impl_->stops_other;
}
const populated_options& populated_run::options() const noexcept {
  return impl_->opt;
}

namespace {

/// The recipient's side of a tick (the framing is in the header) and the tick's counts.
class entry_reader {
public:
  explicit entry_reader(bool simd) : read_(reader_fn(best_reader(simd))) {}

  struct counts {
    std::uint64_t entries = 0, packets = 0, packet_bytes = 0, spawns = 0, destroys = 0,
                  read_bytes = 0;
  };

  counts read(const render::render_output& out) {
    counts c;
    heads_.resize(out.entries.size());
    pieces_.clear();
    const render::version_table* table = nullptr;
    for (std::size_t k = 0; k < out.entries.size(); ++k) {
      const render::packet_entry& e = out.entries[k];
      heads_[k] = head{static_cast<std::uint32_t>(e.protocol), e.to_count, e.data_size};
      pieces_.emplace_back(reinterpret_cast<const char*>(&heads_[k]), sizeof(head));
      const std::span<const std::uint32_t> to = out.to(e);
      if (!to.empty()) {
        pieces_.emplace_back(reinterpret_cast<const char*>(to.data()), to.size_bytes());
      }
      const std::string_view data = out.bytes(e);
      pieces_.emplace_back(data);
      c.packets += e.to_count;
      c.packet_bytes += std::uint64_t{e.to_count} * e.data_size;
      if (table == nullptr || table->protocol != e.protocol) {
        table = render::find_version(e.protocol);
      }
      if (table != nullptr && !data.empty()) {
        const std::int32_t id = packet_id(data);
        if (id == table->packet_ids[static_cast<std::size_t>(render::packet_kind::spawn_entity)]) {
          c.spawns += e.to_count;
        } else if (id == table->packet_ids[static_cast<std::size_t>(
                             render::packet_kind::entity_destroy)]) {
          c.destroys += e.to_count;
        }
      }
    }
    c.entries = out.entries.size();
    const std::uint64_t before = recipient_.bytes;
    deliver(read_, pieces_, std::span<recipient>(&recipient_, 1));
    c.read_bytes = recipient_.bytes - before;
    return c;
  }

  [[nodiscard]] std::uint64_t checksum() const noexcept { return recipient_.checksum(); }

private:
  struct head {
    std::uint32_t protocol, to_count, data_size;
  };
  static_assert(sizeof(head) == 12);

  /// The packet id varint at the start of a packet (render.md §5).
  static std::int32_t packet_id(std::string_view data) noexcept {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < data.size() && k < 5; ++k) {
      const auto b = static_cast<std::uint8_t>(data[k]);
      v |= static_cast<std::uint32_t>(b & 0x7F) << (7 * k);
      if ((b & 0x80) == 0) {
        return static_cast<std::int32_t>(v);
      }
    }
    return -1;
  }

  blocks_fn read_;
  recipient recipient_;
  std::vector<head> heads_;
  std::vector<std::string_view> pieces_;
};

/// The populated server as the harness drives it. Pipelined, a sample renders tick k on the
/// second thread while this thread runs the Engine for tick k+1 and then reads tick k-1's
/// entries (the renderer writes the other of its two outputs).
class populated_mode final : public stress_mode {
public:
  populated_mode(populated_run& run, entry_reader& reader, bool pipelined, populated_report& r)
      : run_(run), reader_(reader), pipelined_(pipelined), r_(r), job_{&run, pipelined, 0, 0} {
    if (pipelined) {
      helper_ = std::make_unique<second_thread>();
    }
    r_.sessions.min = static_cast<double>(run.sessions());
  }

  tick_spans tick() override {
    const std::int64_t a = now_ns();
    if (pipelined_) {
      helper_->run(job_); // renders the held tick into the other output
    }
    run_.inputs();
    run_.engine_step();
    const std::int64_t b = now_ns();
    if (!pipelined_) {
      job_();
      unread_ = &run_.packets();
    }
    const std::int64_t c = now_ns();
    if (unread_ != nullptr) {
      count(reader_.read(*unread_));
    }
    const std::int64_t d = now_ns();
    if (pipelined_) {
      helper_->wait();
      unread_ = &run_.packets();
      run_.snapshot();
    }
    return {b - a, d - c};
  }

  void sampled() override {
    render_ns_ += static_cast<double>(job_.end - job_.begin);
    const auto sessions = static_cast<double>(run_.sessions());
    sessions_sum_ += sessions;
    r_.sessions.min = std::min(r_.sessions.min, sessions);
    displays_sum_ += static_cast<double>(run_.displays());
    r_.displays.max = std::max(r_.displays.max, run_.displays());
  }

  /// After the samples: the ticks still unread are rendered and read, outside the samples.
  void drain() {
    if (pipelined_) {
      reader_.read(*unread_);
      job_();
      reader_.read(run_.packets());
    }
  }

  /// The per-tick figures into the report (after the samples).
  void report() {
    if (r_.ticks > 0) {
      const auto n = static_cast<double>(r_.ticks);
      r_.split_ms.render = render_ns_ / 1e6 / n;
      r_.sessions.avg = sessions_sum_ / n;
      r_.displays.avg = displays_sum_ / n;
    }
    r_.entries = entries_.result();
    r_.packets = packets_.result();
    r_.packet_bytes = packet_bytes_.result();
    r_.spawns = spawns_.result();
    r_.destroys = destroys_.result();
    r_.read_bytes = read_bytes_.result();
  }

private:
  void count(const entry_reader::counts& n) {
    entries_.add(n.entries);
    packets_.add(n.packets);
    packet_bytes_.add(n.packet_bytes);
    spawns_.add(n.spawns);
    destroys_.add(n.destroys);
    read_bytes_.add(n.read_bytes);
  }

  /// Rendering one tick, here or on the second thread.
  struct render_job {
    populated_run* run = nullptr;
    bool held = false;
    std::int64_t begin = 0, end = 0; ///< monotonic ns
    void operator()() {
      begin = now_ns();
      if (held) {
        run->render_held();
      } else {
        run->render_step();
      }
      end = now_ns();
    }
  };

  populated_run& run_;
  entry_reader& reader_;
  bool pipelined_;
  populated_report& r_;
  render_job job_;
  std::unique_ptr<second_thread> helper_;
  const render::render_output* unread_ = nullptr; ///< rendered in the previous sample
  per_tick_tally entries_, packets_, packet_bytes_, spawns_, destroys_, read_bytes_;
  double render_ns_ = 0, sessions_sum_ = 0, displays_sum_ = 0;
};

} // namespace

populated_report run_populated(std::shared_ptr<const content::catalog> catalog,
                               const populated_options& options) {
  populated_report r;
  r.players = options.players;
  r.area = options.area;
  r.warmup = options.warmup;
  r.pipelined = options.pipelined && options.ticks > 0 && options.warmup > 0;
  r.unread = options.unread;

  const std::int64_t s0 = now_ns();
  populated_run run(std::move(catalog), options);
  entry_reader reader(options.simd);
  // Pipelined, a sample renders tick k on the helper thread while this thread runs the Engine
  // for tick k+1 and then reads tick k-1's entries (the renderer writes the other of its two
  // outputs). The last warm-up tick is rendered in the first sample; after the test the
  // remaining ticks are rendered and read, so the recipient reads the same ticks in the same
  // order as with one thread.
  const bool pipelined = r.pipelined;
  for (std::int64_t k = 0; k < options.warmup; ++k) {
    if (pipelined && k + 1 == options.warmup) {
      run.inputs();
      run.engine_step();
      run.snapshot();
      break;
    }
    run.step();
    reader.read(run.packets());
  }
  r.setup_ms = ms_between(s0, now_ns());

  populated_mode mode(run, reader, pipelined, r);
  static_cast<sampled_ticks&>(r) = run_sampled(mode, options.ticks, options.paced);
  mode.drain();
  mode.report();
  r.split_ms.engine = r.mspt.emote_avg;
  r.split_ms.read = r.mspt.network_avg;
  r.plays = run.plays();
  r.play_failures = run.play_failures();
  r.other_stops = run.other_stops();
  r.checksum = reader.checksum();
  return r;
}

std::string populated_report_json(const populated_report& r) {
  report_json j;
  j.text("mode", "populated");
  j.count("players", r.players);
  j.number("area", r.area);
  j.integer("ticks", r.ticks);
  j.integer("warmup", r.warmup);
  j.flag("pipelined", r.pipelined);
  j.flag("unread", r.unread);
  j.mspt(r.mspt, false);
  j.begin("split_ms");
  j.number("engine", r.split_ms.engine);
  j.number("render", r.split_ms.render);
  j.number("read", r.split_ms.read);
  j.end();
  j.begin("sessions");
  j.number("avg", r.sessions.avg);
  j.number("min", r.sessions.min);
  j.end();
  j.begin("displays");
  j.number("avg", r.displays.avg);
  j.integer("max", r.displays.max);
  j.end();
  j.figure("entries_per_tick", r.entries);
  j.figure("packets_per_tick", r.packets);
  j.figure("packet_bytes_per_tick", r.packet_bytes);
  j.figure("spawns_per_tick", r.spawns);
  j.figure("destroys_per_tick", r.destroys);
  j.figure("read_bytes_per_tick", r.read_bytes);
  j.count("plays", r.plays);
  j.count("play_failures", r.play_failures);
  j.count("other_stops", r.other_stops);
  j.number("elapsed_s", r.elapsed_s);
  j.number("observed_tps", r.observed_tps);
  j.number("setup_ms", r.setup_ms);
  j.checksum("checksum", r.checksum);
  return j.done();
}

std::string populated_report_text(const populated_report& r) {
  char buf[2048];
  std::snprintf(buf, sizeof buf, "stress (populated): %zu players over %.0f x %.0f blocks\n",
                r.players, r.area, r.area);
  std::string out = buf;
  std::snprintf(buf, sizeof buf, ", after %lld warm-up ticks", static_cast<long long>(r.warmup));
  out += ticks_line(r, buf);
  out += mspt_line(r.mspt, false);
  std::snprintf(
      buf, sizeof buf,
      "  split per tick    engine %.3f ms  render %.3f ms  read %.3f ms (%s)\n"
      "  playbacks         %.1f avg, %.0f min running; %llu plays, %llu refused, %llu other "
      "stops\n"
      "  displays          %.1f avg, %lld max\n"
      "  per tick (avg/max) entries %.0f/%llu  packets %.0f/%llu  bytes %.0f/%llu\n"
      "                    spawns %.1f/%llu  destroys %.1f/%llu  read %.0f/%llu bytes\n"
      "  setup             %.3f ms\n",
      r.split_ms.engine, r.split_ms.render, r.split_ms.read,
      r.unread      ? "nobody receives: no packets built"
      : r.pipelined ? "render and read pipelined on a second thread"
                    : "one thread",
      r.sessions.avg, r.sessions.min, static_cast<unsigned long long>(r.plays),
      static_cast<unsigned long long>(r.play_failures),
      static_cast<unsigned long long>(r.other_stops), r.displays.avg,
      static_cast<long long>(r.displays.max), r.entries.avg,
      static_cast<unsigned long long>(r.entries.max), r.packets.avg,
      static_cast<unsigned long long>(r.packets.max), r.packet_bytes.avg,
      static_cast<unsigned long long>(r.packet_bytes.max), r.spawns.avg,
      static_cast<unsigned long long>(r.spawns.max), r.destroys.avg,
      static_cast<unsigned long long>(r.destroys.max), r.read_bytes.avg,
      static_cast<unsigned long long>(r.read_bytes.max), r.setup_ms);
  out += buf;
  out += checksum_line(r.checksum);
  return out;
}

} // namespace emote::server
