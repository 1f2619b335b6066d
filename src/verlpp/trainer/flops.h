// MFU as verl computes it (verl/utils/flops_counter.py, verl/workers/engine_workers.py;
// verl.md §7.6, models.md §6) for dense decoders (Qwen2, Qwen3, Llama), Qwen3-MoE and Qwen3.5:
//
//   N      = (mlp + h·(q + k + v + o)) · layers + 2·V·h        q = o = heads·d, k = v = kv_heads·d
//   mlp    = 3·h·I (dense); h·k·Im·3 + h·E (qwen3_moe, verl's _estimate_qwen2_moe_flops: the
//            top-k experts a token runs plus the router, on every layer; verl ignores
//            mlp_only_layers and decoder_sparse_step, and so does this)
//   flops  = 6·N·T + 6·Σ_i s_i²·d·heads·layers                 T = Σ_i s_i tokens of the batch
//   mfu    = flops / seconds / promised / world_size           (a forward-only pass: flops / 3)
//
// Qwen3.5 / Qwen3.5-MoE (verl's _estimate_qwen3_5_flops; nf full-attention and nl linear layers):
//   full   = h·(2·heads·d + 2·kv_heads·d + heads·d)   (q_proj computes the gate too)
//   linear = h·(2·Kd + 3·Vd + 2·Hv) + K·(2·Kd + Vd)   (qkv, z, out, b, a projections; the conv)
//   mlp    = 3·h·I; or h·E + 3·h·Im·k + 3·h·Is + h (routed, shared expert and its gate)
//   N      = nf·full + nl·linear + layers·mlp + 2·V·h
//   flops  = 6·N·T + 6·Σ_i s_i²·d·heads·nf + 15·dk·dv·Hv·T·nl (the delta rule)
// verl registers this formula for model_type qwen3_5 / qwen3_5_moe only (a qwen3_5_text config gets
// MFU 0 there); verlpp uses it for every Qwen3.5 config.
//
// promised is the device's dense bf16 peak from verl's table (H100/H800/H200 989 TFLOP/s, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/model/model_config.h"

namespace verlpp::trainer {

struct DecoderShape {
  std::int64_t hidden_size = 0, intermediate_size = 0, vocab_size = 0, num_hidden_layers = 0,
               num_attention_heads = 0, num_key_value_heads = 0, head_dim = 0;
  std::int64_t num_experts = 0, num_experts_per_tok = 0, moe_intermediate_size = 0;  // 0: dense
  // Qwen3.5 (qwen3_5 true): layer counts by kind, the Gated DeltaNet shape, the shared expert.
  bool qwen3_5 = false;
  std::int64_t full_attention_layers = 0, linear_attention_layers = 0;
  std::int64_t linear_key_heads = 0, linear_value_heads = 0, linear_key_head_dim = 0,
               linear_value_head_dim = 0, linear_conv_kernel_dim = 0;
  std::int64_t shared_expert_intermediate_size = 0;
};

// The shape fields of a model's config.
DecoderShape decoder_shape(const model::ModelConfig& config);

// Training (forward + backward) FLOPs of one batch of sequences of the given lengths.
double training_flops(const DecoderShape& shape, const std::vector<std::int64_t>& seqlens);

// Dense bf16 peak FLOP/s of a device named like torch.cuda.get_device_name() ("NVIDIA H200"),
// matched by verl's substrings; 0 for an unknown device (verl: inf, i.e. MFU 0).
double promised_flops(const std::string& device_name);

// verl's MFU; 0 when the device is unknown or seconds <= 0.
double mfu(double flops, double seconds, const std::string& device_name, std::int64_t world_size);

}  // namespace verlpp::trainer
