// SIGINT/SIGTERM during training: the first signal asks the trainer to stop after the current step
// (it then saves a checkpoint and exits 0); a second one terminates at once, as usual.
#pragma once

namespace verlpp::trainer {

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
