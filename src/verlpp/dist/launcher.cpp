#include "verlpp/dist/launcher.h"

#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <thread>

#include "verlpp/core/error.h"

namespace verlpp::dist {
namespace {

constexpr int kDefaultPort = 29500;
volatile sig_atomic_t g_signal = 0;    // the last SIGINT/SIGTERM received
volatile sig_atomic_t g_received = 0;  // how many were received

void remember_signal(int signal) {
  g_signal = signal;
  g_received = g_received + 1;
}

// A socket bound to addr:port (0: any free port), or -1 with errno set.
int bind_socket(const std::string& addr, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(addr.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) {
    throw Error(fmt::format("--master-addr {}: cannot resolve this address", addr));
  }
  int fd = -1;
  int error = 0;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
      error = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) errno = error;
  return fd;
}

int free_port(const std::string& addr) {
  const int fd = bind_socket(addr, 0);
  if (fd < 0) throw Error(fmt::format("cannot find a free port on {}", addr));
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  close(fd);
  const auto* in4 = reinterpret_cast<const sockaddr_in*>(&bound);
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&bound);
  return ntohs(bound.ss_family == AF_INET6 ? in6->sin6_port : in4->sin_port);
}

std::map<std::string, std::string> rank_environment(const LaunchOptions& o, int port,
                                                    int local_rank) {
  const int world = o.nnodes * o.nproc_per_node;
  std::map<std::string, std::string> env = {
      {"RANK", std::to_string(o.node_rank * o.nproc_per_node + local_rank)},
      {"WORLD_SIZE", std::to_string(world)},
      {"LOCAL_RANK", std::to_string(local_rank)},
      {"LOCAL_WORLD_SIZE", std::to_string(o.nproc_per_node)},
      {"GROUP_RANK", std::to_string(o.node_rank)},
      {"MASTER_ADDR", o.master_addr},
      {"MASTER_PORT", std::to_string(port)},
      {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"},
      {"VERLPP_LAUNCH", "1"}};
  if (std::getenv("OMP_NUM_THREADS") == nullptr) {
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    env["OMP_NUM_THREADS"] = std::to_string(std::max<long>(1, cores / o.nproc_per_node));
  }
  return env;
}

pid_t spawn(const std::string& program, const std::vector<std::string>& arguments,
            const std::map<std::string, std::string>& env) {
  const pid_t launcher = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw Error(fmt::format("verlpp launch: fork failed: {}", std::strerror(errno)));
  if (pid > 0) return pid;
  // A rank outlives no launcher (bt12: after `kill -9` of the launcher the ranks trained on as
  // orphans): its end reaches the rank as SIGTERM, which stops a trainer after the step with a
  // checkpoint; a launcher already gone before this line means the same.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != launcher) _exit(128 + SIGTERM);
  for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(program.c_str(), argv.data());
  std::cerr << "verlpp launch: cannot run " << program << ": " << std::strerror(errno) << "\n";
  _exit(127);
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) {
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  }
  return fmt::format("exited with code {}", WEXITSTATUS(status));
}

int exit_code(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// A rank that exited (not died) with 130 or 143: verlpp's trainers stop so after a SIGINT/SIGTERM
// (from the launcher or sent to the rank itself), having saved (trainer/signals.h).
bool stopped_by_request(int status) {
  return WIFEXITED(status) &&
         (WEXITSTATUS(status) == 128 + SIGINT || WEXITSTATUS(status) == 128 + SIGTERM);
}

// Waits for every rank; after the first failure, stops the rest (see launcher.h).
int supervise(std::map<pid_t, int> ranks, std::chrono::milliseconds grace) {
  using Clock = std::chrono::steady_clock;
  int result = 0;
  bool failed = false;  // a rank failed (not counting a trainer's stop after a signal)
  int forwarded = 0;    // how many of the received signals were passed on
  int escalation = 0;   // signals sent after a failure: 0, SIGTERM, SIGKILL
  Clock::time_point failed_at;
  const auto send_all = [&](int signal) {
    for (const auto& [pid, rank] : ranks) kill(pid, signal);
  };
  while (!ranks.empty()) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && ranks.count(pid)) {
      const int rank = ranks.at(pid);
      ranks.erase(pid);
      const int code = exit_code(status);
      if (code != 0 && result == 0) result = code;
      if (code != 0 && !failed && !stopped_by_request(status)) {
        failed = true;
        result = code;
        failed_at = Clock::now();
        std::cerr << fmt::format("verlpp launch: rank {} (pid {}) {}{}\n", rank, pid,
                                 describe(status),
                                 ranks.empty() ? "" : "; stopping the other ranks");
      }
      continue;
    }
    if (forwarded != g_received) {
      forwarded = g_received;
      send_all(g_signal);
    }
    if (failed && escalation != SIGKILL && Clock::now() - failed_at > grace) {
      escalation = escalation == 0 ? SIGTERM : SIGKILL;
      send_all(escalation);
      failed_at = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return result;
}

}  // namespace

void check_launch_options(const LaunchOptions& o) {
  if (o.nproc_per_node < 1) throw Error("--nproc-per-node: expected at least 1");
  if (o.nnodes < 1) throw Error("--nnodes: expected at least 1");
  if (o.node_rank < 0 || o.node_rank >= o.nnodes) {
    throw Error(fmt::format("--node-rank {} is outside [0, --nnodes {})", o.node_rank, o.nnodes));
  }
  if (o.master_port && (*o.master_port < 1 || *o.master_port > 65535)) {
    throw Error(fmt::format("--master-port {}: expected a port in [1, 65535]", *o.master_port));
  }
  if (o.node_rank == 0 && o.master_port) {
    const int fd = bind_socket(o.master_addr, *o.master_port);
    if (fd < 0) {
      throw Error(
          fmt::format("--master-port {} on {} is taken by another process ({}); choose a free port",
                      *o.master_port, o.master_addr, std::strerror(errno)));
    }
    close(fd);
  }
}

int launch_local_ranks(const LaunchOptions& options, const std::string& program,
                       const std::vector<std::string>& arguments) {
  check_launch_options(options);
  const int port = options.master_port.value_or(options.nnodes == 1 ? free_port(options.master_addr)
                                                                    : kDefaultPort);
  struct sigaction action {};
  action.sa_handler = remember_signal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::map<pid_t, int> ranks;
  for (int local = 0; local < options.nproc_per_node; ++local) {
    const auto env = rank_environment(options, port, local);
    ranks[spawn(program, arguments, env)] = std::stoi(env.at("RANK"));
  }
  if (options.nnodes > 1) {  // a break-test's node 0 waited for a node that never came, silently
    std::cerr << fmt::format(
        "verlpp launch: node {} of {} started ranks {}-{}; they wait at {}:{} for the {} ranks "
        "of the other nodes (up to the run's rendezvous timeout, actor_rollout_ref.nccl_timeout "
        "for ppo)\n",
        options.node_rank, options.nnodes, options.node_rank * options.nproc_per_node,
        (options.node_rank + 1) * options.nproc_per_node - 1, options.master_addr, port,
        (options.nnodes - 1) * options.nproc_per_node);
  }
  return supervise(std::move(ranks), options.grace);
}

}  // namespace verlpp::dist
