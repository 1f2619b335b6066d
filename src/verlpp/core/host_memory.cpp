#include "verlpp/core/host_memory.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "verlpp/core/error.h"

namespace verlpp {
namespace {

// /proc/meminfo's "Name:   123 kB" lines as name -> kB.
std::map<std::string, double> meminfo_fields(std::string_view text) {
  std::map<std::string, double> out;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    try {
      out[line.substr(0, colon)] = std::stod(line.substr(colon + 1));
    } catch (const std::exception&) {
      continue;  // a line without a number
    }
  }
  return out;
}

}  // namespace

std::optional<double> used_memory_bytes(std::string_view meminfo) {
  const auto fields = meminfo_fields(meminfo);
  double kb[5] = {};
  const char* names[5] = {"MemTotal", "MemFree", "Buffers", "Cached", "SReclaimable"};
  for (int i = 0; i < 5; ++i) {
    const auto it = fields.find(names[i]);
    if (it == fields.end()) return std::nullopt;
    kb[i] = it->second;
  }
  double used = kb[0] - kb[1] - kb[2] - (kb[3] + kb[4]);
  if (used < 0) used = kb[0] - kb[1];
  return used * 1024.0;
}

std::optional<double> used_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return used_memory_bytes(text.str());
}

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0.0;
  return static_cast<double>(pages) * static_cast<double>(page_size);
}

void require_host_memory(double bytes, const std::string& what) {
  const double memory = physical_memory_bytes();
  if (memory > 0 && bytes > memory) {
    throw Error(fmt::format("{} need about {:.1f} GB, more than this machine's {:.1f} GB of memory",
                            what, bytes / 1e9, memory / 1e9));
  }
}

void require_batch_memory(double rows, std::int64_t tokens, const std::string& rows_from) {
  constexpr double kBytesPerToken = 64.0;
  require_host_memory(rows * static_cast<double>(tokens) * kBytesPerToken,
                      fmt::format("{} rows of up to {} tokens", rows_from, tokens));
}

}  // namespace verlpp
