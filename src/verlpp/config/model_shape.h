// The few facts of an HF config.json that parallel-layout rules need (layers, heads, experts).
// Reading the full model config belongs to model/; this is what `check` needs before any weights.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace verlpp::config {

struct ModelShape {
  std::string source;        // the config.json read
  std::string architecture;  // architectures[0], or model_type
  std::int64_t num_hidden_layers = 0, num_attention_heads = 0, num_key_value_heads = 0;
  std::optional<std::int64_t> num_experts;  // num_experts / num_local_experts / n_routed_experts
};

// Reads DIR/config.json (or the file itself when `path` is a .json file). Multimodal configs are
// read from their "text_config". Returns nullopt and sets `why_not` when the file is absent or
// lacks num_hidden_layers / num_attention_heads; num_key_value_heads defaults to the head count.
std::optional<ModelShape> read_model_shape(const std::string& path, std::string& why_not);

}  // namespace verlpp::config
