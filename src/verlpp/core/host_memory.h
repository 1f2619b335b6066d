// This machine's physical memory, and the check that refuses work that cannot fit in it before
// anything is allocated (a break-test's `generate --n 1000000000` and `rollout.n=100000` grew
// until the machine swapped instead of stopping with an error).
#pragma once

#include <string>

namespace verlpp {

// Bytes a rollout batch holds at least per token of its rows: the int64 ids, masks and positions
// and the fp32 per-token values (log-probs, advantages, rewards), about ten [rows, length] tensors.
inline constexpr double kBatchBytesPerToken = 64.0;

// Bytes of physical memory (sysconf); 0 when the system does not say.
double physical_memory_bytes();

// Throws verlpp::Error "WHAT need about X GB, more than this machine's Y GB of memory" when
// `bytes` exceeds physical memory; nothing when it fits or the memory is unknown.
void require_host_memory(double bytes, const std::string& what);

}  // namespace verlpp
