#include "server/recorder.hpp"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace emote::server {

using core::failure;

std::string iso8601_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::filesystem::path kept_recording_path(const std::filesystem::path& file) {
  std::error_code ec;
  for (std::uint64_t n = 1;; ++n) {
    auto candidate = file;
    candidate += "." + std::to_string(n);
    if (!std::filesystem::exists(std::filesystem::symlink_status(candidate, ec))) {
      return candidate;
    }
  }
}

core::result<std::unique_ptr<recorder>, std::string>
recorder::open(const std::filesystem::path& file, const protocol::recording_header& header,
               bool with_frames) {
  // Never overwrite: a recording already at `file` (a crash's, before a supervisor restarted the
  // server) is kept under the first free FILE.N.
  std::error_code ec;
  std::filesystem::path kept;
  if (std::filesystem::exists(std::filesystem::symlink_status(file, ec))) {
    kept = kept_recording_path(file);
    std::filesystem::rename(file, kept, ec);
    if (ec) {
      return failure{"cannot keep the previous recording '" + file.string() + "' as '" +
                     kept.string() + "': " + ec.message()};
    }
    spdlog::info("the previous recording {} was kept as {}", file.string(), kept.string());
  }
  // "x": exclusive; a file that appeared since is not truncated either.
  std::FILE* f = std::fopen(file.c_str(), "wbx");
  if (f == nullptr) {
    return failure{"cannot create recording '" + file.string() + "': " + std::strerror(errno)};
  }
  std::unique_ptr<recorder> r(new recorder(f, file, with_frames));
  r->kept_ = std::move(kept);
  protocol::append_header(r->pending_, header);
  if (!r->flush()) {
    return failure{"cannot write recording '" + file.string() + "'"};
  }
  return r;
}

recorder::recorder(std::FILE* f, std::filesystem::path file, bool with_frames)
    : f_(f), file_(std::move(file)), with_frames_(with_frames) {}

recorder::~recorder() {
  flush();
  std::fclose(f_);
}

void recorder::connect(std::int64_t tick, std::uint64_t conn, std::string_view role,
                       std::string_view client) {
  protocol::append_connect(pending_, tick, static_cast<std::int64_t>(conn), role, client);
}

void recorder::disconnect(std::int64_t tick, std::uint64_t conn) {
  protocol::append_disconnect(pending_, tick, static_cast<std::int64_t>(conn));
}

void recorder::message(std::int64_t tick, std::uint64_t conn, std::string_view record_json) {
  protocol::append_msg(pending_, tick, static_cast<std::int64_t>(conn), record_json);
}

void recorder::reply(std::int64_t tick, std::uint64_t conn, std::string_view reply_line) {
  protocol::append_reply(pending_, tick, static_cast<std::int64_t>(conn), reply_line);
}

void recorder::frame(std::int64_t tick, std::string_view frame_line, std::string_view with_packets,
                     std::optional<std::string_view> state) {
  protocol::append_frame(
      pending_, tick, frame_line,
      with_frames_ ? std::optional<std::string_view>(with_packets) : std::nullopt, state);
}

void recorder::state(std::int64_t tick, std::string_view digest_hex) {
  protocol::append_state(pending_, tick, digest_hex);
}

void recorder::state_dump(std::int64_t tick, std::string_view dump_json) {
  protocol::append_state_dump(pending_, tick, dump_json);
}

bool recorder::flush() {
  if (failed_) {
    pending_.clear();
    return false;
  }
  if (!pending_.empty()) {
    const std::size_t n = std::fwrite(pending_.data(), 1, pending_.size(), f_);
    written_ += n;
    if (n != pending_.size() || std::fflush(f_) != 0) {
      failed_ = true;
      spdlog::error("recording to {} failed: {}; recording stops", file_.string(),
                    std::strerror(errno));
      pending_.clear();
      return false;
    }
    pending_.clear();
  }
  return true;
}

} // namespace emote::server
