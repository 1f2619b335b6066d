#include "verlpp/core/input_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "verlpp/core/error.h"

namespace verlpp {

void require_regular_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    std::error_code link_ec;
    const std::filesystem::path target = std::filesystem::read_symlink(path, link_ec);
    if (!link_ec) {
      throw Error(
          fmt::format("{}: {}: a link to {}, which does not exist", path, what, target.string()));
    }
    throw Error(fmt::format("{}: {}: no such file", path, what));
  }
  if (ec) throw Error(fmt::format("{}: {}: {}", path, what, ec.message()));
  if (std::filesystem::is_directory(status)) {
    throw Error(fmt::format("{}: {} is a folder, not a file", path, what));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw Error(fmt::format("{}: {} is not a regular file (a device, pipe or socket)", path, what));
  }
}

bool nothing_at(const std::string& path) {
  std::error_code ec;
  return std::filesystem::status(path, ec).type() == std::filesystem::file_type::not_found;
}

std::string read_text_file(const std::string& path, const std::string& what) {
  require_regular_file(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open {}", path, what));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void require_not_same(const std::string& output, const std::string& output_what,
                      const std::string& input, const std::string& input_what) {
  std::error_code ec;
  if (!output.empty() && !input.empty() && std::filesystem::equivalent(output, input, ec)) {
    throw Error(fmt::format("{}: {} is {} {} (it would be overwritten); write elsewhere", output,
                            output_what, input_what, input));
  }
}

}  // namespace verlpp
