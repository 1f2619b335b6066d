#include "verlpp/core/gpu_name.h"

#include <dlfcn.h>

namespace verlpp {

namespace {

// Calls `query(device, lib)` with the driver initialised and device `index` found; false when the
// driver, a symbol or the device is missing.
template <typename Query>
bool with_device(int index, Query query) {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return false;
  using InitFn = int (*)(unsigned);
  using GetFn = int (*)(int*, int);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto get = reinterpret_cast<GetFn>(dlsym(lib, "cuDeviceGet"));
  int device = 0;
  const bool ok = init != nullptr && get != nullptr && init(0) == 0 && get(&device, index) == 0 &&
                  query(device, lib);
  dlclose(lib);
  return ok;
}

}  // namespace

std::string cuda_device_name(int index) {
  char buffer[256] = {};
  const bool ok = with_device(index, [&](int device, void* lib) {
    using NameFn = int (*)(char*, int, int);
    auto name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
    return name != nullptr && name(buffer, sizeof(buffer), device) == 0;
  });
  return ok ? std::string(buffer) : std::string();
}

std::size_t cuda_device_total_memory(int index) {
  std::size_t bytes = 0;
  const bool ok = with_device(index, [&](int device, void* lib) {
    using TotalFn = int (*)(std::size_t*, int);
    auto total = reinterpret_cast<TotalFn>(dlsym(lib, "cuDeviceTotalMem_v2"));
    return total != nullptr && total(&bytes, device) == 0;
  });
  return ok ? bytes : 0;
}

}  // namespace verlpp
