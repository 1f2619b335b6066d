// LibTorch binding of the chunked delta rule's scan (delta_rule_scan_kernel.h): checks the tensors
// and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and the scan takes `state` [seqs, heads, dk, dv]
// (a contiguous fp32 CUDA tensor, dk <= 256) with chunks of `chunk` <= 64 tokens.
bool can_delta_rule_scan(const at::Tensor& state, int64_t chunk);

// The scan of delta_rule_scan_kernel.h. base [chunks, heads, C, dv], a1, a2 [chunks, heads, C, dk],
// add [chunks, heads, dk, dv] or undefined, decay [chunks, heads], all contiguous fp32 on the
// state's device; step_offsets [steps] and chunk_counts [seqs] int64 there (DeltaRuleLayout's
// scan_offsets and scan_counts). `state` is updated in place (start -> end). Returns {before
// [chunks, heads, dk, dv], x [chunks, heads, C, dv]}. Throws verlpp::Error when
// can_delta_rule_scan is false or a tensor disagrees.
struct DeltaRuleScanResult {
  at::Tensor before, x;
};
DeltaRuleScanResult delta_rule_scan(const at::Tensor& base, const at::Tensor& a1,
                                    const at::Tensor& a2, const at::Tensor& add,
                                    const at::Tensor& decay, at::Tensor& state,
                                    const at::Tensor& step_offsets, const at::Tensor& chunk_counts,
                                    double sign1, double sign2, bool reverse);

}  // namespace verlpp::kernels
