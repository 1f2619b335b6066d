#include "verlpp/trainer/flops.h"

#include <array>
#include <utility>

namespace verlpp::trainer {

DecoderShape decoder_shape(const model::ModelConfig& c) {
  DecoderShape s;
  s.hidden_size = c.hidden_size;
  s.intermediate_size = c.intermediate_size;
  s.vocab_size = c.vocab_size;
  s.num_hidden_layers = c.num_hidden_layers;
  s.num_attention_heads = c.num_attention_heads;
  s.num_key_value_heads = c.num_key_value_heads;
  s.head_dim = c.head_dim;
  s.num_experts = c.moe.num_experts;
  s.num_experts_per_tok = c.moe.num_experts_per_tok;
  s.moe_intermediate_size = c.moe.moe_intermediate_size;
  s.qwen3_5 = c.is_qwen3_5();
  for (std::int64_t i = 0; i < c.num_hidden_layers; ++i) {
    ++(c.is_linear_attention_layer(i) ? s.linear_attention_layers : s.full_attention_layers);
  }
  s.linear_key_heads = c.linear_attention.num_key_heads;
  s.linear_value_heads = c.linear_attention.num_value_heads;
  s.linear_key_head_dim = c.linear_attention.key_head_dim;
  s.linear_value_head_dim = c.linear_attention.value_head_dim;
  s.linear_conv_kernel_dim = c.linear_attention.conv_kernel_dim;
  s.shared_expert_intermediate_size = c.moe.shared_expert_intermediate_size;
  return s;
}

namespace {

struct Totals {
  double tokens = 0, square_sum = 0;
};

Totals totals(const std::vector<std::int64_t>& seqlens) {
  Totals t;
  for (std::int64_t length : seqlens) {
    t.tokens += static_cast<double>(length);
    t.square_sum += static_cast<double>(length) * static_cast<double>(length);
  }
  return t;
}

double qwen3_5_flops(const DecoderShape& s, const std::vector<std::int64_t>& seqlens) {
  const auto f = [](std::int64_t v) { return static_cast<double>(v); };
  const double h = f(s.hidden_size), d = f(s.head_dim), heads = f(s.num_attention_heads);
  const double full = h * (2 * heads * d + 2 * f(s.num_key_value_heads) * d + heads * d);
  const double kd = f(s.linear_key_heads * s.linear_key_head_dim);
  const double vd = f(s.linear_value_heads * s.linear_value_head_dim);
  const double linear = h * (2 * kd + 3 * vd + 2 * f(s.linear_value_heads)) +
                        f(s.linear_conv_kernel_dim) * (2 * kd + vd);
  const double mlp = s.num_experts > 0
                         ? h * f(s.num_experts) +
                               3 * h * f(s.moe_intermediate_size) * f(s.num_experts_per_tok) +
                               3 * h * f(s.shared_expert_intermediate_size) + h
                         : 3 * h * f(s.intermediate_size);
  const double nf = f(s.full_attention_layers), nl = f(s.linear_attention_layers);
  const double n = nf * full + nl * linear + f(s.num_hidden_layers) * mlp + 2 * f(s.vocab_size) * h;
  const Totals t = totals(seqlens);
  return 6 * n * t.tokens + 6 * t.square_sum * d * heads * nf +
         15 * f(s.linear_key_head_dim) * f(s.linear_value_head_dim) * f(s.linear_value_heads) *
             t.tokens * nl;
}

}  // namespace

double training_flops(const DecoderShape& s, const std::vector<std::int64_t>& seqlens) {
  if (s.qwen3_5) return qwen3_5_flops(s, seqlens);
  const double q = static_cast<double>(s.num_attention_heads * s.head_dim);
  const double kv = static_cast<double>(s.num_key_value_heads * s.head_dim);
  const double h = static_cast<double>(s.hidden_size);
  const double mlp = s.num_experts > 0
                         ? h * static_cast<double>(s.num_experts_per_tok) *
                                   static_cast<double>(s.moe_intermediate_size) * 3.0 +
                               h * static_cast<double>(s.num_experts)
                         : 3.0 * h * static_cast<double>(s.intermediate_size);
  const double per_layer = mlp + h * (2 * q + 2 * kv);
  const double n = per_layer * static_cast<double>(s.num_hidden_layers) +
                   2.0 * static_cast<double>(s.vocab_size) * h;
  double tokens = 0, square_sum = 0;
  for (std::int64_t length : seqlens) {
    tokens += static_cast<double>(length);
    square_sum += static_cast<double>(length) * static_cast<double>(length);
  }
  return 6.0 * n * tokens + 6.0 * square_sum * static_cast<double>(s.head_dim) *
                                static_cast<double>(s.num_attention_heads) *
                                static_cast<double>(s.num_hidden_layers);
}

double promised_flops(const std::string& device_name) {
  // Checked in order: the more specific names first (verl's table, verl.md §7.6).
  static const std::array<std::pair<const char*, double>, 10> kPeaks = {{
      {"GB200", 2.5e15},
      {"B200", 2.25e15},
      {"H100", 989e12},
      {"H800", 989e12},
      {"H200", 989e12},
      {"H20", 148e12},
      {"A100", 312e12},
      {"A800", 312e12},
      {"L20", 119.5e12},
      {"MI300X", 1307e12},
  }};
  for (const auto& [name, peak] : kPeaks) {
    if (device_name.find(name) != std::string::npos) return peak;
  }
  return 0.0;
}

double mfu(double flops, double seconds, const std::string& device_name, std::int64_t world_size) {
  const double peak = promised_flops(device_name);
  if (peak <= 0 || seconds <= 0 || world_size <= 0) return 0.0;
  return flops / seconds / peak / static_cast<double>(world_size);
}

}  // namespace verlpp::trainer
