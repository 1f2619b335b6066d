// The name of a CUDA device as torch.cuda.get_device_name() reports it ("NVIDIA H200"), read
// through the CUDA driver API (libcuda.so.1, cuDeviceGetName) so that the same code builds against
// CPU-only and CUDA LibTorch. Used for verl's MFU table (trainer/flops.h).
#pragma once

#include <string>

namespace verlpp {

// The device's name; "" when no CUDA driver or device is present.
std::string cuda_device_name(int index = 0);

}  // namespace verlpp
