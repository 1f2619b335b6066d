// The time this process's collectives took (issue 21's timing_s/collectives): every
// Communicator collective, in every group, is measured as it runs.
//   CPU (Gloo): wall-clock seconds from the call to its return (Gloo's collectives are done then).
//   CUDA (NCCL): the time between two device events on the calling stream, one recorded before
//   the collective is queued and one after the stream was made to wait for it: how long the
//   collective held the stream's compute back (all of the collective's time, as verlpp's sharded
//   training does not overlap collectives with compute). Read lazily: collective_seconds() waits
//   for the events it has not read yet.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <memory>

namespace verlpp::dist {

// Seconds spent in collectives since the process started (monotone). On CUDA, waits for the
// collectives already queued.
double collective_seconds();

// Measures one collective on `device` from construction to destruction (Communicator's use).
class CollectiveTiming {
 public:
  explicit CollectiveTiming(at::Device device);
  ~CollectiveTiming();
  CollectiveTiming(const CollectiveTiming&) = delete;
  CollectiveTiming& operator=(const CollectiveTiming&) = delete;

 private:
  struct DeviceStart;  // the event recorded before the collective
  at::Device device_;
  std::int64_t start_ns_ = 0;  // CPU: steady clock
  std::unique_ptr<DeviceStart> device_start_;
};

}  // namespace verlpp::dist
