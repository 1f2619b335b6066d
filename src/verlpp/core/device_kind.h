// Device names as verl's launch settings give them (trainer.device, DEVICE, VERL_PLATFORM; verl
// counterpart: verl/utils/device.py): torch-free, so that `verlpp check` validates them with the
// rules a run applies (device.h selects the device a run uses).
#pragma once

#include <string>

namespace verlpp {

enum class DeviceKind { cpu, cuda, npu };

// "cpu", "cuda", "npu".
std::string device_name(DeviceKind kind);

// The names parse_device takes, as its error lists them.
inline constexpr const char* kDeviceNames = "cpu, cuda (gpu, nvidia) or npu (huawei)";

// True for a name parse_device takes.
bool is_device_name(const std::string& name);

// Parses a device name as verl's trainer.device / DEVICE / VERL_PLATFORM accept it:
// cpu; cuda, gpu, nvidia; npu, huawei. Throws verlpp::Error naming `source` for anything else.
DeviceKind parse_device(const std::string& name, const std::string& source);

// The device name a run asks for and where it comes from: the first of the environment variables
// VERL_PLATFORM, DEVICE that is set (verl's launch scripts set them; they take precedence, as in
// verl), else `requested`, named `source` (trainer.device, or a command's --device).
struct DeviceRequest {
  std::string name, source;
};
DeviceRequest requested_device(const std::string& requested,
                               const std::string& source = "trainer.device");

}  // namespace verlpp
