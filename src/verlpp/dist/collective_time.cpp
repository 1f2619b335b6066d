#include "verlpp/dist/collective_time.h"

#include <torch/version.h>

#include <chrono>
#include <mutex>
#include <utility>
#include <vector>

#if TORCH_VERSION_MAJOR >= 2
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#endif

namespace verlpp::dist {

namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Clock {
  std::mutex mutex;
  double seconds = 0;  // read so far
#if TORCH_VERSION_MAJOR >= 2
  // Device collectives not read yet: their (before, after) events.
  std::vector<std::pair<c10::Event, c10::Event>> events;
#endif
};

Clock& clock() {
  static Clock c;
  return c;
}

#if TORCH_VERSION_MAJOR >= 2
c10::Event recorded_event(at::Device device) {
  c10::Event event(device.type(), c10::EventFlag::BACKEND_DEFAULT);
  event.record(c10::impl::VirtualGuardImpl(device.type()).getStream(device));
  return event;
}
#endif

bool on_device(at::Device device) {
#if TORCH_VERSION_MAJOR >= 2
  return !device.is_cpu();
#else
  (void)device;
  return false;
#endif
}

}  // namespace

double collective_seconds() {
  Clock& c = clock();
  const std::lock_guard<std::mutex> lock(c.mutex);
#if TORCH_VERSION_MAJOR >= 2
  for (const auto& [before, after] : c.events) {
    after.synchronize();
    c.seconds += before.elapsedTime(after) / 1000.0;  // elapsedTime: milliseconds
  }
  c.events.clear();
#endif
  return c.seconds;
}

#if TORCH_VERSION_MAJOR >= 2
struct CollectiveTiming::DeviceStart {
  c10::Event event;
};
#else
struct CollectiveTiming::DeviceStart {};
#endif

CollectiveTiming::CollectiveTiming(at::Device device) : device_(device) {
  if (!on_device(device_)) {
    start_ns_ = now_ns();
    return;
  }
#if TORCH_VERSION_MAJOR >= 2
  device_start_ = std::make_unique<DeviceStart>(DeviceStart{recorded_event(device_)});
#endif
}

CollectiveTiming::~CollectiveTiming() {
  Clock& c = clock();
  if (!on_device(device_)) {
    const double seconds = static_cast<double>(now_ns() - start_ns_) * 1e-9;
    const std::lock_guard<std::mutex> lock(c.mutex);
    c.seconds += seconds;
    return;
  }
#if TORCH_VERSION_MAJOR >= 2
  c10::Event after = recorded_event(device_);
  const std::lock_guard<std::mutex> lock(c.mutex);
  c.events.emplace_back(std::move(device_start_->event), std::move(after));
#endif
}

}  // namespace verlpp::dist
