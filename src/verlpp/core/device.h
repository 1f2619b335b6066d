// Device detection and selection (verl counterpart: verl/utils/device.py and
// verl/plugin/platform/).
#pragma once

#include <string>

#include "verlpp/core/device_kind.h"

namespace verlpp {

// True when this build has CUDA and a CUDA device is visible.
bool cuda_available();

// The device a run uses. `requested` is trainer.device or a command's --device, named `source` in
// messages. The environment variables VERL_PLATFORM and DEVICE (verl's launch scripts set them)
// take precedence, as in verl. NPU, requested by either, throws verlpp::Error ("not supported by
// this build"). CUDA requested without a visible GPU falls back to CPU and writes a warning to
// stderr; CPU stays CPU.
DeviceKind select_device(const std::string& requested,
                         const std::string& source = "trainer.device");

}  // namespace verlpp
