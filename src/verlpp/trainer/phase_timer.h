// Wall-clock seconds of the trainer's phases (verl's marked_timer: timing_s/{gen, reward, ...}).
// On CUDA the device is synchronised before the clock is read, so queued kernels count.
#pragma once

#include <c10/core/Device.h>

#include <chrono>
#include <map>
#include <string>
#include <utility>

namespace verlpp::trainer {

class PhaseTimer {
 public:
  explicit PhaseTimer(const at::Device& device) : device_(device) {}

  // Runs fn and adds its seconds to phase `name`.
  template <typename Fn>
  decltype(auto) time(const std::string& name, Fn&& fn) {
    const auto start = now();
    struct Add {
      PhaseTimer* self;
      std::string name;
      std::chrono::steady_clock::time_point start;
      ~Add() { self->seconds_[name] += std::chrono::duration<double>(self->now() - start).count(); }
    } add{this, name, start};
    return std::forward<Fn>(fn)();
  }

  const std::map<std::string, double>& seconds() const { return seconds_; }
  void set(const std::string& name, double seconds) { seconds_[name] = seconds; }

 private:
  std::chrono::steady_clock::time_point now() const;

  at::Device device_;
  std::map<std::string, double> seconds_;
};

}  // namespace verlpp::trainer
