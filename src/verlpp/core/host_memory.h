// This machine's physical memory, and the check that refuses work that cannot fit in it before
// anything is allocated (a break-test's `generate --n 1000000000` and `rollout.n=100000` grew
// until the machine swapped instead of stopping with an error).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace verlpp {

// Bytes of physical memory (sysconf); 0 when the system does not say.
double physical_memory_bytes();

// Memory in use on the machine as psutil.virtual_memory().used counts it on Linux (verl's
// perf/cpu_memory_used_gb): MemTotal - MemFree - Buffers - (Cached + SReclaimable), or
// MemTotal - MemFree when that is negative, in bytes, from /proc/meminfo's text (kB values).
// nullopt when a field is missing.
std::optional<double> used_memory_bytes(std::string_view meminfo);
// The same for this machine now; nullopt without /proc/meminfo.
std::optional<double> used_memory_bytes();

// Throws verlpp::Error "WHAT need about X GB, more than this machine's Y GB of memory" when
// `bytes` exceeds physical memory; nothing when it fits or the memory is unknown.
void require_host_memory(double bytes, const std::string& what);

// require_host_memory for a rollout batch of `rows` rows of up to `tokens` tokens, at 64 bytes a
// token at least (the int64 ids, masks and positions and the fp32 per-token values: log-probs,
// advantages, rewards; about ten [rows, length] tensors). `rows_from` says where the row count
// comes from ("--batch-size 64 × --n 8"); the error reads "ROWS_FROM rows of up to TOKENS tokens
// need about ...".
void require_batch_memory(double rows, std::int64_t tokens, const std::string& rows_from);

}  // namespace verlpp
