#include "engine/core/file_text.hpp"

#include <fstream>

namespace emote::core {

result<std::string, std::string> read_file_text(const std::filesystem::path& file,
                                                std::uintmax_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    return failure{file.string() + ": is a folder, not a file"};
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return failure{file.string() + ": cannot open"};
  }
  const auto too_large = [&] {
    return failure{file.string() + ": larger than " + std::to_string(max_bytes >> 20) + " MiB"};
  };
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (!ec && size > max_bytes) {
    return too_large();
  }
  std::string text;
  // Read in chunks up to one byte past the limit: the size may be unknown (a pipe) or grow.
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      return too_large();
    }
  }
  if (in.bad()) {
    return failure{file.string() + ": cannot read"};
  }
  return text;
}

} // namespace emote::core
