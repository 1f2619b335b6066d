// A decoder-only model's shape, read from (and written as) a Hugging Face config.json. This file
// and its .cpp need no LibTorch (library verlpp_model_config), so that `verlpp check` reads models
// through the same parser as training does.
//
// Supported `architectures` (the registry; field names and defaults are transformers'):
//   Qwen2ForCausalLM (Qwen2, Qwen2.5; Qwen2Config), Qwen3ForCausalLM (Qwen3 dense; Qwen3Config),
//   LlamaForCausalLM (Llama 2/3; LlamaConfig), Qwen3MoeForCausalLM (Qwen3-MoE; Qwen3MoeConfig),
//   Qwen3_5ForCausalLM / Qwen3_5ForConditionalGeneration (Qwen3.5; Qwen3_5TextConfig inside
//   Qwen3_5Config's text_config) and Qwen3_5MoeForCausalLM / Qwen3_5MoeForConditionalGeneration
//   (Qwen3.5-MoE; Qwen3_5MoeTextConfig). Of a vision-language config only the text model is read.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace verlpp::model {

enum class Architecture { qwen2, qwen3, llama, qwen3_moe, qwen3_5, qwen3_5_moe };

// What a decoder layer mixes tokens with (transformers' layer_types).
enum class LayerType { full_attention, linear_attention };

// RoPE frequency scaling (transformers' rope_scaling / rope_parameters). Types: "default",
// "linear" (inv_freq / factor), "llama3" (Llama 3.1's smooth scaling, see layers/rope.h).
struct RopeScaling {
  std::string type = "default";
  double factor = 1.0;
  double low_freq_factor = 1.0;                  // llama3
  double high_freq_factor = 4.0;                 // llama3
  int64_t original_max_position_embeddings = 0;  // llama3
};

// The sparse mixture-of-experts fields (Qwen3MoeConfig; models.md §1). num_experts == 0: dense.
struct MoeConfig {
  int64_t num_experts = 0;            // E ("num_experts"; transformers 5 writes num_local_experts)
  int64_t num_experts_per_tok = 0;    // k (top-k), 1 <= k <= E
  int64_t moe_intermediate_size = 0;  // each expert's SwiGLU width
  bool norm_topk_prob = false;        // renormalise the k routing weights to sum to 1
  int64_t decoder_sparse_step = 1;    // layer i is sparse iff (i + 1) % step == 0 ...
  std::vector<int64_t> mlp_only_layers;  // ... and i is not listed here
  double router_aux_loss_coef = 0.001;
  int64_t shared_expert_intermediate_size = 0;  // Qwen3.5-MoE's shared expert; 0: none
};

// Gated DeltaNet, the linear attention of Qwen3.5's linear_attention layers (models.md §3).
struct LinearAttentionConfig {
  int64_t num_key_heads = 0;    // linear_num_key_heads, Hk
  int64_t num_value_heads = 0;  // linear_num_value_heads, Hv (a multiple of Hk)
  int64_t key_head_dim = 0;     // linear_key_head_dim, dk
  int64_t value_head_dim = 0;   // linear_value_head_dim, dv
  int64_t conv_kernel_dim = 0;  // linear_conv_kernel_dim, K (the short convolution's taps)

  int64_t key_dim() const { return num_key_heads * key_head_dim; }        // Kd
  int64_t value_dim() const { return num_value_heads * value_head_dim; }  // Vd
  int64_t conv_dim() const { return 2 * key_dim() + value_dim(); }        // q, k, v channels
};

// Qwen3.5's vision tower (Qwen3_5VisionConfig; multimodal.md §2.2), from a vision-language
// config's vision_config, and the image tokens of the top level.
struct VisionConfig {
  int64_t depth = 27;
  int64_t hidden_size = 1152;
  int64_t intermediate_size = 4304;
  int64_t num_heads = 16;
  int64_t in_channels = 3;
  int64_t patch_size = 16;
  int64_t temporal_patch_size = 2;
  int64_t spatial_merge_size = 2;
  int64_t out_hidden_size = 3584;
  int64_t num_position_embeddings = 2304;  // a square table: side = sqrt(this)
  double rope_theta = 10000.0;
  int64_t image_token_id = 248056;
  int64_t video_token_id = 248057;
  int64_t vision_start_token_id = 248053;
  int64_t vision_end_token_id = 248054;

  int64_t head_dim() const { return hidden_size / num_heads; }
  int64_t grid_per_side() const;  // sqrt(num_position_embeddings)
  int64_t patch_dim() const {     // C T P P: a pixel_values row
    return in_channels * temporal_patch_size * patch_size * patch_size;
  }
};

struct ModelConfig {
  Architecture architecture = Architecture::qwen3;
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;  // the dense SwiGLU width (MoE: of the mlp_only layers)
  int64_t num_hidden_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;  // GQA; defaults to num_attention_heads
  int64_t head_dim = 0;             // defaults to hidden_size / num_attention_heads (Qwen3: 128)
  int64_t max_position_embeddings = 0;
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  RopeScaling rope_scaling;
  bool qkv_bias = false;  // Qwen2: always; Qwen3/Llama: attention_bias
  bool o_bias = false;    // Qwen3/Llama: attention_bias
  bool mlp_bias = false;  // Llama: mlp_bias
  bool qk_norm = false;   // Qwen3, Qwen3-MoE: RMSNorm over head_dim on q and k before RoPE
  bool tie_word_embeddings = false;
  MoeConfig moe;
  // Qwen3.5: one entry per layer (empty for the other architectures: every layer full attention),
  // the Gated DeltaNet shape, the share of head_dim that RoPE rotates (partial_rotary_factor; 1
  // elsewhere) and M-RoPE's sections (read for multimodal positions; text reduces to 1-D RoPE).
  std::vector<LayerType> layer_types;
  LinearAttentionConfig linear_attention;
  double partial_rotary_factor = 1.0;
  std::vector<int64_t> mrope_section;
  // Read from a vision-language config (the *ForConditionalGeneration layout: text weights under
  // model.language_model.*).
  bool vision_language = false;
  std::optional<VisionConfig> vision;    // a vision-language config's vision_config
  std::string torch_dtype = "bfloat16";  // the checkpoint's stored dtype
  int64_t bos_token_id = -1;             // -1: absent
  int64_t eos_token_id = -1;

  // Whether layer i (0-based) uses the sparse MoE block (transformers' Qwen3MoeDecoderLayer).
  bool is_sparse_layer(int64_t layer) const;
  // Whether layer i is a Gated DeltaNet layer (Qwen3.5's linear_attention).
  bool is_linear_attention_layer(int64_t layer) const;
  // The channels of each q/k head that RoPE rotates: int(head_dim * partial_rotary_factor).
  int64_t rotary_dim() const;
  // Qwen3.5 and Qwen3.5-MoE: zero-centred (1 + w) RMSNorms, gated attention, Gated DeltaNet.
  bool is_qwen3_5() const;
  // Parameter count (embeddings, lm_head when untied, and every expert included).
  int64_t num_parameters() const;
};

// The architectures registry: class name and model_type of each.
// (Qwen3.5's text-only class and model_type, qwen3_5_text / qwen3_5_moe_text: what verlpp saves.)
std::string architecture_class(Architecture a);  // "Qwen3MoeForCausalLM", ...
std::string model_type(Architecture a);          // "qwen3_moe", ...
// Accepts a class name or a model_type; throws verlpp::Error "<where>: architecture 'X' is not
// supported (supported: ...)" listing every registered class otherwise.
Architecture parse_architecture(const std::string& name, const std::string& where);

// Parses config.json content. `source` (a path) prefixes error messages. Throws verlpp::Error for
// an unsupported architectures value, a missing or mistyped size field, heads not dividing,
// a non-zero attention_dropout (verlpp's attention has no dropout),
// hidden_act other than silu, sliding-window attention, an unsupported RoPE scaling type, and for
// Qwen3-MoE a top-k outside [1, num_experts] or an mlp_only_layers entry that is not a layer; for
// Qwen3.5 a missing text_config of a vision-language class, layer_types of the wrong length or
// with an unknown entry, linear_num_value_heads not a multiple of linear_num_key_heads, and a
// rotary dimension that is odd or zero. Reads RoPE from rope_theta/rope_scaling (transformers 4)
// or rope_parameters (transformers 5; for Qwen3.5 also partial_rotary_factor and mrope_section).
// Qwen3.5's tie_word_embeddings: tied when the top-level or text_config flag says so (transformers
// reads the flag of the class it builds: a text-only class built from a vision-language folder
// whose text_config lacks the flag gets a random lm_head; verlpp ties).
ModelConfig parse_model_config(const nlohmann::json& json, const std::string& source);
// Applies verl's model.override_config to config.json content as verl's update_model_config
// applies it to the loaded Hugging Face config (verl/utils/model.py): each key sets that field; a
// map whose field is a map too (a sub-config such as text_config) is applied inside it, key by
// key. Throws verlpp::Error when `overrides` is not a map (null: nothing to apply), and for a map
// into a field the config does not have (verl's getattr fails there; e.g. text_config of a model
// without one).
void apply_config_overrides(nlohmann::json& config, const nlohmann::json& overrides);
// The dotted paths of `overrides` (as apply_config_overrides applied them to the config `config`
// was parsed from) whose value `config` does not hold: model_config_to_json(config), what a
// checkpoint's config.json gets, lacks the field or has another value there (a field verlpp's
// model does not read or a misspelt one). In a RoPE map, `type` is compared with rope_type.
std::vector<std::string> overrides_without_effect(const ModelConfig& config,
                                                  const nlohmann::json& overrides);
// Reads DIR/config.json (or the file itself when `path` names a file), with `overrides`
// (apply_config_overrides) applied before it is parsed; errors then name the file "with
// override_config".
ModelConfig load_model_config(const std::string& path, const nlohmann::json& overrides);
ModelConfig load_model_config(const std::string& path);  // no overrides
// Whether a checkpoint with this config has a vision tower that CausalLM::from_pretrained reads
// with with_vision (a vision-language config with a vision_config). Loading and saving such a
// checkpoint without its tower would drop the tower from the saved copy.
bool has_vision_tower(const ModelConfig& config);

// config.json content that transformers 4 and 5 load (RoPE written both as rope_theta +
// rope_scaling and as rope_parameters). Qwen3.5 is written as its text-only class
// (Qwen3_5ForCausalLM, model_type qwen3_5_text), the layout save_pretrained writes.
nlohmann::json model_config_to_json(const ModelConfig& config);

// The few facts the parallel-layout rules of `verlpp check` need, from any model's config.json,
// supported by verlpp or not (Qwen3.5's and other multimodal configs are read from their
// "text_config"). Expert counts are read by the same field reader as parse_model_config.
struct ModelShape {
  std::string source;        // the config.json read ("... with override_config" if any)
  std::string architecture;  // architectures[0], or model_type
  int64_t num_hidden_layers = 0, num_attention_heads = 0, num_key_value_heads = 0;
  std::optional<int64_t> num_experts;  // num_experts / num_local_experts / n_routed_experts
  std::optional<int64_t> vocab_size;
  std::optional<int64_t> max_position_embeddings;  // the positions the model holds
  // Hybrid models (Qwen3.5): linear-attention layers among num_hidden_layers (from layer_types),
  // and the Gated DeltaNet head counts; 0 otherwise.
  int64_t linear_attention_layers = 0;
  int64_t linear_num_key_heads = 0, linear_num_value_heads = 0;
};
// The config file of a model path: DIR/config.json, or the path itself when it is a .json file.
std::string model_config_file(const std::string& path);

// What read_model_shape found: the shape, or why there is none; `absent` when nothing is at the
// config file (a hub id, a path on another machine: `check` notes it), as opposed to a file that
// is there but broken (an error).
struct ModelShapeRead {
  std::optional<ModelShape> shape;
  std::string why_not;
  bool absent = false;
};

// Reads model_config_file(path), with `overrides` applied as load_model_config applies them. No
// shape when the file is absent, not valid JSON, refused by parse_model_config (as `verlpp ppo`
// would refuse it) or lacks num_hidden_layers / num_attention_heads; num_key_value_heads defaults
// to the head count.
ModelShapeRead read_model_shape(const std::string& path, const nlohmann::json& overrides);
ModelShapeRead read_model_shape(const std::string& path);  // no overrides

}  // namespace verlpp::model
