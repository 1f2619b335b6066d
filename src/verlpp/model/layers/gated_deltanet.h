// Gated DeltaNet, Qwen3.5's linear attention (transformers' Qwen3_5GatedDeltaNet; models.md §3),
// on the output h of the layer's input norm:
//   c = h W_qkv^T, z = h W_z^T, b = h W_b^T, a = h W_a^T                 (model dtype)
//   c' = silu(causal depthwise conv of c, K taps, zero left context)   (as nn.Conv1d: weight dtype)
//   [q | k | v] = c' split Kd, Kd, Vd; q, k repeated Hv / Hk times per key head (contiguous groups)
//   beta = sigmoid(b) (model dtype), g = -exp(A_log) * softplus(a + dt_bias) (fp32)
//   o = gated delta rule (delta_rule.h), cast to the model dtype
//   out = out_proj(gated_rms_norm(o, z, norm) per value head)
// Padded batches zero the padding rows of h first (transformers' recurrent mask). Every sequence
// of a packed batch starts with an empty conv window and a zero state.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "verlpp/model/layers/layer_context.h"
#include "verlpp/model/layers/linear.h"
#include "verlpp/model/model_config.h"

namespace verlpp::model {

class WeightTable;

struct GatedDeltaNetWeights {
  Linear in_proj_qkv;  // [2 Kd + Vd, hidden]: q, k, v channels, each head-major
  Linear in_proj_z;    // [Vd, hidden]
  Linear in_proj_b;    // [Hv, hidden]
  Linear in_proj_a;    // [Hv, hidden]
  at::Tensor conv1d;   // [2 Kd + Vd, 1, K], no bias
  at::Tensor dt_bias;  // [Hv]
  at::Tensor A_log;    // [Hv]
  at::Tensor norm;     // [dv], the gated norm's plain weight (init 1)
  Linear out_proj;     // [hidden, Vd]
};

// Declares PREFIX{in_proj_qkv,in_proj_z,in_proj_b,in_proj_a}.weight, conv1d.weight, dt_bias,
// A_log, norm.weight and out_proj.weight.
void declare_gated_deltanet(WeightTable& table, const std::string& prefix, int64_t layer,
                            GatedDeltaNetWeights& w, const ModelConfig& config);

// The GenerationStateView slot state of one such layer.
LayerStateSpec gated_deltanet_state(const ModelConfig& config);

// h [T, hidden] -> [T, hidden]. Outside decode ctx.delta_rule must be set; with ctx.state
// (prefill) each sequence's conv window and final state are written at ctx.sequence_slots; with
// ctx.decode (one token per sequence) the recurrent step runs from, and updates, the states of
// the slots slot_starts / capacity.
at::Tensor gated_deltanet(const GatedDeltaNetWeights& w, const ModelConfig& config,
                          const at::Tensor& h, const LayerContext& ctx, int64_t layer);

}  // namespace verlpp::model
