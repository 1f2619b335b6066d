#include "verlpp/model/causal_lm.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/model/attention.h"
#include "verlpp/model/checkpoint.h"
#include "verlpp/model/kv_cache.h"
#include "verlpp/model/rope.h"

namespace verlpp::model {

namespace {

struct Linear {
  at::Tensor weight;  // [out, in]
  at::Tensor bias;    // [out] or undefined
  at::Tensor operator()(const at::Tensor& x) const { return at::linear(x, weight, bias); }
};

struct Layer {
  at::Tensor input_layernorm, post_attention_layernorm;
  Linear q_proj, k_proj, v_proj, o_proj;
  at::Tensor q_norm, k_norm;  // Qwen3
  Linear gate_proj, up_proj, down_proj;
};

// transformers' RMSNorm: normalise in fp32, cast back, then scale (weight * x.to(input dtype)).
// bf16/fp16 on CUDA: ATen's fused kernel where LibTorch has it (one rounding fewer;
// compat::fused_rms_norm).
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  if (x.is_cuda() && x.scalar_type() != at::kFloat && compat::has_fused_rms_norm()) {
    return compat::fused_rms_norm(x, weight, eps);
  }
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor normed = xf * at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return weight * normed.to(x.scalar_type());
}

// What every layer of one forward pass shares. With a cache, each layer stores its keys/values
// at cache_rows; a decode step then attends over the cache (decode) instead of the layout.
struct LayerContext {
  RopeTables rope;
  SequenceLayout layout;
  double scale = 1.0;
  KVCache* cache = nullptr;
  at::Tensor cache_rows;  // [T] int64
  const DecodeView* decode = nullptr;
};

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const LayerContext& ctx, int64_t layer) {
  if (ctx.cache != nullptr) ctx.cache->store(layer, k, v, ctx.cache_rows);
  if (ctx.decode != nullptr) return decode_attention(q, *ctx.cache, layer, *ctx.decode, ctx.scale);
  return causal_attention(q, k, v, ctx.layout, ctx.scale);
}

at::Tensor layer_forward(const Layer& l, const ModelConfig& c, const at::Tensor& x,
                         const LayerContext& ctx, int64_t layer) {
  const int64_t T = x.size(0);
  const at::Tensor h = rms_norm(x, l.input_layernorm, c.rms_norm_eps);
  at::Tensor q = l.q_proj(h).view({T, c.num_attention_heads, c.head_dim});
  at::Tensor k = l.k_proj(h).view({T, c.num_key_value_heads, c.head_dim});
  const at::Tensor v = l.v_proj(h).view({T, c.num_key_value_heads, c.head_dim});
  if (c.qk_norm) {
    q = rms_norm(q, l.q_norm, c.rms_norm_eps);
    k = rms_norm(k, l.k_norm, c.rms_norm_eps);
  }
  q = apply_rope(q, ctx.rope);
  k = apply_rope(k, ctx.rope);
  const at::Tensor a = attend(q, k, v, ctx, layer);
  const at::Tensor x1 = x + l.o_proj(a.reshape({T, c.num_attention_heads * c.head_dim}));
  const at::Tensor m = rms_norm(x1, l.post_attention_layernorm, c.rms_norm_eps);
  return x1 + l.down_proj(at::silu(l.gate_proj(m)) * l.up_proj(m));
}

std::vector<at::Tensor> layer_tensors(const Layer& l) {
  std::vector<at::Tensor> out;
  for (const at::Tensor* t :
       {&l.input_layernorm, &l.post_attention_layernorm, &l.q_proj.weight, &l.q_proj.bias,
        &l.k_proj.weight, &l.k_proj.bias, &l.v_proj.weight, &l.v_proj.bias, &l.o_proj.weight,
        &l.o_proj.bias, &l.q_norm, &l.k_norm, &l.gate_proj.weight, &l.gate_proj.bias,
        &l.up_proj.weight, &l.up_proj.bias, &l.down_proj.weight, &l.down_proj.bias}) {
    if (t->defined()) out.push_back(*t);
  }
  return out;
}

// Holds the recomputation for a checkpointed layer until backward.
struct LayerClosure : torch::CustomClassHolder {
  std::function<at::Tensor(const at::Tensor&)> run;
};

// Gradient checkpointing (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost";
// torch.utils.checkpoint): forward without a graph, recompute in backward.
struct CheckpointedLayer : torch::autograd::Function<CheckpointedLayer> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& x, at::TensorList params,
                                                c10::intrusive_ptr<LayerClosure> closure) {
    ctx->saved_data["closure"] = c10::IValue::make_capsule(closure);
    std::vector<at::Tensor> saved = {x};
    saved.insert(saved.end(), params.begin(), params.end());
    ctx->save_for_backward(saved);
    return {closure->run(x)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    auto closure =
        c10::static_intrusive_pointer_cast<LayerClosure>(ctx->saved_data["closure"].toCapsule());
    const auto saved = ctx->get_saved_variables();
    const at::Tensor x = saved[0].detach().requires_grad_(true);
    std::vector<at::Tensor> inputs = {x};
    inputs.insert(inputs.end(), saved.begin() + 1, saved.end());
    at::Tensor y;
    {
      c10::AutoGradMode enable(true);
      y = closure->run(x);
    }
    auto grads = torch::autograd::grad({y}, inputs, {grad_out[0]}, /*retain_graph=*/false,
                                       /*create_graph=*/false, /*allow_unused=*/true);
    grads.push_back(at::Tensor());  // closure
    return grads;
  }
};

}  // namespace

struct CausalLM::Impl {
  ModelConfig config;
  at::Tensor embed_tokens;  // [V, H]
  std::vector<Layer> layers;
  at::Tensor norm;
  at::Tensor lm_head;   // undefined when tied
  at::Tensor inv_freq;  // fp32, on the model's device
  bool checkpointing = false;

  // Every parameter slot with its HF name, in checkpoint order (defined or not).
  std::vector<std::pair<std::string, at::Tensor*>> slots() {
    std::vector<std::pair<std::string, at::Tensor*>> out;
    out.emplace_back("model.embed_tokens.weight", &embed_tokens);
    for (size_t i = 0; i < layers.size(); ++i) {
      Layer& l = layers[i];
      const std::string p = fmt::format("model.layers.{}.", i);
      auto add_linear = [&](const std::string& name, Linear& lin, bool bias) {
        out.emplace_back(p + name + ".weight", &lin.weight);
        if (bias) out.emplace_back(p + name + ".bias", &lin.bias);
      };
      out.emplace_back(p + "input_layernorm.weight", &l.input_layernorm);
      add_linear("self_attn.q_proj", l.q_proj, config.qkv_bias);
      add_linear("self_attn.k_proj", l.k_proj, config.qkv_bias);
      add_linear("self_attn.v_proj", l.v_proj, config.qkv_bias);
      add_linear("self_attn.o_proj", l.o_proj, config.o_bias);
      if (config.qk_norm) {
        out.emplace_back(p + "self_attn.q_norm.weight", &l.q_norm);
        out.emplace_back(p + "self_attn.k_norm.weight", &l.k_norm);
      }
      out.emplace_back(p + "post_attention_layernorm.weight", &l.post_attention_layernorm);
      add_linear("mlp.gate_proj", l.gate_proj, config.mlp_bias);
      add_linear("mlp.up_proj", l.up_proj, config.mlp_bias);
      add_linear("mlp.down_proj", l.down_proj, config.mlp_bias);
    }
    out.emplace_back("model.norm.weight", &norm);
    if (!config.tie_word_embeddings) out.emplace_back("lm_head.weight", &lm_head);
    return out;
  }

  // The shape a slot must have.
  std::vector<int64_t> expected_shape(const std::string& name) const {
    const ModelConfig& c = config;
    const int64_t q = c.num_attention_heads * c.head_dim;
    const int64_t kv = c.num_key_value_heads * c.head_dim;
    auto ends = [&](const char* s) {
      const std::string suffix(s);
      return name.size() >= suffix.size() &&
             name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends("embed_tokens.weight") || ends("lm_head.weight")) return {c.vocab_size, c.hidden_size};
    if (ends("layernorm.weight") || name == "model.norm.weight") return {c.hidden_size};
    if (ends("q_norm.weight") || ends("k_norm.weight")) return {c.head_dim};
    if (ends("q_proj.weight")) return {q, c.hidden_size};
    if (ends("q_proj.bias")) return {q};
    if (ends("k_proj.weight") || ends("v_proj.weight")) return {kv, c.hidden_size};
    if (ends("k_proj.bias") || ends("v_proj.bias")) return {kv};
    if (ends("o_proj.weight")) return {c.hidden_size, q};
    if (ends("o_proj.bias") || ends("down_proj.bias")) return {c.hidden_size};
    if (ends("gate_proj.weight") || ends("up_proj.weight"))
      return {c.intermediate_size, c.hidden_size};
    if (ends("gate_proj.bias") || ends("up_proj.bias")) return {c.intermediate_size};
    if (ends("down_proj.weight")) return {c.hidden_size, c.intermediate_size};
    throw Error("internal: no shape for parameter " + name);
  }

  at::Tensor run_layers(at::Tensor x, const LayerContext& ctx) const {
    for (size_t i = 0; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      const auto index = static_cast<int64_t>(i);
      if (checkpointing && c10::GradMode::is_enabled() && ctx.cache == nullptr) {
        auto closure = c10::make_intrusive<LayerClosure>();
        const ModelConfig* c = &config;
        closure->run = [&l, c, ctx, index](const at::Tensor& in) {
          return layer_forward(l, *c, in, ctx, index);
        };
        const std::vector<at::Tensor> params = layer_tensors(l);
        x = CheckpointedLayer::apply(x, at::TensorList(params), closure)[0];
      } else {
        x = layer_forward(l, config, x, ctx, index);
      }
    }
    return rms_norm(x, norm, config.rms_norm_eps);
  }
};

CausalLM::CausalLM(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

namespace {

std::shared_ptr<CausalLM::Impl> empty_impl(const ModelConfig& config) {
  auto impl = std::make_shared<CausalLM::Impl>();
  impl->config = config;
  impl->layers.resize(config.num_hidden_layers);
  impl->inv_freq = rope_inv_freq(config);
  return impl;
}

std::string shape_string(at::IntArrayRef shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace

CausalLM CausalLM::from_pretrained(const std::string& dir, at::ScalarType dtype,
                                   const at::Device& device) {
  auto impl = empty_impl(load_model_config(dir));
  const CheckpointReader reader(dir);
  for (auto& [name, slot] : impl->slots()) {
    if (!reader.contains(name)) {
      throw Error("checkpoint " + dir + " has no tensor '" + name + "' (needed by " +
                  architecture_class(impl->config.architecture) + ")");
    }
    const std::vector<int64_t> want = impl->expected_shape(name);
    const TensorInfo& info = reader.info(name);
    if (info.shape != want) {
      throw Error(fmt::format("checkpoint {}: tensor '{}' has shape {} but config.json implies {}",
                              dir, name, shape_string(info.shape), shape_string(want)));
    }
    *slot = reader.tensor(name).to(device, dtype, /*non_blocking=*/false, /*copy=*/true);
  }
  impl->inv_freq = impl->inv_freq.to(device);
  return CausalLM(impl);
}

CausalLM CausalLM::random_init(const ModelConfig& config, uint64_t seed, double std,
                               at::ScalarType dtype) {
  auto impl = empty_impl(config);
  at::Generator gen = at::detail::createCPUGenerator(seed);
  for (auto& [name, slot] : impl->slots()) {
    const std::vector<int64_t> shape = impl->expected_shape(name);
    const bool is_norm = name.find("norm.weight") != std::string::npos;
    const bool is_bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
    at::Tensor t;
    if (is_norm) {
      t = at::ones(shape, at::kFloat);
    } else if (is_bias) {
      t = at::zeros(shape, at::kFloat);
    } else {
      t = at::normal(0.0, std, shape, gen, at::TensorOptions().dtype(at::kFloat));
    }
    *slot = t.to(dtype);
  }
  return CausalLM(impl);
}

const ModelConfig& CausalLM::config() const { return impl_->config; }
at::ScalarType CausalLM::dtype() const { return impl_->embed_tokens.scalar_type(); }
at::Device CausalLM::device() const { return impl_->embed_tokens.device(); }

std::vector<std::pair<std::string, at::Tensor>> CausalLM::named_parameters() const {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& [name, slot] : impl_->slots()) out.emplace_back(name, *slot);
  return out;
}

void CausalLM::set_requires_grad(bool requires_grad) {
  for (auto& [name, slot] : impl_->slots()) slot->requires_grad_(requires_grad);
}

void CausalLM::set_gradient_checkpointing(bool enabled) { impl_->checkpointing = enabled; }

void CausalLM::to(at::ScalarType dtype, const at::Device& device) {
  for (auto& [name, slot] : impl_->slots()) {
    const bool grad = slot->requires_grad();
    *slot = slot->detach().to(device, dtype).requires_grad_(grad);
  }
  impl_->inv_freq = impl_->inv_freq.to(device);
}

at::Tensor CausalLM::forward_packed(const at::Tensor& input_ids, const at::Tensor& position_ids,
                                    const at::Tensor& cu_seqlens) const {
  if (input_ids.dim() != 1 || position_ids.sizes() != input_ids.sizes()) {
    throw Error(fmt::format(
        "forward_packed: input_ids and position_ids must both be [tokens], got {} and {}",
        shape_string(input_ids.sizes()), shape_string(position_ids.sizes())));
  }
  const at::Device dev = device();
  LayerContext ctx;
  ctx.layout = SequenceLayout::packed(cu_seqlens, dev);
  if (ctx.layout.starts.empty() ||
      ctx.layout.starts.back() + ctx.layout.lengths.back() != input_ids.size(0)) {
    throw Error(fmt::format("forward_packed: cu_seqlens ends at {} but there are {} tokens",
                            ctx.layout.starts.back() + ctx.layout.lengths.back(),
                            input_ids.size(0)));
  }
  ctx.rope = rope_tables(impl_->inv_freq, position_ids.to(dev), dtype());
  ctx.scale = 1.0 / std::sqrt(static_cast<double>(impl_->config.head_dim));
  const at::Tensor x = at::embedding(impl_->embed_tokens, input_ids.to(dev, at::kLong));
  return impl_->run_layers(x, ctx);
}

at::Tensor CausalLM::forward_padded(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                    const at::Tensor& position_ids) const {
  if (input_ids.dim() != 2 || attention_mask.sizes() != input_ids.sizes()) {
    throw Error(fmt::format(
        "forward_padded: input_ids and attention_mask must both be [batch, length], got {} and {}",
        shape_string(input_ids.sizes()), shape_string(attention_mask.sizes())));
  }
  const at::Device dev = device();
  const int64_t B = input_ids.size(0);
  const int64_t L = input_ids.size(1);
  LayerContext ctx;
  ctx.layout = SequenceLayout::padded_batch(attention_mask, dev);
  at::Tensor pos = position_ids;
  if (!pos.defined()) {
    const at::Tensor mask = attention_mask.to(dev, at::kLong);
    pos = (mask.cumsum(1) - 1).clamp_min(0) * mask;
  }
  ctx.rope = rope_tables(impl_->inv_freq, pos.to(dev).reshape({B * L}), dtype());
  ctx.scale = 1.0 / std::sqrt(static_cast<double>(impl_->config.head_dim));
  const at::Tensor x =
      at::embedding(impl_->embed_tokens, input_ids.to(dev, at::kLong).reshape({B * L}));
  return impl_->run_layers(x, ctx).view({B, L, impl_->config.hidden_size});
}

at::Tensor CausalLM::prefill(const at::Tensor& input_ids, const at::Tensor& position_ids,
                             const at::Tensor& cu_seqlens, const std::vector<int64_t>& slots,
                             KVCache& cache) const {
  if (input_ids.dim() != 1 || position_ids.sizes() != input_ids.sizes()) {
    throw Error(
        fmt::format("prefill: input_ids and position_ids must both be [tokens], got {} and {}",
                    shape_string(input_ids.sizes()), shape_string(position_ids.sizes())));
  }
  const at::Device dev = device();
  LayerContext ctx;
  ctx.layout = SequenceLayout::packed(cu_seqlens, dev);
  const int64_t S = static_cast<int64_t>(ctx.layout.lengths.size());
  if (static_cast<int64_t>(slots.size()) != S) {
    throw Error(fmt::format("prefill: {} slots for {} sequences", slots.size(), S));
  }
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(input_ids.size(0)));
  for (int64_t s = 0; s < S; ++s) {
    const int64_t len = ctx.layout.lengths[static_cast<size_t>(s)];
    const int64_t slot = slots[static_cast<size_t>(s)];
    if (slot < 0 || slot >= cache.slots() || len > cache.capacity()) {
      throw Error(
          fmt::format("prefill: sequence {} ({} tokens, slot {}) does not fit the cache "
                      "({} slots of {} entries)",
                      s, len, slot, cache.slots(), cache.capacity()));
    }
    for (int64_t i = 0; i < len; ++i) rows.push_back(slot * cache.capacity() + i);
  }
  if (static_cast<int64_t>(rows.size()) != input_ids.size(0)) {
    throw Error(fmt::format("prefill: cu_seqlens ends at {} but there are {} tokens", rows.size(),
                            input_ids.size(0)));
  }
  ctx.cache = &cache;
  ctx.cache_rows = at::tensor(rows, at::kLong).to(dev);
  ctx.rope = rope_tables(impl_->inv_freq, position_ids.to(dev), dtype());
  ctx.scale = 1.0 / std::sqrt(static_cast<double>(impl_->config.head_dim));
  const at::Tensor x = at::embedding(impl_->embed_tokens, input_ids.to(dev, at::kLong));
  return impl_->run_layers(x, ctx);
}

at::Tensor CausalLM::decode(const at::Tensor& input_ids, const at::Tensor& position_ids,
                            const DecodeView& view, KVCache& cache) const {
  const int64_t N = input_ids.size(0);
  if (input_ids.dim() != 1 || position_ids.sizes() != input_ids.sizes() ||
      view.slot_starts.sizes() != input_ids.sizes() || view.lengths.sizes() != input_ids.sizes()) {
    throw Error(
        fmt::format("decode: input_ids, position_ids, slot_starts and lengths must all be "
                    "[N], got {}, {}, {} and {}",
                    shape_string(input_ids.sizes()), shape_string(position_ids.sizes()),
                    shape_string(view.slot_starts.sizes()), shape_string(view.lengths.sizes())));
  }
  LayerContext ctx;
  ctx.cache = &cache;
  ctx.decode = &view;
  ctx.cache_rows = view.slot_starts + view.lengths - 1;
  ctx.rope = rope_tables(impl_->inv_freq, position_ids, dtype());
  ctx.scale = 1.0 / std::sqrt(static_cast<double>(impl_->config.head_dim));
  const at::Tensor x = at::embedding(impl_->embed_tokens, input_ids.view({N}));
  return impl_->run_layers(x, ctx);
}

at::Tensor CausalLM::lm_head_weight() const {
  return impl_->config.tie_word_embeddings ? impl_->embed_tokens : impl_->lm_head;
}

at::Tensor CausalLM::logits(const at::Tensor& hidden) const {
  return at::matmul(hidden, lm_head_weight().t());
}

void CausalLM::save_pretrained(const std::string& dir, at::ScalarType dtype,
                               uint64_t max_shard_bytes) const {
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  for (const auto& [name, t] : named_parameters()) {
    tensors.emplace_back(name, t.detach().to(at::kCPU, dtype));
  }
  write_checkpoint(dir, tensors, max_shard_bytes);
  ModelConfig config = impl_->config;
  config.torch_dtype = dtype_name(dtype);
  write_file_atomically(std::filesystem::path(dir) / "config.json",
                        model_config_to_json(config).dump(2) + "\n");
}

at::ScalarType parse_dtype(const std::string& name, const std::string& where) {
  if (name == "bfloat16" || name == "bf16") return at::kBFloat16;
  if (name == "float16" || name == "fp16" || name == "half") return at::kHalf;
  if (name == "float32" || name == "fp32" || name == "float") return at::kFloat;
  throw Error(where + ": unknown dtype '" + name + "' (expected bfloat16, float16 or float32)");
}

std::string dtype_name(at::ScalarType dtype) {
  switch (dtype) {
    case at::kBFloat16:
      return "bfloat16";
    case at::kHalf:
      return "float16";
    case at::kFloat:
      return "float32";
    default:
      throw Error(std::string("unsupported model dtype ") + c10::toString(dtype));
  }
}

}  // namespace verlpp::model
