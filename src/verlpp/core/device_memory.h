// Peak memory of the CUDA caching allocator, for verl's perf/max_memory_allocated_gb and
// perf/max_memory_reserved_gb (verl fsdp_workers: torch.cuda.max_memory_allocated() / 2**30 after
// the actor update; the peak since the process started, never reset). Needs LibTorch's CUDA
// libraries at build time (VERLPP_TORCH_CUDA, set when libc10_cuda is found).
#pragma once

#include <c10/core/Device.h>

#include <optional>

namespace verlpp {

struct DeviceMemoryPeak {
  double max_allocated_gib = 0, max_reserved_gib = 0;  // GiB (2^30 bytes)
};

// Bytes the caching allocator holds allocated now on a CUDA device (torch.cuda.memory_allocated());
// nullopt for other devices or a build without CUDA libraries.
std::optional<double> device_memory_allocated(const c10::Device& device);

// The peaks for a CUDA device; nullopt for other devices or a build without CUDA libraries.
std::optional<DeviceMemoryPeak> device_memory_peak(const c10::Device& device);

// Starts the peaks over from the memory allocated now (torch.cuda.reset_peak_memory_stats), for
// benchmarks that report each phase's peak. No-op where device_memory_peak is nullopt.
void reset_device_memory_peak(const c10::Device& device);

// Returns the caching allocator's unused blocks to the driver (torch.cuda.empty_cache(), which
// verl's rollout sharding managers call when generation hands the GPU back to training), so that
// the KV cache's blocks and the update's do not both stay reserved. No-op for other devices or a
// build without CUDA libraries.
void release_cached_device_memory(const c10::Device& device);

}  // namespace verlpp
