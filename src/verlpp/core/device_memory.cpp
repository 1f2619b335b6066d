#include "verlpp/core/device_memory.h"

#ifdef VERLPP_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace verlpp {

std::optional<double> device_memory_allocated([[maybe_unused]] const c10::Device& device) {
#ifdef VERLPP_TORCH_CUDA
  if (device.is_cuda()) {
    const auto index = device.has_index() ? device.index() : c10::DeviceIndex{0};
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
    return static_cast<double>(stats.allocated_bytes[0].current);
  }
#endif
  return std::nullopt;
}

std::optional<DeviceMemoryPeak> device_memory_peak([[maybe_unused]] const c10::Device& device) {
#ifdef VERLPP_TORCH_CUDA
  if (device.is_cuda()) {
    const auto index = device.has_index() ? device.index() : c10::DeviceIndex{0};
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    return DeviceMemoryPeak{static_cast<double>(stats.allocated_bytes[0].peak) / kGiB,
                            static_cast<double>(stats.reserved_bytes[0].peak) / kGiB};
  }
#endif
  return std::nullopt;
}

void reset_device_memory_peak([[maybe_unused]] const c10::Device& device) {
#ifdef VERLPP_TORCH_CUDA
  if (device.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.has_index() ? device.index()
                                                                       : c10::DeviceIndex{0});
  }
#endif
}

void release_cached_device_memory([[maybe_unused]] const c10::Device& device) {
#ifdef VERLPP_TORCH_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

}  // namespace verlpp
