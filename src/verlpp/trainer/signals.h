// SIGINT/SIGTERM during training: the first signal asks the trainer to stop after the current step
// (it then saves a checkpoint and exits 128 + the signal's number, 130 or 143, as a shell reports a
// process the signal ended, so that `train && eval` or a scheduler does not take the interrupted
// run for a finished one); another one at least kRepeatedSignalSeconds later
// terminates at once, as usual. One arriving sooner is taken as the first one delivered twice: a
// terminal's Ctrl-C (or `kill -- -PGID`, or scancel) reaches both `verlpp launch` and its ranks,
// and the launcher forwards it to them too; GNU timeout sends it to its child and then to its
// process group. A signal the process inherited ignored stays ignored, as in Python.
#pragma once

namespace verlpp::dist {
class Communicator;
}

namespace verlpp::trainer {

inline constexpr double kRepeatedSignalSeconds = 1.0;

class StopRequest {
 public:
  // Installs the handlers; the destructor restores the previous ones unless a signal came (then
  // they stay, so that a late copy of it does not kill the run while it prints its summary).
  StopRequest();
  ~StopRequest();
  StopRequest(const StopRequest&) = delete;
  StopRequest& operator=(const StopRequest&) = delete;

  // The first SIGINT or SIGTERM received since construction; 0 when none.
  int signal() const;
  bool requested() const { return signal() != 0; }

  // The largest signal() over the ranks of `world` (an all-reduce: every rank calls it at the same
  // point of the loop), so that all of them stop after the same step with the same exit status.
  int agreed_signal(const dist::Communicator& world) const;
};

// The exit status of a run stopped by `signal` after saving (128 + signal); 0 for 0.
inline int stopped_exit_code(int signal) { return signal == 0 ? 0 : 128 + signal; }

}  // namespace verlpp::trainer
