// core::read_file_text: the one whole-file read of the tools.

#include "engine/core/file_text.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using emote::core::read_file_text;

namespace {

struct scratch_dir {
  fs::path path;
  scratch_dir() {
    path = fs::temp_directory_path() /
           ("emote-file-text-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

} // namespace

TEST_CASE("read_file_text: every byte, NULs and a file past one read buffer included") {
  scratch_dir dir;
  std::string bytes("a\0b\r\n", 5);
  bytes += std::string(200'000, 'x');
  write(dir.path / "f", bytes);
  const auto got = read_file_text(dir.path / "f");
  REQUIRE(got);
  CHECK(*got == bytes);
  write(dir.path / "empty", "");
  CHECK(read_file_text(dir.path / "empty").value() == "");
}

TEST_CASE("read_file_text: errors name the file and what failed") {
  scratch_dir dir;
  const fs::path missing = dir.path / "missing.json";
  auto r = read_file_text(missing);
  REQUIRE_FALSE(r);
  CHECK(r.error() == missing.string() + ": cannot open");
  r = read_file_text(dir.path);
  REQUIRE_FALSE(r);
  CHECK(r.error() == dir.path.string() + ": is a folder, not a file");
  write(dir.path / "big", std::string((std::size_t{1} << 20) + 1, 'y'));
  r = read_file_text(dir.path / "big", std::uintmax_t{1} << 20);
  REQUIRE_FALSE(r);
  CHECK(r.error() == (dir.path / "big").string() + ": larger than 1 MiB");
  CHECK(read_file_text(dir.path / "big", std::uintmax_t{2} << 20));
}
