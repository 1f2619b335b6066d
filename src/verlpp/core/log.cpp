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

void log_note(const std::string& message) {
  if (is_main_rank()) std::cerr << log_prefix() << ": " << message << std::endl;
}

void log_warning(const std::string& message) {
  std::cerr << log_prefix() << ": warning: " << message << std::endl;
}

}  // namespace verlpp
