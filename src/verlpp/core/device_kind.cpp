#include "verlpp/core/device_kind.h"

#include <cstdlib>
#include <optional>

#include "verlpp/core/error.h"

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

namespace {

std::optional<DeviceKind> device_of(const std::string& name) {
  if (name == "cpu") return DeviceKind::cpu;
  if (name == "cuda" || name == "gpu" || name == "nvidia") return DeviceKind::cuda;
  if (name == "npu" || name == "huawei") return DeviceKind::npu;
  return std::nullopt;
}

}  // namespace

bool is_device_name(const std::string& name) { return device_of(name).has_value(); }

DeviceKind parse_device(const std::string& name, const std::string& source) {
  const std::optional<DeviceKind> kind = device_of(name);
  if (!kind) throw Error(source + "=" + name + ": unknown device; expected " + kDeviceNames);
  return *kind;
}

DeviceRequest requested_device(const std::string& requested, const std::string& source) {
  for (const char* var : {"VERL_PLATFORM", "DEVICE"}) {
    const char* value = std::getenv(var);
    if (value != nullptr && *value != '\0') return {value, var};
  }
  return {requested, source};
}

}  // namespace verlpp
