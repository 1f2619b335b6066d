// perf/cpu_memory_used_gb's source: psutil.virtual_memory().used from /proc/meminfo's fields.
#include "verlpp/core/host_memory.h"

#include <gtest/gtest.h>

namespace verlpp {
namespace {

TEST(HostMemory, UsedAsPsutilCountsIt) {
  // 16,000,000 kB - 4,000,000 free - 500,000 buffers - (3,000,000 cached + 200,000 reclaimable
  // slab) = 8,300,000 kB.
  const char* meminfo =
      "MemTotal:       16000000 kB\nMemFree:         4000000 kB\nMemAvailable:    9000000 kB\n"
      "Buffers:          500000 kB\nCached:          3000000 kB\nSwapCached:            0 kB\n"
      "SReclaimable:     200000 kB\nHugePages_Total:       0\n";
  EXPECT_EQ(used_memory_bytes(meminfo), 8300000.0 * 1024);
  // Caches counted above what is not free: psutil falls back to total - free.
  EXPECT_EQ(used_memory_bytes("MemTotal: 100 kB\nMemFree: 40 kB\nBuffers: 30 kB\nCached: 50 kB\n"
                              "SReclaimable: 10 kB\n"),
            60.0 * 1024);
  EXPECT_EQ(used_memory_bytes("MemTotal: 100 kB\n"), std::nullopt);
  const auto here = used_memory_bytes();
  if (here) {
    EXPECT_GT(*here, 0.0);
  }
}

}  // namespace
}  // namespace verlpp
