#include "verlpp/core/generator.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

namespace verlpp {

at::Generator make_generator(const at::Device& device, std::uint64_t seed) {
  at::Generator gen;
  if (device.is_cpu()) {
    gen = at::detail::createCPUGenerator(seed);
  } else {
    gen = at::globalContext().defaultGenerator(device).clone();
    gen.set_current_seed(seed);
  }
  return gen;
}

}  // namespace verlpp
