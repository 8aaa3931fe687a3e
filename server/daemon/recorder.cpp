#include "server/daemon/recorder.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <unistd.h>

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
  // O_EXCL: a file that appeared since is not truncated either.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return failure{"cannot create recording '" + file.string() + "': " + std::strerror(errno)};
  }
  std::unique_ptr<recorder> r(new recorder(fd, file, with_frames));
  r->kept_ = std::move(kept);
  protocol::append_header(r->pending_, header);
  if (!r->flush()) {
    return failure{"cannot write recording '" + file.string() + "'"};
  }
  return r;
}

recorder::recorder(int fd, std::filesystem::path file, bool with_frames)
    : fd_(fd), file_(std::move(file)), with_frames_(with_frames) {}

recorder::~recorder() {
  // What is pending belongs to a tick that never ran (inputs after the last tick, connections
  // closing as the server goes away): replay would run that tick and find nothing recorded for
  // it, so it is not written (protocol.md §8: the file holds whole ticks).
  ::close(fd_);
}

void recorder::connect(std::int64_t tick, std::uint64_t conn, std::string_view role,
                       std::string_view client) {
  if (!take(tick)) {
    return;
  }
  protocol::append_connect(pending_, tick, static_cast<std::int64_t>(conn), role, client);
}

void recorder::disconnect(std::int64_t tick, std::uint64_t conn) {
  if (!take(tick)) {
    return;
  }
  protocol::append_disconnect(pending_, tick, static_cast<std::int64_t>(conn));
}

void recorder::message(std::int64_t tick, std::uint64_t conn, std::string_view record_json) {
  if (!take(tick)) {
    return;
  }
  protocol::append_msg(pending_, tick, static_cast<std::int64_t>(conn), record_json);
}

void recorder::reply(std::int64_t tick, std::uint64_t conn, std::string_view reply_line) {
  if (!take(tick)) {
    return;
  }
  protocol::append_reply(pending_, tick, static_cast<std::int64_t>(conn), reply_line);
}

void recorder::frame(std::int64_t tick, std::string_view frame_line, std::string_view with_packets,
                     std::optional<std::string_view> state) {
  if (!take(tick)) {
    return;
  }
  protocol::append_frame(
      pending_, tick, frame_line,
      with_frames_ ? std::optional<std::string_view>(with_packets) : std::nullopt, state);
}

void recorder::state(std::int64_t tick, std::string_view digest_hex) {
  if (!take(tick)) {
    return;
  }
  protocol::append_state(pending_, tick, digest_hex);
}

void recorder::state_dump(std::int64_t tick, std::string_view dump_json) {
  if (!take(tick)) {
    return;
  }
  protocol::append_state_dump(pending_, tick, dump_json);
}

int recorder::write_all(std::string_view bytes) {
  if (injected_) {
    const auto inj = *injected_;
    if (inj.stored > 0) {
      (void)::write(fd_, bytes.data(), std::min(inj.stored, bytes.size()));
      injected_->stored = 0; // a partial write, then the error
    }
    if (!inj.trailer_fails) {
      injected_.reset();
    }
    return inj.error;
  }
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

bool recorder::flush() {
  if (failed_) {
    pending_.clear();
    return false;
  }
  if (pending_.empty()) {
    return true;
  }
  const int error = write_all(pending_);
  if (error == 0) {
    written_ += pending_.size();
    pending_.clear();
    return true;
  }
  // protocol.md §8: the file keeps its whole ticks and says where and why it ended, so replay
  // reports an early end instead of "identical" (a truncated tick would read as damage).
  failed_ = true;
  pending_.clear();
  const auto cut = static_cast<off_t>(written_);
  (void)::ftruncate(fd_, cut);
  (void)::lseek(fd_, cut, SEEK_SET);
  const std::string reason = std::strerror(error);
  std::string trailer;
  protocol::append_ended_early(trailer, pending_tick_, reason);
  bool marked = write_all(trailer) == 0;
  if (marked) {
    written_ += trailer.size();
  } else {
    (void)::ftruncate(fd_, cut); // an unmarked end still reads as "ended early" (no end record)
  }
  spdlog::error("recording to {} failed at tick {}: {}; recording stops (the file ends at tick "
                "{}{})",
                file_.string(), pending_tick_, reason, pending_tick_ - 1,
                marked ? ", marked ended_early" : "; the mark could not be written either");
  return false;
}

} // namespace emote::server
