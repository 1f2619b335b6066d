// Seeded random generators on any device.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/Device.h>

#include <cstdint>

namespace verlpp {

// A generator on `device` seeded with `seed` (CPU: a new one; CUDA: a seeded clone of the
// device's default generator, so the default generator is untouched).
at::Generator make_generator(const at::Device& device, std::uint64_t seed);

}  // namespace verlpp
