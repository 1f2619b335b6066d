// The gated delta rule's decode step for a batch of sequences whose states sit in slots of the
// rollout's state tensor: verlpp's fused CUDA kernel (model::recurrent_gated_delta_rule_update on
// CUDA, kernels/delta_rule_decode.h) against the ATen composition it replaces (gather the slots,
// recurrent_gated_delta_rule_step, scatter back), same inputs, same call.
//
//   verlpp_delta_rule_decode_bench [--seqs 256] [--heads 16] [--dk 128] [--dv 128] [--iters 200]
//
// Defaults: Qwen3.5-2B's linear-attention heads (16 value heads of 128 x 128) for 256 sequences.
// Prints one JSON line: ms per step of each, the state bytes one step must read and write, the
// bandwidth each reaches on them, and the largest difference of their outputs.
#include <ATen/ATen.h>

#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "kernel_bench.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/kernels/delta_rule_decode.h"
#include "verlpp/model/layers/delta_rule.h"

namespace {

using verlpp::bench::ms_per_call;
using verlpp::bench::option;

int run(int argc, char** argv) {
  if (!verlpp::cuda_available()) throw verlpp::Error("this benchmark needs a CUDA device");
  const std::int64_t N = option(argc, argv, "--seqs", 256), H = option(argc, argv, "--heads", 16),
                     dk = option(argc, argv, "--dk", 128), dv = option(argc, argv, "--dv", 128),
                     iters = option(argc, argv, "--iters", 200);
  const auto f32 = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA);
  const at::Tensor q = at::randn({N, H, dk}, f32.dtype(at::kBFloat16));
  const at::Tensor k = at::randn({N, H, dk}, f32.dtype(at::kBFloat16));
  const at::Tensor v = at::randn({N, H, dv}, f32.dtype(at::kBFloat16));
  const at::Tensor g = -at::rand({N, H}, f32);
  const at::Tensor beta = at::rand({N, H}, f32.dtype(at::kBFloat16));
  const at::Tensor slots = at::randperm(N, f32.dtype(at::kLong));
  at::Tensor kernel_states = at::randn({N, H, dk, dv}, f32) * 0.1;
  at::Tensor aten_states = kernel_states.clone();
  if (!verlpp::kernels::can_delta_rule_decode(kernel_states)) {
    throw verlpp::Error("this build has no delta rule decode kernel");
  }
  const at::Tensor o_kernel =
      verlpp::model::recurrent_gated_delta_rule_update(q, k, v, g, beta, kernel_states, slots);
  const verlpp::model::DeltaRuleOutput step = verlpp::model::recurrent_gated_delta_rule_step(
      q, k, v, g, beta, aten_states.index_select(0, slots));
  aten_states.index_copy_(0, slots, step.final_state);
  const double max_diff = std::max((o_kernel - step.o).abs().max().item<double>(),
                                   (kernel_states - aten_states).abs().max().item<double>());
  const double kernel_ms = ms_per_call(iters, [&] {
    verlpp::model::recurrent_gated_delta_rule_update(q, k, v, g, beta, kernel_states, slots);
  });
  const double aten_ms = ms_per_call(iters, [&] {
    const verlpp::model::DeltaRuleOutput s = verlpp::model::recurrent_gated_delta_rule_step(
        q, k, v, g, beta, aten_states.index_select(0, slots));
    aten_states.index_copy_(0, slots, s.final_state);
  });
  const double state_bytes = 2.0 * static_cast<double>(N * H * dk * dv) * 4.0;  // read + write
  std::cout << nlohmann::json{{"seqs", N},
                              {"heads", H},
                              {"dk", dk},
                              {"dv", dv},
                              {"kernel_ms", kernel_ms},
                              {"aten_ms", aten_ms},
                              {"speedup", aten_ms / kernel_ms},
                              {"state_read_write_gb", state_bytes / 1e9},
                              {"kernel_state_gb_per_s", state_bytes / 1e9 / (kernel_ms / 1e3)},
                              {"max_abs_diff", max_diff}}
                   .dump()
            << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return verlpp::bench::main_of("verlpp_delta_rule_decode_bench", run, argc, argv);
}
