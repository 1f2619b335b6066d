#include "verlpp/trainer/signals.h"

#include <csignal>
#include <ctime>

#include "verlpp/dist/communicator.h"

namespace verlpp::trainer {
namespace {

volatile std::sig_atomic_t g_stop = 0;  // the first signal received; 0 when none
timespec g_first{};  // when the first signal arrived (written by the handler only)
struct sigaction g_previous_int, g_previous_term;

double seconds_since(const timespec& then) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec - then.tv_sec) +
         1e-9 * static_cast<double>(now.tv_nsec - then.tv_nsec);
}

// Runs with SIGINT and SIGTERM blocked (sa_mask), so it never interrupts itself.
void on_signal(int signal) {
  if (g_stop == 0) {
    clock_gettime(CLOCK_MONOTONIC, &g_first);
    g_stop = signal;
    return;
  }
  if (seconds_since(g_first) < kRepeatedSignalSeconds) return;
  struct sigaction deflt {};
  deflt.sa_handler = SIG_DFL;
  sigaction(signal, &deflt, nullptr);
  raise(signal);
}

// Installs on_signal for `signal` unless the process inherited it ignored (a `nohup`-like parent,
// a shell's background job, `trap '' TERM`): that stays ignored, as Python leaves it.
void install(int signal, struct sigaction& previous) {
  sigaction(signal, nullptr, &previous);
  if (previous.sa_handler == SIG_IGN) return;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(signal, &action, nullptr);
}

}  // namespace

StopRequest::StopRequest() {
  g_stop = 0;
  install(SIGINT, g_previous_int);
  install(SIGTERM, g_previous_term);
}

// After a stop request the handlers stay: the second copy of the same Ctrl-C (from the launcher,
// GNU timeout, the terminal) may arrive after the loop ended, while the run prints its summary and
// plot; a signal a second or more later still ends the process at once.
StopRequest::~StopRequest() {
  if (g_stop != 0) return;
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

int StopRequest::signal() const { return g_stop; }

int StopRequest::agreed_signal(const dist::Communicator& world) const {
  return static_cast<int>(world.all_reduce(static_cast<double>(signal()), dist::ReduceOp::max));
}

}  // namespace verlpp::trainer
