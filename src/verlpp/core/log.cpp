#include "verlpp/core/log.h"

#include <atomic>
#include <iostream>

namespace verlpp {
namespace {

std::atomic<int> g_rank{0};
std::atomic<int> g_world_size{1};

}  // namespace

void set_log_rank(int rank, int world_size) {
  g_rank = rank;
  g_world_size = world_size;
}

bool is_main_rank() { return g_rank == 0; }

std::string log_prefix() {
  if (g_world_size <= 1) return "verlpp";
  return "verlpp [rank " + std::to_string(g_rank) + "/" + std::to_string(g_world_size) + "]";
}

void log_line(const std::string& line) {
  // One write for the whole line: ranks share the launcher's stderr, and a line written in pieces
  // interleaves with another rank's.
  std::cerr << (log_prefix() + ": " + line + "\n") << std::flush;
}

void log_note(const std::string& message) {
  if (is_main_rank()) log_line(message);
}

void log_warning(const std::string& message) { log_line("warning: " + message); }

}  // namespace verlpp
