#include "two_ranks.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

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

LaunchEnv env_of(int rank, int port) {
  LaunchEnv env;
  env.launched = true;
  env.rank = rank;
  env.world_size = 2;
  env.local_rank = rank;
  env.local_world_size = 2;
  env.master_port = port;
  return env;
}

Communicator join(int rank, int port) {
  return Communicator::join(env_of(rank, port), at::Device(at::kCPU), std::chrono::seconds(60));
}

}  // namespace

void run_two_ranks(const Body& rank0, const Body& rank1) {
  const int port = free_port();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int status = 0;
    try {
      rank1(join(1, port));
      status = ::testing::Test::HasFailure() ? 1 : 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank 1: %s\n", e.what());
      status = 2;
    }
    _exit(status);
  }
  try {
    rank0(join(0, port));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "rank 0: " << e.what();
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "rank 1 failed, status " << status;
}

void run_both(const Body& body) { run_two_ranks(body, body); }

}  // namespace verlpp::dist::test_ranks
