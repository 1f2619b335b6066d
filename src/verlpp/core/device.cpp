#include "verlpp/core/device.h"

#include <torch/cuda.h>

#include "verlpp/core/error.h"
#include "verlpp/core/log.h"

namespace verlpp {

bool cuda_available() { return torch::cuda::is_available(); }

DeviceKind select_device(const std::string& requested, const std::string& key) {
  const auto [name, source] = requested_device(requested, key);
  const DeviceKind kind = parse_device(name, source);
  if (kind == DeviceKind::npu) {
    throw Error(source + "=" + name +
                ": Ascend NPU is not supported by this build of verlpp (CUDA and CPU are); "
                "`verlpp check` still validates NPU launch configurations");
  }
  if (kind == DeviceKind::cuda && !cuda_available()) {
    log_warning(source + "=" + name +
                " but no CUDA device is available to this build; running on cpu");
    return DeviceKind::cpu;
  }
  return kind;
}

}  // namespace verlpp
