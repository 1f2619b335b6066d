#include "verlpp/core/gpu_name.h"

#include <dlfcn.h>

namespace verlpp {

std::string cuda_device_name(int index) {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return "";
  using InitFn = int (*)(unsigned);
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto get = reinterpret_cast<GetFn>(dlsym(lib, "cuDeviceGet"));
  auto name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
  std::string out;
  int device = 0;
  char buffer[256] = {};
  if (init != nullptr && get != nullptr && name != nullptr && init(0) == 0 &&
      get(&device, index) == 0 && name(buffer, sizeof(buffer), device) == 0) {
    out = buffer;
  }
  dlclose(lib);
  return out;
}

}  // namespace verlpp
