#include "two_ranks.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <vector>

namespace verlpp::dist::test_ranks {
namespace {

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t length = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  close(fd);
  return ntohs(addr.sin_port);
}

LaunchEnv env_of(int rank, int world, int port) {
  LaunchEnv env;
  env.launched = true;
  env.rank = rank;
  env.world_size = world;
  env.local_rank = rank;
  env.local_world_size = world;
  env.master_port = port;
  return env;
}

Communicator join(int rank, int world, int port) {
  return Communicator::join(env_of(rank, world, port), at::Device(at::kCPU),
                            std::chrono::seconds(60));
}

// Rank `rank`'s body in a child process, which exits non-zero on a failed expectation or an
// exception.
pid_t fork_rank(int rank, int world, int port, const Body& body) {
  const pid_t child = fork();
  if (child != 0) return child;
  int status = 0;
  try {
    body(join(rank, world, port));
    status = ::testing::Test::HasFailure() ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    status = 2;
  }
  _exit(status);
}

void run(int world, const Body& rank0, const Body& others) {
  const int port = free_port();
  std::vector<pid_t> children;
  for (int rank = 1; rank < world; ++rank) {
    children.push_back(fork_rank(rank, world, port, others));
    ASSERT_GE(children.back(), 0);
  }
  try {
    rank0(join(0, world, port));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "rank 0: " << e.what();
  }
  for (std::size_t i = 0; i < children.size(); ++i) {
    int status = 0;
    waitpid(children[i], &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "rank " << i + 1 << " failed, status " << status;
  }
}

}  // namespace

void run_two_ranks(const Body& rank0, const Body& rank1) { run(2, rank0, rank1); }

void run_both(const Body& body) { run(2, body, body); }

void run_ranks(int world, const Body& body) { run(world, body, body); }

}  // namespace verlpp::dist::test_ranks
