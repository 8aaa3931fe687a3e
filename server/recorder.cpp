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

core::result<std::unique_ptr<recorder>, std::string>
recorder::open(const std::filesystem::path& file, const protocol::recording_header& header,
               bool with_frames) {
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (f == nullptr) {
    return failure{"cannot create recording '" + file.string() + "': " + std::strerror(errno)};
  }
  std::unique_ptr<recorder> r(new recorder(f, file, with_frames));
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

void recorder::frame(std::int64_t tick, std::string_view frame_line) {
  protocol::append_frame(pending_, tick, frame_line, with_frames_);
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
