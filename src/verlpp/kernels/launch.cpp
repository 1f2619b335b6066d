#include "verlpp/kernels/launch.h"

#include <c10/cuda/CUDAStream.h>

#include <string>

#include "verlpp/core/error.h"

namespace verlpp::kernels {

ElementType element_type(at::ScalarType type) {
  return type == at::kBFloat16 ? ElementType::bf16
         : type == at::kHalf   ? ElementType::f16
                               : ElementType::f32;
}

cudaStream_t current_stream(const at::Device& device) {
  return c10::cuda::getCurrentCUDAStream(device.index()).stream();
}

void check_launch(cudaError_t status, const char* kernel) {
  if (status != cudaSuccess) {
    throw Error(std::string(kernel) + " kernel: launch failed: " + cudaGetErrorString(status));
  }
}

}  // namespace verlpp::kernels
