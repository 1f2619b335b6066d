// Device detection and selection (verl counterpart: verl/utils/device.py and
// verl/plugin/platform/).
#pragma once

#include <string>

namespace verlpp {

enum class DeviceKind { cpu, cuda, npu };

// "cpu", "cuda", "npu".
std::string device_name(DeviceKind kind);

// Parses a device name as verl's trainer.device / DEVICE / VERL_PLATFORM accept it:
// cpu; cuda, gpu, nvidia; npu, huawei. Throws verlpp::Error naming `source` for anything else.
DeviceKind parse_device(const std::string& name, const std::string& source);

// True when this build has CUDA and a CUDA device is visible.
bool cuda_available();

// The device a run uses. `requested` is trainer.device. The environment variables VERL_PLATFORM
// and DEVICE (verl's launch scripts set them) take precedence, as in verl. NPU, requested by
// either, throws verlpp::Error ("not supported by this build"). CUDA requested without a visible
// GPU falls back to CPU and writes a warning to stderr; CPU stays CPU.
DeviceKind select_device(const std::string& requested);

}  // namespace verlpp
