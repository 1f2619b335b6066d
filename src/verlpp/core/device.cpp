#include "verlpp/core/device.h"

#include <torch/cuda.h>

#include <cstdlib>

#include "verlpp/core/error.h"
#include "verlpp/core/log.h"

namespace verlpp {

std::string device_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::cpu:
      return "cpu";
    case DeviceKind::cuda:
      return "cuda";
    case DeviceKind::npu:
      return "npu";
  }
  return "cpu";
}

DeviceKind parse_device(const std::string& name, const std::string& source) {
  if (name == "cpu") return DeviceKind::cpu;
  if (name == "cuda" || name == "gpu" || name == "nvidia") return DeviceKind::cuda;
  if (name == "npu" || name == "huawei") return DeviceKind::npu;
  throw Error(source + "=" + name +
              ": unknown device; expected cpu, cuda (gpu, nvidia) or npu (huawei)");
}

bool cuda_available() { return torch::cuda::is_available(); }

namespace {

// The first of VERL_PLATFORM, DEVICE that is set, else trainer.device.
std::pair<std::string, std::string> requested_device(const std::string& trainer_device) {
  for (const char* var : {"VERL_PLATFORM", "DEVICE"}) {
    const char* value = std::getenv(var);
    if (value != nullptr && *value != '\0') return {value, var};
  }
  return {trainer_device, "trainer.device"};
}

}  // namespace

DeviceKind select_device(const std::string& trainer_device) {
  const auto [name, source] = requested_device(trainer_device);
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
