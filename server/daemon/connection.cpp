#include "server/daemon/connection.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

namespace emote::server {

namespace asio = boost::asio;

namespace {

const shared_line& hello_timeout_bye() {
  static const shared_line line = make_line(R"({"op":"bye","reason":"hello_timeout"})");
  return line;
}

const shared_line& idle_timeout_bye() {
  static const shared_line line = make_line(R"({"op":"bye","reason":"idle_timeout"})");
  return line;
}

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

// A frame line with `"dropped":N` added after `{"op":"frame",` (or after `{`), so that a lossy
// subscriber learns how many whole frames it missed.
shared_line with_dropped(const std::string& frame, std::uint64_t dropped) {
  static constexpr std::string_view head = R"({"op":"frame",)";
  const std::string field = "\"dropped\":" + std::to_string(dropped) + ",";
  std::string out;
  out.reserve(frame.size() + field.size());
  const std::size_t at = std::string_view(frame).starts_with(head) ? head.size() : 1;
  out.append(frame, 0, at);
  out += field;
  out.append(frame, at, std::string::npos);
  return std::make_shared<const std::string>(std::move(out));
}

} // namespace

const shared_line& slow_consumer_bye() {
  static const shared_line line = make_line(R"({"op":"bye","reason":"slow_consumer"})");
  return line;
}

connection::connection(socket_type socket, connection_handler& handler,
                       const connection_limits& limits, std::uint64_t id, std::string peer)
    : socket_(std::move(socket)), handler_(handler), limits_(limits), id_(id),
      peer_(std::move(peer)), hello_timer_(socket_.get_executor()),
      linger_timer_(socket_.get_executor()) {}

connection::~connection() = default;

void connection::start(std::chrono::milliseconds hello_timeout) {
  if (hello_timeout.count() > 0) {
    hello_timer_.expires_after(hello_timeout);
    hello_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec && self->state_ == state::open) {
        self->close_after(hello_timeout_bye(), close_reason::hello_timeout);
      }
    });
  }
  do_read();
}

void connection::hello_done(std::chrono::milliseconds idle_timeout) {
  hello_timer_.cancel();
  idle_ = idle_timeout;
  if (idle_.count() > 0) {
    last_read_ = std::chrono::steady_clock::now();
    arm_idle();
  }
}

void connection::stop_idle_watch() {
  idle_ = std::chrono::milliseconds(0);
  hello_timer_.cancel();
}

// One timer for the whole watch: reading only stamps last_read_, and the timer, when it fires
// early, waits again for what is left.
void connection::arm_idle() {
  hello_timer_.expires_at(last_read_ + idle_);
  hello_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->state_ != state::open || self->idle_.count() == 0) {
      return;
    }
    if (std::chrono::steady_clock::now() - self->last_read_ >= self->idle_) {
      self->close_after(idle_timeout_bye(), close_reason::idle_timeout);
    } else {
      self->arm_idle();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Reading

void connection::do_read() {
  if (state_ != state::open || reading_ || read_paused_ || eof_) {
    return;
  }
  reading_ = true;
  socket_.async_read_some(asio::buffer(read_buf_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      std::size_t n) { self->on_read(ec, n); });
}

void connection::on_read(const boost::system::error_code& ec, std::size_t n) {
  reading_ = false;
  if (state_ == state::closed) {
    return;
  }
  if (n > 0 && state_ == state::open) {
    last_read_ = std::chrono::steady_clock::now();
    consume(read_buf_.data(), n);
  }
  if (ec) {
    if (ec == asio::error::eof && state_ == state::open) {
      // A last line without its newline still counts (e.g. `printf '...' | nc`).
      if (!discarding_ && !line_.empty()) {
        deliver_line();
      }
      eof_ = true;
      if (state_ == state::open) {
        handler_.on_eof(*this);
      }
      return;
    }
    if (ec != asio::error::operation_aborted) {
      finish_close();
    }
    return;
  }
  if (state_ != state::open) {
    return;
  }
  if (over_inbound_limits()) {
    read_paused_ = true; // backpressure: resume in applied()
    return;
  }
  do_read();
}

void connection::consume(const char* data, std::size_t n) {
  stats_.bytes_in += n;
  while (n > 0 && state_ == state::open) {
    const auto* nl = static_cast<const char*>(std::memchr(data, '\n', n));
    if (discarding_) {
      if (nl == nullptr) {
        return;
      }
      const auto skip = static_cast<std::size_t>(nl - data) + 1;
      data += skip;
      n -= skip;
      discarding_ = false;
      ++unapplied_messages_;
      handler_.on_line_too_long(*this);
      continue;
    }
    if (nl == nullptr) {
      line_.append(data, n);
      // One byte of slack for a '\r' that may precede the newline.
      if (line_.size() > limits_.max_line_bytes + 1) {
        discarding_ = true;
        line_ = std::string();
      }
      return;
    }
    const auto len = static_cast<std::size_t>(nl - data);
    if (line_.size() + len > limits_.max_line_bytes + 1) {
      line_ = std::string();
      ++unapplied_messages_;
      data += len + 1;
      n -= len + 1;
      handler_.on_line_too_long(*this);
      continue;
    }
    line_.append(data, len);
    data += len + 1;
    n -= len + 1;
    deliver_line();
  }
}

void connection::deliver_line() {
  if (!line_.empty() && line_.back() == '\r') {
    line_.pop_back();
  }
  std::string line = std::move(line_);
  line_ = std::string();
  if (line.size() > limits_.max_line_bytes) {
    ++unapplied_messages_;
    handler_.on_line_too_long(*this);
    return;
  }
  if (is_blank(line)) {
    return;
  }
  ++stats_.lines_in;
  ++unapplied_messages_;
  unapplied_bytes_ += line.size();
  handler_.on_line(*this, std::move(line));
}

bool connection::over_inbound_limits() const noexcept {
  return unapplied_messages_ > limits_.max_inbound_messages ||
         unapplied_bytes_ > limits_.max_inbound_bytes;
}

void connection::applied(std::size_t bytes) {
  unapplied_messages_ -= std::min<std::size_t>(unapplied_messages_, 1);
  unapplied_bytes_ -= std::min(unapplied_bytes_, bytes);
  if (read_paused_ && !over_inbound_limits()) {
    read_paused_ = false;
    do_read();
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

connection::send_result connection::send(const shared_line& line) {
  if (state_ != state::open) {
    return send_result::closed;
  }
  if (over_budget()) {
    slow_consumer();
    return send_result::slow_consumer;
  }
  enqueue(line);
  return send_result::queued;
}

connection::send_result connection::send_frame(const shared_line& line, bool lossy) {
  if (state_ != state::open) {
    return send_result::closed;
  }
  shared_line out = line;
  if (lossy && pending_dropped_ > 0) {
    out = with_dropped(*line, pending_dropped_);
  }
  if (lossy ? !fits(out->size()) : over_budget()) {
    if (lossy) {
      ++pending_dropped_;
      ++stats_.frames_dropped;
      return send_result::dropped;
    }
    slow_consumer();
    return send_result::slow_consumer;
  }
  pending_dropped_ = 0;
  enqueue(std::move(out));
  return send_result::queued;
}

void connection::enqueue(shared_line line) {
  queued_bytes_ += line->size();
  out_.push_back(out_item{std::move(line)});
  do_write();
}

void connection::do_write() {
  if (state_ == state::closed || writing_) {
    return;
  }
  if (out_.empty()) {
    if (state_ == state::closing) {
      finish_close();
    }
    return;
  }
  // Gather several queued lines into one write; still one write in flight.
  std::vector<asio::const_buffer> buffers;
  std::size_t bytes = 0;
  for (const auto& item : out_) {
    if (buffers.size() == 64 || (bytes > 0 && bytes + item.line->size() > 1048576)) {
      break;
    }
    buffers.emplace_back(asio::buffer(*item.line));
    bytes += item.line->size();
  }
  in_flight_ = buffers.size();
  in_flight_bytes_ = bytes;
  writing_ = true;
  asio::async_write(socket_, buffers,
                    [self = shared_from_this()](const boost::system::error_code& ec,
                                                std::size_t n) { self->on_write(ec, n); });
}

void connection::on_write(const boost::system::error_code& ec, std::size_t n) {
  writing_ = false;
  if (state_ == state::closed) {
    return;
  }
  if (ec) {
    finish_close();
    return;
  }
  stats_.bytes_out += n;
  for (std::size_t i = 0; i < in_flight_ && !out_.empty(); ++i) {
    queued_bytes_ -= out_.front().line->size();
    out_.pop_front();
  }
  in_flight_ = 0;
  in_flight_bytes_ = 0;
  do_write();
}

// ---------------------------------------------------------------------------------------------
// Closing

void connection::slow_consumer() {
  if (state_ != state::open) {
    return;
  }
  // Keep only what is already being written, then a best-effort bye.
  while (out_.size() > in_flight_) {
    queued_bytes_ -= out_.back().line->size();
    out_.pop_back();
  }
  close_after(slow_consumer_bye(), close_reason::slow_consumer);
}

void connection::close_after(const shared_line& last, close_reason why) {
  if (!why_) {
    why_ = why;
  }
  if (state_ != state::open) {
    return;
  }
  state_ = state::closing;
  hello_timer_.cancel();
  if (last) {
    queued_bytes_ += last->size();
    out_.push_back(out_item{last});
  }
  linger_timer_.expires_after(limits_.linger);
  linger_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) {
      self->finish_close();
    }
  });
  do_write();
}

void connection::close_now() {
  finish_close();
}

void connection::finish_close() {
  if (state_ == state::closed) {
    return;
  }
  auto self = shared_from_this(); // the handler may drop its reference in on_closed
  state_ = state::closed;
  hello_timer_.cancel();
  linger_timer_.cancel();
  boost::system::error_code ignored;
  socket_.shutdown(socket_type::shutdown_both, ignored);
  socket_.close(ignored);
  handler_.on_closed(*this);
}

} // namespace emote::server
