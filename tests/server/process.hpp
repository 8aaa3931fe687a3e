#pragma once
// Starting the built `emote-sim` executable from tests: fork/exec with stdout and stderr in
// files, signals, and waiting with a timeout.

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace emote::server::testing {

/// build/<preset>/server/emote-sim, found from this test executable (build/<preset>/tests/...).
inline std::filesystem::path emote_sim_exe() {
  const auto self = std::filesystem::read_symlink("/proc/self/exe");
  return self.parent_path().parent_path() / "server" / "emote-sim";
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("emote_sim_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::stringstream ss;
  ss << std::ifstream(p, std::ios::binary).rdbuf();
  return ss.str();
}

class process {
public:
  /// Start `emote-sim args...` with extra environment entries ("KEY=VALUE"); `exe` another path
  /// of the executable (a link elsewhere, which finds other folders beside it).
  process(const std::vector<std::string>& args, const std::filesystem::path& dir,
          const std::vector<std::string>& env = {},
          const std::filesystem::path& exe = emote_sim_exe())
      : out_(dir / ("out" + std::to_string(++counter()) + ".txt")),
        err_(dir / ("err" + std::to_string(counter()) + ".txt")) {
    REQUIRE_MESSAGE(std::filesystem::exists(exe), "build the emote-sim target: " << exe);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      const int o = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(o, 1);
      ::dup2(e, 2);
      for (const auto& kv : env) {
        ::putenv(const_cast<char*>(kv.c_str())); // NOLINT: the child execs right away
      }
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(exe.c_str())); // NOLINT
      for (const auto& a : args) {
        argv.push_back(const_cast<char*>(a.c_str())); // NOLINT
      }
      argv.push_back(nullptr);
      ::execv(exe.c_str(), argv.data());
      ::_exit(127);
    }
  }
  process(const process&) = delete;
  process& operator=(const process&) = delete;
  ~process() {
    if (pid_ > 0 && !status_) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }

  void signal(int sig) const { ::kill(pid_, sig); }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  /// The exit status, or nullopt when it is still running after `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!status_) {
      int st = 0;
      const pid_t r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        return std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return status_;
  }

  [[nodiscard]] std::string out() const { return read_file(out_); }
  [[nodiscard]] std::string err() const { return read_file(err_); }

  /// Wait until stderr contains `text` (e.g. a "ready" log line).
  bool wait_for_log(const std::string& text, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (err().find(text) != std::string::npos) {
        return true;
      }
      if (wait(std::chrono::milliseconds(0))) {
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  /// Run to completion: the exit status.
  static int run(const std::vector<std::string>& args, const std::filesystem::path& dir,
                 std::string* out = nullptr, std::string* err = nullptr,
                 const std::vector<std::string>& env = {}) {
    process p(args, dir, env);
    const auto st = p.wait(std::chrono::seconds(120));
    REQUIRE_MESSAGE(st.has_value(), "emote-sim did not finish");
    if (out != nullptr) {
      *out = p.out();
    }
    if (err != nullptr) {
      *err = p.err();
    }
    return *st;
  }

private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path out_;
  std::filesystem::path err_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

} // namespace emote::server::testing
