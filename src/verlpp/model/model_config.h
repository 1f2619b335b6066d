// A dense decoder-only model's shape, read from (and written as) a Hugging Face config.json.
// Supported `architectures`: Qwen2ForCausalLM (Qwen2, Qwen2.5), Qwen3ForCausalLM (Qwen3 dense),
// LlamaForCausalLM (Llama 2/3). Field names and defaults are transformers' (Qwen2Config,
// Qwen3Config, LlamaConfig).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace verlpp::model {

enum class Architecture { qwen2, qwen3, llama };

// RoPE frequency scaling (transformers' rope_scaling / rope_parameters). Types: "default",
// "linear" (inv_freq / factor), "llama3" (Llama 3.1's smooth scaling, see rope.h).
struct RopeScaling {
  std::string type = "default";
  double factor = 1.0;
  double low_freq_factor = 1.0;                  // llama3
  double high_freq_factor = 4.0;                 // llama3
  int64_t original_max_position_embeddings = 0;  // llama3
};

struct ModelConfig {
  Architecture architecture = Architecture::qwen3;
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_hidden_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;  // GQA; defaults to num_attention_heads
  int64_t head_dim = 0;             // defaults to hidden_size / num_attention_heads
  int64_t max_position_embeddings = 0;
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  RopeScaling rope_scaling;
  bool qkv_bias = false;  // Qwen2: always; Qwen3/Llama: attention_bias
  bool o_bias = false;    // Qwen3/Llama: attention_bias
  bool mlp_bias = false;  // Llama: mlp_bias
  bool qk_norm = false;   // Qwen3: RMSNorm over head_dim on q and k before RoPE
  bool tie_word_embeddings = false;
  std::string torch_dtype = "bfloat16";  // the checkpoint's stored dtype
  int64_t bos_token_id = -1;             // -1: absent
  int64_t eos_token_id = -1;

  // Parameter count (embeddings, and lm_head when untied, included).
  int64_t num_parameters() const;
};

// "Qwen2ForCausalLM" / "Qwen3ForCausalLM" / "LlamaForCausalLM"; model_type "qwen2"/"qwen3"/"llama".
std::string architecture_class(Architecture a);
std::string model_type(Architecture a);
// Accepts qwen2, qwen3, llama (or their class names); throws verlpp::Error otherwise.
Architecture parse_architecture(const std::string& name, const std::string& where);

// Parses config.json content. `source` (a path) prefixes error messages. Throws verlpp::Error for
// an unsupported architectures value, a missing or mistyped size field, heads not dividing,
// hidden_act other than silu, sliding-window attention, or an unsupported RoPE scaling type.
// Reads RoPE from rope_theta/rope_scaling (transformers 4) or rope_parameters (transformers 5).
ModelConfig parse_model_config(const nlohmann::json& json, const std::string& source);
// Reads DIR/config.json (or the file itself when `path` names a file).
ModelConfig load_model_config(const std::string& path);

// config.json content that transformers 4 and 5 load (RoPE written both as rope_theta +
// rope_scaling and as rope_parameters).
nlohmann::json model_config_to_json(const ModelConfig& config);

}  // namespace verlpp::model
