#include "verlpp/core/host_memory.h"

#include <fmt/format.h>
#include <unistd.h>

#include "verlpp/core/error.h"

namespace verlpp {

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
