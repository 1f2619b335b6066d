#include "verlpp/model/model_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_file.h"

namespace verlpp::model {

namespace {

using nlohmann::json;

int64_t get_int(const json& j, const std::string& key, const std::string& source,
                std::optional<int64_t> fallback = std::nullopt) {
  if (!j.contains(key) || j[key].is_null()) {
    if (fallback) return *fallback;
    throw Error(source + ": missing '" + key + "' (expected a positive integer)");
  }
  if (!j[key].is_number_integer() || j[key].get<int64_t>() <= 0) {
    throw Error(source + ": '" + key + "' must be a positive integer, got " + j[key].dump());
  }
  return j[key].get<int64_t>();
}

double get_double(const json& j, const std::string& key, const std::string& source,
                  double fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_number()) {
    throw Error(source + ": '" + key + "' must be a number, got " + j[key].dump());
  }
  return j[key].get<double>();
}

// A finite number > 0 (epsilons, rope bases).
double get_positive_double(const json& j, const std::string& key, const std::string& source,
                           double fallback) {
  const double value = get_double(j, key, source, fallback);
  if (!std::isfinite(value) || value <= 0.0) {
    throw Error(fmt::format("{}: '{}' must be a finite number > 0, got {}", source, key, value));
  }
  return value;
}

bool get_bool(const json& j, const std::string& key, const std::string& source, bool fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_boolean()) {
    throw Error(source + ": '" + key + "' must be true or false, got " + j[key].dump());
  }
  return j[key].get<bool>();
}

// bos_token_id / eos_token_id: an integer or a list of them (the first is kept; an empty list or
// null is none, and so is a negative id, which transformers only warns about). Anything else, or an
// id beyond int32 (which would wrap onto another token), is an error naming the key.
int64_t token_id(const json& j, const std::string& key, const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) return -1;
  const json& v = j[key];
  const auto fits = [](const json& e) {
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
    return e.is_number_unsigned() ? e.get<uint64_t>() <= kMax : e.is_number_integer();
  };
  if (!fits(v) && !(v.is_array() && std::all_of(v.begin(), v.end(), fits))) {
    throw Error(source + ": '" + key + "' must be a token id or a list of token ids, got " +
                v.dump());
  }
  if (v.is_array() && v.empty()) return -1;
  return std::max<int64_t>((v.is_array() ? v[0] : v).get<int64_t>(), -1);
}

Architecture architecture_of(const json& j, const std::string& source) {
  if (!j.contains("architectures")) {
    if (j.contains("model_type") && j["model_type"].is_string()) {
      return parse_architecture(j["model_type"].get<std::string>(), source + ": model_type");
    }
    throw Error(source + ": missing 'architectures' (expected a list of one class name)");
  }
  const json& a = j["architectures"];
  if (!a.is_array() || a.size() != 1 || !a[0].is_string()) {
    throw Error(source + ": 'architectures' must be a list of one class name, got " + a.dump());
  }
  return parse_architecture(a[0].get<std::string>(), source + ": architectures");
}

// The expert count under the names configs use for it: Qwen3MoeConfig's num_experts (which
// transformers 5 writes as num_local_experts), Mixtral's num_local_experts, DeepSeek's
// n_routed_experts. Shared by parse_model_config and read_model_shape. Two of them that disagree
// are an error (a break-test's num_experts 5 beside num_local_experts 4 took 5 silently).
std::optional<std::string> expert_count_key(const json& j, const std::string& source) {
  std::optional<std::string> found;
  for (const char* key : {"num_experts", "num_local_experts", "n_routed_experts"}) {
    if (!j.contains(key) || j[key].is_null()) continue;
    if (found && j[key] != j[*found]) {
      throw Error(fmt::format("{}: {} {} and {} {} disagree; keep one expert count", source, *found,
                              j[*found].dump(), key, j[key].dump()));
    }
    if (!found) found = key;
  }
  return found;
}

// Qwen3MoeConfig's fields (models.md §1), checked against each other and the layer count.
MoeConfig parse_moe(const json& j, int64_t layers, const std::string& source) {
  MoeConfig m;
  const std::string experts = expert_count_key(j, source).value_or("num_experts");
  m.num_experts = get_int(j, experts, source);
  m.num_experts_per_tok = get_int(j, "num_experts_per_tok", source, 8);
  m.moe_intermediate_size = get_int(j, "moe_intermediate_size", source, 768);
  m.decoder_sparse_step = get_int(j, "decoder_sparse_step", source, 1);
  m.norm_topk_prob = get_bool(j, "norm_topk_prob", source, false);
  m.router_aux_loss_coef = get_double(j, "router_aux_loss_coef", source, 0.001);
  if (m.num_experts_per_tok > m.num_experts) {
    throw Error(fmt::format("{}: num_experts_per_tok {} is larger than {} {}", source,
                            m.num_experts_per_tok, experts, m.num_experts));
  }
  if (j.contains("mlp_only_layers") && !j["mlp_only_layers"].is_null()) {
    const json& list = j["mlp_only_layers"];
    if (!list.is_array()) {
      throw Error(source + ": 'mlp_only_layers' must be a list of layer indices, got " +
                  list.dump());
    }
    for (const json& entry : list) {
      if (!entry.is_number_integer() || entry.get<int64_t>() < 0 ||
          entry.get<int64_t>() >= layers) {
        throw Error(fmt::format("{}: mlp_only_layers entry {} is not a layer index in [0, {})",
                                source, entry.dump(), layers));
      }
      m.mlp_only_layers.push_back(entry.get<int64_t>());
    }
  }
  return m;
}

// Qwen3.5's partial rotary factor (rope_parameters > top-level key > 0.25, the value the text
// config injects) and M-RoPE sections, checked against head_dim.
void parse_partial_rope(const json& j, const std::string& source, ModelConfig& c) {
  c.partial_rotary_factor = get_double(j, "partial_rotary_factor", source, 0.25);
  const json params = j.contains("rope_parameters") && j["rope_parameters"].is_object()
                          ? j["rope_parameters"]
                          : json::object();
  const std::string where = source + ": rope_parameters";
  c.partial_rotary_factor =
      get_double(params, "partial_rotary_factor", where, c.partial_rotary_factor);
  const int64_t r = c.rotary_dim();
  if (!(c.partial_rotary_factor > 0.0 && c.partial_rotary_factor <= 1.0) || r < 2 || r % 2 != 0) {
    throw Error(fmt::format(
        "{}: partial_rotary_factor {} gives rotary dimension int(head_dim {} * {}) = {}; expected "
        "an even number of channels in [2, head_dim]",
        source, c.partial_rotary_factor, c.head_dim, c.partial_rotary_factor, r));
  }
  if (!params.contains("mrope_section") || params["mrope_section"].is_null()) return;
  const json& sections = params["mrope_section"];
  int64_t sum = 0;
  for (const json& s : sections.is_array() ? sections : json::array({sections})) {
    if (!s.is_number_integer() || s.get<int64_t>() < 0) {
      throw Error(where + ": mrope_section must be a list of non-negative integers, got " +
                  sections.dump());
    }
    c.mrope_section.push_back(s.get<int64_t>());
    sum += s.get<int64_t>();
  }
  if (sum != r / 2) {
    throw Error(fmt::format("{}: mrope_section {} sums to {}, expected rotary dimension / 2 = {}",
                            where, sections.dump(), sum, r / 2));
  }
}

// A RoPE value written in both transformers forms (KEY and rope_parameters.KEY): transformers 4
// reads the first, 5 the second, so they must agree.
void require_same_in_rope_parameters(const json& j, const char* key, const std::string& source) {
  const auto params = j.find("rope_parameters");
  if (params == j.end() || !params->is_object()) return;
  const auto top = j.find(key);
  const auto inner = params->find(key);
  if (top == j.end() || inner == params->end() || top->is_null() || inner->is_null()) return;
  if (*top == *inner) return;
  throw Error(fmt::format(
      "{}: {} is {} but rope_parameters.{} is {} (transformers 4 reads the first, 5 the "
      "second); expected the same value in both",
      source, key, top->dump(), key, inner->dump()));
}

std::string rope_type_of(const json& scaling) {
  for (const char* key : {"rope_type", "type"}) {
    if (scaling.contains(key) && scaling[key].is_string()) return scaling[key].get<std::string>();
  }
  return "default";
}

// rope_scaling (transformers 4) and rope_parameters (5) both given: the same type and factor.
void require_same_scaling(const json& j, const std::string& source) {
  if (!j.contains("rope_scaling") || !j["rope_scaling"].is_object() ||
      !j.contains("rope_parameters") || !j["rope_parameters"].is_object()) {
    return;
  }
  const json& v4 = j["rope_scaling"];
  const json& v5 = j["rope_parameters"];
  const bool same_factor =
      !v4.contains("factor") || !v5.contains("factor") || v4["factor"] == v5["factor"];
  if (rope_type_of(v4) == rope_type_of(v5) && same_factor) return;
  throw Error(fmt::format(
      "{}: rope_scaling {} and rope_parameters {} describe different RoPE (transformers 4 reads "
      "the first, 5 the second); expected the same type and factor in both",
      source, v4.dump(), v5.dump()));
}

void parse_rope(const json& j, const std::string& source, ModelConfig& c) {
  for (const char* key : {"rope_theta", "partial_rotary_factor"}) {
    require_same_in_rope_parameters(j, key, source);
  }
  require_same_scaling(j, source);
  json scaling;
  if (j.contains("rope_parameters") && j["rope_parameters"].is_object()) {
    scaling = j["rope_parameters"];
    c.rope_theta = get_double(scaling, "rope_theta", source + ": rope_parameters", c.rope_theta);
  }
  c.rope_theta = get_positive_double(j, "rope_theta", source, c.rope_theta);
  if (c.is_qwen3_5()) parse_partial_rope(j, source, c);
  if (j.contains("rope_scaling") && j["rope_scaling"].is_object()) scaling = j["rope_scaling"];
  if (scaling.is_null()) return;
  const std::string where = source + ": rope scaling";
  const std::string type = rope_type_of(scaling);
  if (type != "default" && type != "linear" && type != "llama3") {
    throw Error(where + ": rope_type '" + type +
                "' is not supported (supported: default, linear, llama3)");
  }
  c.rope_scaling.type = type;
  c.rope_scaling.factor = get_double(scaling, "factor", where, 1.0);
  c.rope_scaling.low_freq_factor = get_double(scaling, "low_freq_factor", where, 1.0);
  c.rope_scaling.high_freq_factor = get_double(scaling, "high_freq_factor", where, 4.0);
  if (type == "llama3") {
    c.rope_scaling.original_max_position_embeddings =
        get_int(scaling, "original_max_position_embeddings", where);
    if (c.rope_scaling.high_freq_factor <= c.rope_scaling.low_freq_factor) {
      throw Error(where + ": high_freq_factor must exceed low_freq_factor");
    }
  }
}

// Qwen3.5's layer_types (legacy names remapped as transformers does), or when absent every
// full_attention_interval-th layer full attention (models.md §2).
std::vector<LayerType> parse_layer_types(const json& j, int64_t layers, const std::string& source) {
  std::vector<LayerType> types;
  if (!j.contains("layer_types") || j["layer_types"].is_null()) {
    const int64_t interval = get_int(j, "full_attention_interval", source, 4);
    for (int64_t i = 0; i < layers; ++i) {
      types.push_back((i + 1) % interval == 0 ? LayerType::full_attention
                                              : LayerType::linear_attention);
    }
    return types;
  }
  const json& list = j["layer_types"];
  if (!list.is_array() || static_cast<int64_t>(list.size()) != layers) {
    throw Error(fmt::format(
        "{}: layer_types must be a list of num_hidden_layers = {} entries, got {} entries", source,
        layers, list.is_array() ? std::to_string(list.size()) : list.dump()));
  }
  for (const json& t : list) {
    const std::string name = t.is_string() ? t.get<std::string>() : t.dump();
    if (name == "full_attention" || name == "attention") {
      types.push_back(LayerType::full_attention);
    } else if (name == "linear_attention" || name == "mamba" || name == "conv") {
      types.push_back(LayerType::linear_attention);
    } else {
      throw Error(fmt::format(
          "{}: layer_types entry '{}' is not supported (full_attention, linear_attention)", source,
          name));
    }
  }
  return types;
}

LinearAttentionConfig parse_linear_attention(const json& j, const std::string& source) {
  LinearAttentionConfig l;
  l.num_key_heads = get_int(j, "linear_num_key_heads", source, 16);
  l.num_value_heads = get_int(j, "linear_num_value_heads", source, 32);
  l.key_head_dim = get_int(j, "linear_key_head_dim", source, 128);
  l.value_head_dim = get_int(j, "linear_value_head_dim", source, 128);
  l.conv_kernel_dim = get_int(j, "linear_conv_kernel_dim", source, 4);
  if (l.num_value_heads % l.num_key_heads != 0) {
    throw Error(
        fmt::format("{}: linear_num_value_heads {} is not a multiple of linear_num_key_heads {}",
                    source, l.num_value_heads, l.num_key_heads));
  }
  return l;
}

// tie_word_embeddings of a Qwen3.5 config: either the top-level or text_config flag (see the
// header).
bool qwen3_5_tied(const json& top, const json& text, const std::string& source) {
  return get_bool(top, "tie_word_embeddings", source, false) ||
         get_bool(text, "tie_word_embeddings", source + ": text_config", false);
}

}  // namespace

namespace {

struct Registered {
  Architecture architecture;
  const char* class_name;
  const char* model_type;
};

// The architectures registry: one line per architecture (its implementation: model/arch/).
constexpr Registered kRegistry[] = {
    {Architecture::qwen2, "Qwen2ForCausalLM", "qwen2"},
    {Architecture::qwen3, "Qwen3ForCausalLM", "qwen3"},
    {Architecture::llama, "LlamaForCausalLM", "llama"},
    {Architecture::qwen3_moe, "Qwen3MoeForCausalLM", "qwen3_moe"},
    {Architecture::qwen3_5, "Qwen3_5ForCausalLM", "qwen3_5_text"},
    {Architecture::qwen3_5, "Qwen3_5ForConditionalGeneration", "qwen3_5"},
    {Architecture::qwen3_5_moe, "Qwen3_5MoeForCausalLM", "qwen3_5_moe_text"},
    {Architecture::qwen3_5_moe, "Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe"},
};

const Registered& registered(Architecture a) {
  for (const Registered& r : kRegistry) {
    if (r.architecture == a) return r;
  }
  throw Error("internal: architecture missing from the registry");
}

}  // namespace

std::string architecture_class(Architecture a) { return registered(a).class_name; }

std::string model_type(Architecture a) { return registered(a).model_type; }

Architecture parse_architecture(const std::string& name, const std::string& where) {
  std::vector<std::string> names;
  for (const Registered& r : kRegistry) {
    if (name == r.class_name || name == r.model_type) return r.architecture;
    names.emplace_back(r.class_name);
  }
  throw Error(fmt::format("{}: architecture '{}' is not supported (supported: {})", where, name,
                          fmt::join(names, ", ")));
}

bool ModelConfig::is_linear_attention_layer(int64_t layer) const {
  return layer >= 0 && layer < static_cast<int64_t>(layer_types.size()) &&
         layer_types[static_cast<size_t>(layer)] == LayerType::linear_attention;
}

int64_t ModelConfig::rotary_dim() const {
  return static_cast<int64_t>(static_cast<double>(head_dim) * partial_rotary_factor);
}

bool ModelConfig::is_qwen3_5() const {
  return architecture == Architecture::qwen3_5 || architecture == Architecture::qwen3_5_moe;
}

bool ModelConfig::is_sparse_layer(int64_t layer) const {
  if (moe.num_experts <= 0) return false;
  for (int64_t dense : moe.mlp_only_layers) {
    if (dense == layer) return false;
  }
  return (layer + 1) % moe.decoder_sparse_step == 0;
}

int64_t ModelConfig::num_parameters() const {
  const int64_t q = num_attention_heads * head_dim;
  const int64_t kv = num_key_value_heads * head_dim;
  // Qwen3.5's q_proj also computes the output gate (2 q rows).
  const int64_t q_rows = is_qwen3_5() ? 2 * q : q;
  int64_t attention =
      hidden_size * q_rows + 2 * hidden_size * kv + q * hidden_size + 2 * hidden_size;
  if (qkv_bias) attention += q_rows + 2 * kv;
  if (o_bias) attention += hidden_size;
  if (qk_norm) attention += 2 * head_dim;
  int64_t dense_mlp = 3 * hidden_size * intermediate_size;
  if (mlp_bias) dense_mlp += 2 * intermediate_size + hidden_size;
  const int64_t shared = moe.shared_expert_intermediate_size;
  const int64_t sparse_mlp = moe.num_experts * (3 * hidden_size * moe.moe_intermediate_size) +
                             moe.num_experts * hidden_size +
                             (shared > 0 ? 3 * hidden_size * shared + hidden_size : 0);
  // Gated DeltaNet: in_proj_qkv, in_proj_z, in_proj_b, in_proj_a, conv1d, dt_bias, A_log, norm,
  // out_proj, and the layer's two norms.
  const LinearAttentionConfig& l = linear_attention;
  const int64_t linear = hidden_size * l.conv_dim() + hidden_size * l.value_dim() +
                         2 * hidden_size * l.num_value_heads + l.conv_dim() * l.conv_kernel_dim +
                         2 * l.num_value_heads + l.value_head_dim + l.value_dim() * hidden_size +
                         2 * hidden_size;
  int64_t layers = 0;
  for (int64_t i = 0; i < num_hidden_layers; ++i) {
    layers += (is_linear_attention_layer(i) ? linear : attention) +
              (is_sparse_layer(i) ? sparse_mlp : dense_mlp);
  }
  const int64_t embed = vocab_size * hidden_size;
  return layers + embed * (tie_word_embeddings ? 1 : 2) + hidden_size;
}

namespace {

// The fields every architecture shares, from `j` (Qwen3.5: its text_config).
void parse_common(const json& j, const std::string& source, ModelConfig& c) {
  c.vocab_size = get_int(j, "vocab_size", source);
  c.hidden_size = get_int(j, "hidden_size", source);
  const bool sparse = c.architecture == Architecture::qwen3_moe;
  std::optional<int64_t> intermediate;
  if (sparse) intermediate = 6144;
  if (c.architecture == Architecture::qwen3_5_moe) intermediate = 0;  // every layer sparse
  c.intermediate_size = get_int(j, "intermediate_size", source, intermediate);
  c.num_hidden_layers = get_int(j, "num_hidden_layers", source);
  c.num_attention_heads = get_int(j, "num_attention_heads", source);
  c.num_key_value_heads = get_int(j, "num_key_value_heads", source, c.num_attention_heads);
  int64_t default_head_dim = c.hidden_size / c.num_attention_heads;
  if (c.architecture == Architecture::qwen3) default_head_dim = 128;
  if (c.is_qwen3_5()) default_head_dim = 256;
  c.head_dim = get_int(j, "head_dim", source, default_head_dim);
  c.max_position_embeddings = get_int(j, "max_position_embeddings", source, 32768);
  c.rms_norm_eps = get_positive_double(j, "rms_norm_eps", source, 1e-6);
  // Sizes far beyond any model (a config.json of 10^12 layers asked for terabytes).
  for (const auto& [key, value, most] :
       {std::tuple{"vocab_size", c.vocab_size, int64_t{1} << 26},
        std::tuple{"hidden_size", c.hidden_size, int64_t{1} << 20},
        std::tuple{"intermediate_size", c.intermediate_size, int64_t{1} << 22},
        std::tuple{"num_hidden_layers", c.num_hidden_layers, int64_t{1} << 14},
        std::tuple{"num_attention_heads", c.num_attention_heads, int64_t{1} << 12},
        std::tuple{"head_dim", c.head_dim, int64_t{1} << 14}}) {
    if (value > most) {
      throw Error(fmt::format("{}: '{}' {} is beyond any model verlpp can hold (at most {})",
                              source, key, value, most));
    }
  }
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    throw Error(
        fmt::format("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}",
                    source, c.num_attention_heads, c.num_key_value_heads));
  }
  if (!j.contains("head_dim") && default_head_dim * c.num_attention_heads != c.hidden_size &&
      c.architecture != Architecture::qwen3 && !c.is_qwen3_5()) {
    throw Error(source + ": hidden_size is not a multiple of num_attention_heads");
  }
  if (j.contains("hidden_act") && j["hidden_act"] != "silu") {
    throw Error(source + ": hidden_act " + j["hidden_act"].dump() + " is not supported (silu)");
  }
  if (get_bool(j, "use_sliding_window", source, false)) {
    throw Error(source + ": use_sliding_window=true is not supported");
  }
  for (const char* key : {"torch_dtype", "dtype"}) {
    if (j.contains(key) && j[key].is_string()) c.torch_dtype = j[key].get<std::string>();
  }
  c.bos_token_id = token_id(j, "bos_token_id", source);
  c.eos_token_id = token_id(j, "eos_token_id", source);
}

// Every layer full attention, for the architectures without linear attention.
void reject_layer_types(const json& j, const std::string& source) {
  if (!j.contains("layer_types") || !j["layer_types"].is_array()) return;
  for (const auto& t : j["layer_types"]) {
    if (t != "full_attention") {
      throw Error(source + ": layer_types entry " + t.dump() +
                  " is not supported (full_attention only)");
    }
  }
}

// Qwen3.5 (models.md §2-§4): hybrid layers, (1 + w) norms, gated attention with q/k norms and
// partial RoPE, and for Qwen3.5-MoE a sparse block with a shared expert on every layer (the
// block always renormalises its top-k weights; decoder_sparse_step and mlp_only_layers are not
// read by transformers' Qwen3_5Moe classes).
void parse_qwen3_5(const json& j, const std::string& source, ModelConfig& c) {
  c.layer_types = parse_layer_types(j, c.num_hidden_layers, source);
  c.linear_attention = parse_linear_attention(j, source);
  c.qk_norm = true;
  if (c.architecture != Architecture::qwen3_5_moe) return;
  MoeConfig& m = c.moe;
  m = parse_moe(j, c.num_hidden_layers, source);
  if (!j.contains("moe_intermediate_size")) m.moe_intermediate_size = 512;
  m.norm_topk_prob = true;
  m.decoder_sparse_step = 1;
  m.mlp_only_layers.clear();
  m.shared_expert_intermediate_size = get_int(j, "shared_expert_intermediate_size", source, 512);
}

// The class named by `architectures` is a vision-language one (its text model in text_config).
bool names_vision_language_class(const json& top) {
  const auto it = top.find("architectures");
  return it != top.end() && it->is_array() && it->size() == 1 && (*it)[0].is_string() &&
         (*it)[0].get<std::string>().ends_with("ForConditionalGeneration");
}

int64_t get_token_id(const json& j, const std::string& key, const std::string& source,
                     int64_t fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_number_integer() || j[key].get<int64_t>() < 0) {
    throw Error(source + ": '" + key + "' must be a token id (an integer >= 0), got " +
                j[key].dump());
  }
  return j[key].get<int64_t>();
}

// vision_config of a Qwen3.5 vision-language config, and the top level's image token ids.
VisionConfig parse_vision(const json& top, const std::string& source) {
  const std::string where = source + ": vision_config";
  if (!top["vision_config"].is_object()) {
    throw Error(where + " must be an object, got " + top["vision_config"].dump());
  }
  const json& j = top["vision_config"];
  VisionConfig v;
  v.depth = get_int(j, "depth", where, v.depth);
  v.hidden_size = get_int(j, "hidden_size", where, v.hidden_size);
  v.intermediate_size = get_int(j, "intermediate_size", where, v.intermediate_size);
  v.num_heads = get_int(j, "num_heads", where, v.num_heads);
  v.in_channels = get_int(j, "in_channels", where, v.in_channels);
  v.patch_size = get_int(j, "patch_size", where, v.patch_size);
  v.temporal_patch_size = get_int(j, "temporal_patch_size", where, v.temporal_patch_size);
  v.spatial_merge_size = get_int(j, "spatial_merge_size", where, v.spatial_merge_size);
  v.out_hidden_size = get_int(j, "out_hidden_size", where, v.out_hidden_size);
  v.num_position_embeddings =
      get_int(j, "num_position_embeddings", where, v.num_position_embeddings);
  if (v.hidden_size % v.num_heads != 0 || v.head_dim() % 4 != 0) {
    throw Error(
        fmt::format("{}: hidden_size {} / num_heads {} must give a head dimension that is "
                    "a multiple of 4 (2-D rotary over rows and columns)",
                    where, v.hidden_size, v.num_heads));
  }
  if (v.grid_per_side() * v.grid_per_side() != v.num_position_embeddings) {
    throw Error(
        fmt::format("{}: num_position_embeddings {} must be a square (the learned position "
                    "table is side x side)",
                    where, v.num_position_embeddings));
  }
  const std::string act = j.value("hidden_act", std::string("gelu_pytorch_tanh"));
  if (act != "gelu_pytorch_tanh") {
    throw Error(where + ": hidden_act '" + act + "' is not supported (Qwen3.5: gelu_pytorch_tanh)");
  }
  if (j.contains("rope_parameters") && j["rope_parameters"].is_object()) {
    v.rope_theta = get_double(j["rope_parameters"], "rope_theta", where, v.rope_theta);
  }
  v.image_token_id = get_token_id(top, "image_token_id", source, v.image_token_id);
  v.video_token_id = get_token_id(top, "video_token_id", source, v.video_token_id);
  v.vision_start_token_id =
      get_token_id(top, "vision_start_token_id", source, v.vision_start_token_id);
  v.vision_end_token_id = get_token_id(top, "vision_end_token_id", source, v.vision_end_token_id);
  return v;
}

}  // namespace

int64_t VisionConfig::grid_per_side() const {
  return static_cast<int64_t>(
      std::llround(std::sqrt(static_cast<double>(num_position_embeddings))));
}

namespace {

// transformers applies attention_dropout to the attention weights of a model in training mode,
// which verl's actor update is; verlpp's attention has no dropout, so a run would train another
// model than the config describes. verl's override_config exists mainly to set dropout.
void refuse_dropout(const json& j, const std::string& where) {
  const double p = get_double(j, "attention_dropout", where, 0.0);
  if (p != 0.0) {
    throw Error(
        fmt::format("{}: 'attention_dropout' is {}; verlpp trains without dropout (expected "
                    "0, or unset)",
                    where, p));
  }
}

}  // namespace

ModelConfig parse_model_config(const nlohmann::json& top, const std::string& source) {
  if (!top.is_object()) throw Error(source + ": expected a JSON object");
  ModelConfig c;
  c.architecture = architecture_of(top, source);
  c.vision_language = c.is_qwen3_5() && top.contains("text_config");
  if (c.is_qwen3_5() && names_vision_language_class(top) && !c.vision_language) {
    throw Error(source + ": missing 'text_config' (a " +
                top["architectures"][0].get<std::string>() +
                " config keeps its language model's fields there)");
  }
  if (c.vision_language && !top["text_config"].is_object()) {
    throw Error(source + ": 'text_config' must be an object, got " + top["text_config"].dump());
  }
  const json& j = c.vision_language ? top["text_config"] : top;
  const std::string where = c.vision_language ? source + ": text_config" : source;
  parse_common(j, where, c);
  if (c.is_qwen3_5()) {
    parse_qwen3_5(j, where, c);
  } else {
    reject_layer_types(j, where);
  }
  if (c.architecture == Architecture::qwen3_moe) c.moe = parse_moe(j, c.num_hidden_layers, where);
  parse_rope(j, where, c);
  refuse_dropout(j, where);
  const bool attention_bias = get_bool(j, "attention_bias", where, false);
  c.qkv_bias = c.architecture == Architecture::qwen2 || attention_bias;
  c.o_bias = c.architecture != Architecture::qwen2 && attention_bias;
  c.mlp_bias = c.architecture == Architecture::llama && get_bool(j, "mlp_bias", where, false);
  if (c.architecture == Architecture::qwen3 || c.architecture == Architecture::qwen3_moe) {
    c.qk_norm = true;
  }
  c.tie_word_embeddings = c.is_qwen3_5() ? qwen3_5_tied(top, j, source)
                                         : get_bool(j, "tie_word_embeddings", where, false);
  if (c.vision_language && top.contains("vision_config")) c.vision = parse_vision(top, source);
  return c;
}

bool has_vision_tower(const ModelConfig& config) {
  return config.vision_language && config.vision.has_value();
}

namespace {

void apply_overrides_at(json& config, const json& overrides, const std::string& path) {
  for (const auto& [key, value] : overrides.items()) {
    const auto field = config.find(key);
    if (value.is_object() && field == config.end()) {
      throw Error(fmt::format(
          "{}{}: the config has no field '{}' to apply a map to (verl's update_model_config "
          "fails there too)",
          path, key, key));
    }
    if (value.is_object() && field->is_object()) {
      apply_overrides_at(*field, value, path + key + ".");
    } else {
      config[key] = value;
    }
  }
}

// The key `key` of `canonical`, read with the alias a RoPE map allows (type for rope_type).
const json* canonical_field(const json& canonical, const std::string& key, bool rope_map) {
  auto it = canonical.find(key);
  if (it == canonical.end() && rope_map && key == "type") it = canonical.find("rope_type");
  return it == canonical.end() ? nullptr : &*it;
}

void collect_without_effect(const json& canonical, const json& overrides, const std::string& path,
                            bool rope_map, std::vector<std::string>& out) {
  for (const auto& [key, value] : overrides.items()) {
    const json* field = canonical_field(canonical, key, rope_map);
    if (field && value.is_object() && field->is_object()) {
      collect_without_effect(*field, value, path + key + ".",
                             key == "rope_scaling" || key == "rope_parameters", out);
    } else if (!field || *field != value) {
      out.push_back(path + key);
    }
  }
}

}  // namespace

void apply_config_overrides(json& config, const json& overrides) {
  if (overrides.is_null()) return;
  if (!overrides.is_object()) {
    throw Error("override_config: expected a map of config.json fields, got " + overrides.dump());
  }
  apply_overrides_at(config, overrides, "override_config.");
}

std::vector<std::string> overrides_without_effect(const ModelConfig& config,
                                                  const json& overrides) {
  std::vector<std::string> out;
  if (overrides.is_object()) {
    collect_without_effect(model_config_to_json(config), overrides, "", false, out);
  }
  return out;
}

namespace {

// The config.json content of a model path with `overrides` applied, and the name its errors give.
std::pair<json, std::string> overridden_config(const std::filesystem::path& file,
                                               const json& overrides) {
  json content = read_json_file(file.string(), "model config");
  const bool any = overrides.is_object() && !overrides.empty();
  if (any && content.is_object()) apply_config_overrides(content, overrides);
  return {std::move(content), any ? file.string() + " with override_config" : file.string()};
}

}  // namespace

ModelConfig load_model_config(const std::string& path, const json& overrides) {
  std::filesystem::path file(path);
  if (std::filesystem::is_directory(file)) file /= "config.json";
  const auto [content, source] = overridden_config(file, overrides);
  return parse_model_config(content, source);
}

ModelConfig load_model_config(const std::string& path) { return load_model_config(path, json()); }

namespace {

const char* layer_type_name(LayerType t) {
  return t == LayerType::full_attention ? "full_attention" : "linear_attention";
}

// Qwen3_5TextConfig / Qwen3_5MoeTextConfig's own fields.
void add_qwen3_5_fields(const ModelConfig& c, json& j) {
  std::vector<std::string> types;
  for (LayerType t : c.layer_types) types.emplace_back(layer_type_name(t));
  j["layer_types"] = types;
  const LinearAttentionConfig& l = c.linear_attention;
  j["linear_num_key_heads"] = l.num_key_heads;
  j["linear_num_value_heads"] = l.num_value_heads;
  j["linear_key_head_dim"] = l.key_head_dim;
  j["linear_value_head_dim"] = l.value_head_dim;
  j["linear_conv_kernel_dim"] = l.conv_kernel_dim;
  j["attn_output_gate"] = true;
  j["partial_rotary_factor"] = c.partial_rotary_factor;
  j["rope_parameters"]["partial_rotary_factor"] = c.partial_rotary_factor;
  if (!c.mrope_section.empty()) {
    j["rope_parameters"]["mrope_section"] = c.mrope_section;
    j["rope_parameters"]["mrope_interleaved"] = true;
  }
  j["dtype"] = c.torch_dtype;
  if (c.architecture != Architecture::qwen3_5_moe) return;
  j.erase("intermediate_size");
  j["num_experts"] = c.moe.num_experts;
  j["num_experts_per_tok"] = c.moe.num_experts_per_tok;
  j["moe_intermediate_size"] = c.moe.moe_intermediate_size;
  j["shared_expert_intermediate_size"] = c.moe.shared_expert_intermediate_size;
  j["router_aux_loss_coef"] = c.moe.router_aux_loss_coef;
  j["output_router_logits"] = false;
}

// The *ForConditionalGeneration layout: the text model's fields under text_config, the vision
// tower's under vision_config, the image token ids at the top (as transformers writes them).
json vision_language_json(const ModelConfig& c, json text) {
  const VisionConfig& v = *c.vision;
  const std::string type = c.architecture == Architecture::qwen3_5 ? "qwen3_5" : "qwen3_5_moe";
  const std::string vl_class = c.architecture == Architecture::qwen3_5
                                   ? "Qwen3_5ForConditionalGeneration"
                                   : "Qwen3_5MoeForConditionalGeneration";
  text.erase("architectures");
  text["model_type"] = type + "_text";
  json vision = {{"model_type", type + "_vision"},
                 {"depth", v.depth},
                 {"hidden_size", v.hidden_size},
                 {"intermediate_size", v.intermediate_size},
                 {"num_heads", v.num_heads},
                 {"in_channels", v.in_channels},
                 {"patch_size", v.patch_size},
                 {"temporal_patch_size", v.temporal_patch_size},
                 {"spatial_merge_size", v.spatial_merge_size},
                 {"out_hidden_size", v.out_hidden_size},
                 {"num_position_embeddings", v.num_position_embeddings},
                 {"hidden_act", "gelu_pytorch_tanh"},
                 {"rope_parameters", {{"rope_type", "axial"}, {"rope_theta", v.rope_theta}}}};
  return {{"architectures", {vl_class}},
          {"model_type", type},
          {"text_config", std::move(text)},
          {"vision_config", std::move(vision)},
          {"image_token_id", v.image_token_id},
          {"video_token_id", v.video_token_id},
          {"vision_start_token_id", v.vision_start_token_id},
          {"vision_end_token_id", v.vision_end_token_id},
          {"tie_word_embeddings", c.tie_word_embeddings},
          {"torch_dtype", c.torch_dtype}};
}

}  // namespace

nlohmann::json model_config_to_json(const ModelConfig& c) {
  json j = {{"architectures", {architecture_class(c.architecture)}},
            {"model_type", model_type(c.architecture)},
            {"vocab_size", c.vocab_size},
            {"hidden_size", c.hidden_size},
            {"intermediate_size", c.intermediate_size},
            {"num_hidden_layers", c.num_hidden_layers},
            {"num_attention_heads", c.num_attention_heads},
            {"num_key_value_heads", c.num_key_value_heads},
            {"head_dim", c.head_dim},
            {"max_position_embeddings", c.max_position_embeddings},
            {"rms_norm_eps", c.rms_norm_eps},
            {"rope_theta", c.rope_theta},
            {"hidden_act", "silu"},
            {"tie_word_embeddings", c.tie_word_embeddings},
            {"torch_dtype", c.torch_dtype},
            {"use_cache", true}};
  if (c.architecture != Architecture::qwen2) j["attention_bias"] = c.o_bias;
  if (c.architecture == Architecture::llama) j["mlp_bias"] = c.mlp_bias;
  if (c.architecture != Architecture::llama && !c.is_qwen3_5()) {
    j["use_sliding_window"] = false;
    j["sliding_window"] = nullptr;
    j["max_window_layers"] = c.num_hidden_layers;
    j["attention_dropout"] = 0.0;
  }
  if (c.rope_scaling.type == "default") {
    j["rope_scaling"] = nullptr;
  } else {
    j["rope_scaling"] = {{"rope_type", c.rope_scaling.type}, {"factor", c.rope_scaling.factor}};
    if (c.rope_scaling.type == "llama3") {
      j["rope_scaling"]["low_freq_factor"] = c.rope_scaling.low_freq_factor;
      j["rope_scaling"]["high_freq_factor"] = c.rope_scaling.high_freq_factor;
      j["rope_scaling"]["original_max_position_embeddings"] =
          c.rope_scaling.original_max_position_embeddings;
    }
  }
  // transformers 5 reads rope_parameters (4.x ignores it and reads rope_theta/rope_scaling).
  json params = {{"rope_type", c.rope_scaling.type}, {"rope_theta", c.rope_theta}};
  if (j["rope_scaling"].is_object()) params.update(j["rope_scaling"]);
  j["rope_parameters"] = params;
  if (c.is_qwen3_5()) add_qwen3_5_fields(c, j);
  if (c.architecture == Architecture::qwen3_moe) {
    j["num_experts"] = c.moe.num_experts;
    j["num_experts_per_tok"] = c.moe.num_experts_per_tok;
    j["moe_intermediate_size"] = c.moe.moe_intermediate_size;
    j["norm_topk_prob"] = c.moe.norm_topk_prob;
    j["decoder_sparse_step"] = c.moe.decoder_sparse_step;
    j["mlp_only_layers"] = c.moe.mlp_only_layers;
    j["router_aux_loss_coef"] = c.moe.router_aux_loss_coef;
    j["output_router_logits"] = false;
  }
  if (c.bos_token_id >= 0) j["bos_token_id"] = c.bos_token_id;
  if (c.eos_token_id >= 0) j["eos_token_id"] = c.eos_token_id;
  if (c.vision_language && c.vision) return vision_language_json(c, std::move(j));
  return j;
}

namespace {

std::optional<int64_t> integer_field(const json& text, const json& top, const char* key) {
  for (const json* object : {&text, &top}) {
    const auto it = object->find(key);
    if (it != object->end() && it->is_number_integer()) return it->get<int64_t>();
  }
  return std::nullopt;
}

}  // namespace

std::string model_config_file(const std::string& path) {
  return path.ends_with(".json") ? path : (std::filesystem::path(path) / "config.json").string();
}

namespace {

std::optional<ModelShape> shape_of(const std::string& path, const json& overrides,
                                   std::string& why_not) {
  const std::filesystem::path file = model_config_file(path);
  json parsed;
  std::string source;
  try {
    std::tie(parsed, source) = overridden_config(file, overrides);
  } catch (const Error& e) {
    why_not = e.what();
    return std::nullopt;
  }
  const json& top = parsed;
  if (!top.is_object()) {
    why_not = file.string() + " is not a JSON object";
    return std::nullopt;
  }
  try {
    parse_model_config(top, source);  // what `verlpp ppo` will refuse, `check` names
  } catch (const Error& e) {
    why_not = e.what();
    return std::nullopt;
  }
  const json& text = top.contains("text_config") ? top["text_config"] : top;
  ModelShape shape;
  shape.source = source;
  if (top.contains("architectures") && top["architectures"].is_array() &&
      !top["architectures"].empty() && top["architectures"][0].is_string()) {
    shape.architecture = top["architectures"][0].get<std::string>();
  } else if (top.contains("model_type") && top["model_type"].is_string()) {
    shape.architecture = top["model_type"].get<std::string>();
  }
  const auto layers = integer_field(text, top, "num_hidden_layers");
  const auto heads = integer_field(text, top, "num_attention_heads");
  if (!layers || !heads) {
    why_not = source + " has no integer num_hidden_layers / num_attention_heads";
    return std::nullopt;
  }
  shape.num_hidden_layers = *layers;
  shape.num_attention_heads = *heads;
  shape.num_key_value_heads = integer_field(text, top, "num_key_value_heads").value_or(*heads);
  if (text.contains("layer_types") && text["layer_types"].is_array()) {
    for (const json& t : text["layer_types"]) {
      if (t == "linear_attention" || t == "mamba" || t == "conv") ++shape.linear_attention_layers;
    }
  }
  shape.vocab_size = integer_field(text, top, "vocab_size");
  shape.max_position_embeddings = integer_field(text, top, "max_position_embeddings");
  shape.linear_num_key_heads = integer_field(text, top, "linear_num_key_heads").value_or(0);
  shape.linear_num_value_heads = integer_field(text, top, "linear_num_value_heads").value_or(0);
  for (const json* object : {&text, &top}) {
    std::optional<std::string> key;
    try {
      key = expert_count_key(*object, shape.source);
    } catch (const Error& e) {
      why_not = e.what();
      return std::nullopt;
    }
    if (key) {
      shape.num_experts = integer_field(*object, *object, key->c_str());
      break;
    }
  }
  return shape;
}

}  // namespace

ModelShapeRead read_model_shape(const std::string& path, const json& overrides) {
  ModelShapeRead read;
  read.shape = shape_of(path, overrides, read.why_not);
  read.absent = !read.shape && nothing_at(model_config_file(path));
  return read;
}

ModelShapeRead read_model_shape(const std::string& path) { return read_model_shape(path, json()); }

}  // namespace verlpp::model
