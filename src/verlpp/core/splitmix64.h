// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
// well-mixed 64-bit values from (seed, counter), for seeds derived per step and per row.
#pragma once

#include <cstdint>

namespace verlpp {

inline constexpr std::uint64_t kSplitmix64Golden = 0x9E3779B97F4A7C15ULL;

// splitmix64's output function of seed·golden + counter (modulo 2^64).
constexpr std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t counter) {
  std::uint64_t z = seed * kSplitmix64Golden + counter;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace verlpp
