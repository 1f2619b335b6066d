// SIGINT/SIGTERM during training: the first signal asks the trainer to stop after the current step
// (it then saves a checkpoint and exits 0); another one at least kRepeatedSignalSeconds later
// terminates at once, as usual. One arriving sooner is taken as the first one delivered twice: a
// terminal's Ctrl-C (or `kill -- -PGID`, or scancel) reaches both `verlpp launch` and its ranks,
// and the launcher forwards it to them too; GNU timeout sends it to its child and then to its
// process group.
#pragma once

namespace verlpp::trainer {

inline constexpr double kRepeatedSignalSeconds = 1.0;

class StopRequest {
 public:
  // Installs the handlers; the destructor restores the previous ones.
  StopRequest();
  ~StopRequest();
  StopRequest(const StopRequest&) = delete;
  StopRequest& operator=(const StopRequest&) = delete;

  // True once SIGINT or SIGTERM arrived since construction.
  bool requested() const;
};

}  // namespace verlpp::trainer
