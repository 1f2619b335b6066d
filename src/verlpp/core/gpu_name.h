// The name and memory of a CUDA device as torch.cuda reports them, read through the CUDA driver API
// (libcuda.so.1: cuDeviceGetName, cuDeviceTotalMem) so that the same code builds against CPU-only
// and CUDA LibTorch. The name is for verl's MFU table (trainer/flops.h), the memory for
// rollout.gpu_memory_utilization (rollout/engine.h).
#pragma once

#include <cstddef>
#include <string>

namespace verlpp {

// The device's name; "" when no CUDA driver or device is present.
std::string cuda_device_name(int index = 0);

// The device's total memory in bytes (torch.cuda.get_device_properties().total_memory); 0 when no
// CUDA driver or device is present.
std::size_t cuda_device_total_memory(int index = 0);

}  // namespace verlpp
