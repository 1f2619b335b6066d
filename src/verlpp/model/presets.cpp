#include "verlpp/model/presets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "verlpp/core/error.h"

namespace verlpp::model {

namespace {

// Qwen/Qwen3-0.6B config.json (tests/fixtures/models/qwen3-0.6b/config.json holds a copy).
ModelConfig qwen3_0_6b() {
  ModelConfig c;
  c.architecture = Architecture::qwen3;
  c.vocab_size = 151936;
  c.hidden_size = 1024;
  c.intermediate_size = 3072;
  c.num_hidden_layers = 28;
  c.num_attention_heads = 16;
  c.num_key_value_heads = 8;
  c.head_dim = 128;
  c.max_position_embeddings = 40960;
  c.rms_norm_eps = 1e-6;
  c.rope_theta = 1000000.0;
  c.qk_norm = true;
  c.tie_word_embeddings = true;
  c.torch_dtype = "bfloat16";
  c.bos_token_id = 151643;
  c.eos_token_id = 151645;
  return c;
}

// Qwen/Qwen3-1.7B config.json: the 0.6B layout with hidden 2048 and intermediate 6144.
ModelConfig qwen3_1_7b() {
  ModelConfig c = qwen3_0_6b();
  c.hidden_size = 2048;
  c.intermediate_size = 6144;
  return c;
}

// Qwen/Qwen3-30B-A3B config.json (as models.md §1 and verl's flops_counter give it; norm_topk_prob
// true as the hub config is believed to set it).
ModelConfig qwen3_30b_a3b() {
  ModelConfig c = qwen3_0_6b();
  c.architecture = Architecture::qwen3_moe;
  c.hidden_size = 2048;
  c.intermediate_size = 6144;
  c.num_hidden_layers = 48;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 4;
  c.tie_word_embeddings = false;
  c.moe.num_experts = 128;
  c.moe.num_experts_per_tok = 8;
  c.moe.moe_intermediate_size = 768;
  c.moe.norm_topk_prob = true;
  return c;
}

// Qwen/Qwen3.5-2B's text model (tests/fixtures/models/qwen3.5-2b/config.json): 24 layers, every
// fourth full attention, tied embeddings.
ModelConfig qwen3_5_2b() {
  ModelConfig c;
  c.architecture = Architecture::qwen3_5;
  c.vocab_size = 248320;
  c.hidden_size = 2048;
  c.intermediate_size = 6144;
  c.num_hidden_layers = 24;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 256;
  c.max_position_embeddings = 262144;
  c.rms_norm_eps = 1e-6;
  c.rope_theta = 1e7;
  c.partial_rotary_factor = 0.25;
  c.mrope_section = {11, 11, 10};
  c.qk_norm = true;
  c.tie_word_embeddings = true;
  c.linear_attention = {16, 16, 128, 128, 4};
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    c.layer_types.push_back((i + 1) % 4 == 0 ? LayerType::full_attention
                                             : LayerType::linear_attention);
  }
  c.torch_dtype = "bfloat16";
  c.eos_token_id = 248044;
  return c;
}

// Qwen/Qwen3.5-35B-A3B's text model (tests/fixtures/models/qwen3.5-35b-a3b/config.json): 40
// layers, 256 experts (top 8) and a shared expert on every layer, untied.
ModelConfig qwen3_5_35b_a3b() {
  ModelConfig c = qwen3_5_2b();
  c.architecture = Architecture::qwen3_5_moe;
  c.intermediate_size = 0;
  c.num_hidden_layers = 40;
  c.num_attention_heads = 16;
  c.linear_attention.num_value_heads = 32;
  c.tie_word_embeddings = false;
  c.layer_types.clear();
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    c.layer_types.push_back((i + 1) % 4 == 0 ? LayerType::full_attention
                                             : LayerType::linear_attention);
  }
  c.moe.num_experts = 256;
  c.moe.num_experts_per_tok = 8;
  c.moe.moe_intermediate_size = 512;
  c.moe.norm_topk_prob = true;
  c.moe.shared_expert_intermediate_size = 512;
  return c;
}

}  // namespace

std::vector<std::string> preset_names() {
  return {"qwen3-0.6b", "qwen3-1.7b", "qwen3-30b-a3b", "qwen3.5-2b", "qwen3.5-35b-a3b"};
}

ModelConfig preset_config(const std::string& name) {
  if (name == "qwen3-0.6b") return qwen3_0_6b();
  if (name == "qwen3-1.7b") return qwen3_1_7b();
  if (name == "qwen3-30b-a3b") return qwen3_30b_a3b();
  if (name == "qwen3.5-2b") return qwen3_5_2b();
  if (name == "qwen3.5-35b-a3b") return qwen3_5_35b_a3b();
  throw Error(fmt::format("--preset {}: unknown preset (known: {})", name,
                          fmt::join(preset_names(), ", ")));
}

}  // namespace verlpp::model
