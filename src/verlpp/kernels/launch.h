// What every kernel binding does around a launch, in builds with verlpp's CUDA kernels
// (VERLPP_CUDA_KERNELS; include it only there): the element type of a model-dtype tensor, the
// current CUDA stream of a device, and the one-line error of a failed launch.
#pragma once

#include <ATen/core/Tensor.h>
#include <cuda_runtime_api.h>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

// bf16 and fp16 as themselves, anything else as fp32.
ElementType element_type(at::ScalarType type);

// The stream LibTorch's current CUDA stream of `device` wraps.
cudaStream_t current_stream(const at::Device& device);

// Throws verlpp::Error "KERNEL kernel: launch failed: REASON" unless status is cudaSuccess.
void check_launch(cudaError_t status, const char* kernel);

}  // namespace verlpp::kernels
