#include "verlpp/trainer/signals.h"

#include <csignal>

namespace verlpp::trainer {
namespace {

volatile std::sig_atomic_t g_stop = 0;
struct sigaction g_previous_int, g_previous_term;

void on_signal(int signal) {
  g_stop = 1;
  // A second signal gets the default action (terminate).
  struct sigaction deflt {};
  deflt.sa_handler = SIG_DFL;
  sigaction(signal, &deflt, nullptr);
}

}  // namespace

StopRequest::StopRequest() {
  g_stop = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

StopRequest::~StopRequest() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

bool StopRequest::requested() const { return g_stop != 0; }

}  // namespace verlpp::trainer
