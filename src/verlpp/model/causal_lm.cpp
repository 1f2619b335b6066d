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
#include <optional>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/model/arch/decoder.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/checkpoint.h"
#include "verlpp/model/layers/linear.h"
#include "verlpp/model/vision/qwen3_5_vision.h"

namespace verlpp::model {

namespace {

// Holds the recomputation for a checkpointed layer until backward.
struct LayerClosure : torch::CustomClassHolder {
  std::function<LayerOutput(const at::Tensor&)> run;
};

// Gradient checkpointing (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost";
// torch.utils.checkpoint): forward without a graph, recompute in backward. Outputs: the layer's
// hidden states and, for a layer that returns them, its router logits.
struct CheckpointedLayer : torch::autograd::Function<CheckpointedLayer> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& x, at::TensorList params,
                                                c10::intrusive_ptr<LayerClosure> closure) {
    ctx->saved_data["closure"] = c10::IValue::make_capsule(closure);
    std::vector<at::Tensor> saved = {x};
    saved.insert(saved.end(), params.begin(), params.end());
    ctx->save_for_backward(saved);
    const LayerOutput out = closure->run(x);
    if (out.router_logits.defined()) return {out.hidden, out.router_logits};
    return {out.hidden};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    auto closure =
        c10::static_intrusive_pointer_cast<LayerClosure>(ctx->saved_data["closure"].toCapsule());
    const auto saved = ctx->get_saved_variables();
    const at::Tensor x = saved[0].detach().requires_grad_(true);
    std::vector<at::Tensor> inputs = {x};
    inputs.insert(inputs.end(), saved.begin() + 1, saved.end());
    LayerOutput out;
    {
      c10::AutoGradMode enable(true);
      out = closure->run(x);
    }
    std::vector<at::Tensor> outputs = {out.hidden};
    std::vector<at::Tensor> grads = {grad_out[0]};
    if (out.router_logits.defined() && grad_out.size() > 1 && grad_out[1].defined()) {
      outputs.push_back(out.router_logits);
      grads.push_back(grad_out[1]);
    }
    auto result = torch::autograd::grad(outputs, inputs, grads, /*retain_graph=*/false,
                                        /*create_graph=*/false, /*allow_unused=*/true);
    result.push_back(at::Tensor());  // closure
    return result;
  }
};

std::string shape_string(at::IntArrayRef shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

// The conv layout of a prefill of continuing sequences (ContextKeys): every sequence preceded
// by its conv window's W rows.
void add_conv_context(ContextKeys& keys, const SequenceLayout& queries, int64_t W,
                      const at::Device& dev) {
  const auto S = static_cast<int64_t>(queries.lengths.size());
  const int64_t T = queries.starts.empty() ? 0 : queries.starts.back() + queries.lengths.back();
  std::vector<int64_t> source, token_rows, starts, lengths;
  for (int64_t s = 0; s < S; ++s) {
    starts.push_back(static_cast<int64_t>(source.size()));
    lengths.push_back(W + queries.lengths[static_cast<size_t>(s)]);
    for (int64_t j = 0; j < W; ++j) source.push_back(T + s * W + j);
    for (int64_t i = 0; i < queries.lengths[static_cast<size_t>(s)]; ++i) {
      token_rows.push_back(static_cast<int64_t>(source.size()));
      source.push_back(queries.starts[static_cast<size_t>(s)] + i);
    }
  }
  keys.conv_source_rows = at::tensor(source, at::kLong).to(dev);
  keys.conv_token_rows = at::tensor(token_rows, at::kLong).to(dev);
  keys.conv_layout = std::make_shared<const DeltaRuleLayout>(
      DeltaRuleLayout::build(starts, lengths, static_cast<int64_t>(source.size()), dev, 64, W));
}

// What a prefill of continuing sequences reads; nullopt when no sequence has cached tokens.
// conv_window: the Gated DeltaNet layers' (0 without them).
std::optional<ContextKeys> context_keys(const PrefillContext& context,
                                        const SequenceLayout& queries, bool images,
                                        int64_t conv_window, const at::Device& dev) {
  const size_t S = queries.lengths.size();
  if (context.lengths.size() != S) {
    throw Error(
        fmt::format("prefill: {} context lengths for {} sequences", context.lengths.size(), S));
  }
  std::vector<int64_t> cu = {0};
  std::vector<int64_t> continues;
  bool any = false;
  for (size_t s = 0; s < S; ++s) {
    if (context.lengths[s] < 0) {
      throw Error(fmt::format("prefill: sequence {} has context length {}", s, context.lengths[s]));
    }
    any = any || context.lengths[s] > 0;
    continues.push_back(context.lengths[s] > 0 ? 1 : 0);
    cu.push_back(cu.back() + context.lengths[s] + queries.lengths[s]);
  }
  if (!any) return std::nullopt;
  if (images) {
    throw Error("prefill: continuing a sequence after cached tokens needs a text-only prompt");
  }
  if (context.key_rows.dim() != 1 || context.key_rows.size(0) != cu.back()) {
    throw Error(fmt::format("prefill: context key_rows must be [{}], got {}", cu.back(),
                            shape_string(context.key_rows.sizes())));
  }
  ContextKeys keys;
  keys.layout = SequenceLayout::packed(at::tensor(cu, at::kLong), dev);
  keys.rows = context.key_rows.to(dev, at::kLong);
  keys.continues = at::tensor(continues, at::kLong).to(dev, at::kBool);
  if (conv_window > 0) add_conv_context(keys, queries, conv_window, dev);
  return keys;
}

}  // namespace

struct CausalLM::Impl {
  std::unique_ptr<Decoder> decoder;
  std::unique_ptr<Qwen3_5Vision> vision;  // from_pretrained with_vision
  at::Tensor inv_freq;                    // fp32, on the model's device
  bool checkpointing = false;
  std::shared_ptr<LayerHooks> hooks;
  // Deferred loading: the checkpoint the text model's rows are still to be read from.
  std::shared_ptr<const CheckpointReader> pending;

  const ModelConfig& config() const { return decoder->config(); }

  // Throws for a model whose weights were deferred and not yet read (its tensors have no bytes).
  void require_weights(const char* where) const {
    if (!pending) return;
    throw Error(fmt::format(
        "{}: the weights of {} were deferred for a sharded engine and have not been read (shard "
        "the model first: engine/fsdp/sharded_model.h)",
        where, pending->dir()));
  }

  // Every parameter: the text model's, then the vision tower's.
  std::vector<const WeightSpec*> specs() const {
    std::vector<const WeightSpec*> out;
    for (const WeightSpec& spec : decoder->weights().specs()) out.push_back(&spec);
    if (vision) {
      for (const WeightSpec& spec : vision->table().specs()) out.push_back(&spec);
    }
    return out;
  }

  // A forward with images needs the vision tower, input_ids [T] and position_ids [3, T].
  void check_image_inputs(const char* where, const at::Tensor& input_ids,
                          const at::Tensor& position_ids) const {
    if (!vision) {
      throw Error(
          fmt::format("{}: images given, but the model has no vision tower (load it with "
                      "from_pretrained and with_vision, from a vision-language checkpoint)",
                      where));
    }
    if (input_ids.dim() != 1 || position_ids.dim() != 2 || position_ids.size(0) != 3 ||
        position_ids.size(1) != input_ids.size(0)) {
      throw Error(fmt::format(
          "{}: with images, expected input_ids [tokens] and position_ids [3, tokens], got {} and "
          "{}",
          where, shape_string(input_ids.sizes()), shape_string(position_ids.sizes())));
    }
  }

  // The packed layout of cu_seqlens, checked to end at the `tokens` tokens.
  SequenceLayout packed_layout(const char* where, const at::Tensor& cu_seqlens,
                               int64_t tokens) const {
    SequenceLayout layout = SequenceLayout::packed(cu_seqlens, decoder->embed_tokens.device());
    const int64_t end = layout.starts.empty() ? 0 : layout.starts.back() + layout.lengths.back();
    if (layout.starts.empty() || end != tokens) {
      throw Error(
          fmt::format("{}: cu_seqlens ends at {} but there are {} tokens", where, end, tokens));
    }
    return layout;
  }

  // The image features [n, hidden] at the n image pad tokens of `input_ids`, in order.
  at::Tensor place_images(const at::Tensor& x, const at::Tensor& input_ids,
                          const at::Tensor& features) const {
    const at::Tensor mask = input_ids.eq(config().vision->image_token_id);
    const int64_t pads = mask.sum().item<int64_t>();
    if (pads != features.size(0)) {
      throw Error(
          fmt::format("forward_packed_images: {} image pad tokens (id {}) but the images "
                      "give {} features (t h w / merge^2 each)",
                      pads, config().vision->image_token_id, features.size(0)));
    }
    return x.masked_scatter(mask.unsqueeze(-1), features.to(x.scalar_type()));
  }

  LayerOutput run_layer(int64_t i, const at::Tensor& x, const LayerContext& ctx) const {
    if (!checkpointing || !c10::GradMode::is_enabled() || ctx.state != nullptr) {
      return decoder->layer(i, x, ctx);
    }
    auto closure = c10::make_intrusive<LayerClosure>();
    const Decoder* d = decoder.get();
    closure->run = [d, ctx, i](const at::Tensor& in) { return d->layer(i, in, ctx); };
    const std::vector<at::Tensor> params = decoder->weights().layer_tensors(i);
    const auto out = CheckpointedLayer::apply(x, at::TensorList(params), closure);
    return {out[0], out.size() > 1 ? out[1] : at::Tensor()};
  }

  // Embedding, every layer, the final norm. With `router_logits`, collects the sparse layers'.
  // With `images`, the vision tower's features replace the embeddings of the image pad tokens
  // (the tower runs after before_forward, which gathers its weights under sharding).
  at::Tensor run(const at::Tensor& input_ids, LayerContext& ctx,
                 std::vector<at::Tensor>* router_logits,
                 const ImageInputs* images = nullptr) const {
    ctx.scale = 1.0 / std::sqrt(static_cast<double>(config().head_dim));
    ctx.router_logits = router_logits != nullptr;
    require_weights("forward");
    if (hooks) hooks->before_forward();
    at::Tensor x = at::embedding(decoder->embed_tokens, input_ids);
    if (images != nullptr) {
      x = place_images(x, input_ids, vision->forward(images->pixel_values, images->grids));
    }
    for (int64_t i = 0; i < config().num_hidden_layers; ++i) {
      if (hooks) hooks->before_layer(i);
      LayerOutput out = run_layer(i, x, ctx);
      if (hooks) hooks->after_layer(i, out.hidden, out.router_logits);
      x = std::move(out.hidden);
      if (router_logits != nullptr && out.router_logits.defined()) {
        router_logits->push_back(std::move(out.router_logits));
      }
    }
    return decoder->final_norm(x);
  }

  // The chunked delta-rule layout of the layout's sequences, for models with linear attention.
  void add_delta_rule_layout(LayerContext& ctx, int64_t tokens) const {
    if (config().layer_types.empty()) return;
    const SequenceLayout& l = ctx.layout;
    std::vector<int64_t> starts = l.starts, lengths = l.lengths;
    if (l.padded()) {
      starts.clear();
      for (int64_t b = 0; b < l.batch; ++b) starts.push_back(b * l.length);
      lengths.assign(static_cast<size_t>(l.batch), l.length);
    }
    ctx.delta_rule = std::make_shared<const DeltaRuleLayout>(
        DeltaRuleLayout::build(starts, lengths, tokens, decoder->embed_tokens.device(), 64,
                               config().linear_attention.conv_kernel_dim - 1));
  }

  // The checkpoint as this architecture reads it: Qwen3.5's vision-language layout keeps the text
  // model under model.language_model.* (transformers' qwen3_5_text PrefixChange); the vision tower
  // and the multi-token-prediction head are not part of the text model.
  CheckpointReader open(const std::string& dir) const {
    CheckpointReader reader(dir);
    if (!config().is_qwen3_5()) return reader;
    const int64_t skipped =
        reader.map_prefix("model.language_model.", "model.", {"model.visual.", "mtp."});
    if (skipped > 0 && vision) {
      const auto visual = static_cast<int64_t>(vision->table().specs().size());
      if (skipped > visual) {
        log_note(dir + ": skipped " + std::to_string(skipped - visual) +
                 " tensors of mtp.* (the MTP head; verlpp does not run it)");
      }
    } else if (skipped > 0) {
      log_note(dir + ": skipped " + std::to_string(skipped) +
               " tensors of model.visual.* and mtp.* (the vision tower and MTP head; verlpp runs "
               "the text model)");
    }
    return reader;
  }
};

CausalLM::CausalLM(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

namespace {

// A note naming the checkpoint's tensors the model did not read (transformers warns about its
// "unexpected keys" too): up to five names, then the count.
void note_unread(const CheckpointReader& reader, const std::string& architecture) {
  const std::vector<std::string> unread = reader.unread();
  if (unread.empty()) return;
  const size_t shown = std::min<size_t>(unread.size(), 5);
  std::string names = fmt::format("{}", fmt::join(unread.begin(), unread.begin() + shown, ", "));
  if (unread.size() > shown) names += fmt::format(" and {} more", unread.size() - shown);
  log_note(
      fmt::format("{}: {} tensor(s) of the checkpoint are not part of this {} model and were "
                  "not read: {}",
                  reader.dir(), unread.size(), architecture, names));
}

std::shared_ptr<CausalLM::Impl> empty_impl(const ModelConfig& config) {
  auto impl = std::make_shared<CausalLM::Impl>();
  impl->decoder = make_decoder(config);
  impl->inv_freq = rope_inv_freq(config);
  return impl;
}

}  // namespace

CausalLM CausalLM::from_pretrained(const std::string& dir, at::ScalarType dtype,
                                   const at::Device& device, bool with_vision) {
  return from_pretrained(load_model_config(dir), dir, dtype, device, with_vision);
}

CausalLM CausalLM::from_pretrained(const ModelConfig& config, const std::string& dir,
                                   at::ScalarType dtype, const at::Device& device, bool with_vision,
                                   WeightLoading loading) {
  auto impl = empty_impl(config);
  if (with_vision) {
    if (!impl->config().vision) {
      throw Error(dir +
                  ": a vision tower was asked for, but its config has no vision_config (a "
                  "Qwen3.5 vision-language checkpoint has one)");
    }
    impl->vision = std::make_unique<Qwen3_5Vision>(*impl->config().vision);
    impl->vision->load(CheckpointReader(dir), dtype, device);
  }
  auto reader = std::make_shared<const CheckpointReader>(impl->open(dir));
  const std::string architecture = architecture_class(impl->config().architecture);
  if (loading == WeightLoading::deferred) {
    impl->decoder->weights().defer(*reader, dtype, device, architecture);
    impl->pending = reader;
  } else {
    impl->decoder->weights().load(*reader, dtype, device, architecture);
  }
  note_unread(*reader, architecture);
  impl->inv_freq = impl->inv_freq.to(device);
  return CausalLM(impl);
}

CausalLM CausalLM::random_init(const ModelConfig& config, uint64_t seed, double std,
                               at::ScalarType dtype, const at::Device& device) {
  auto impl = empty_impl(config);
  impl->decoder->weights().init(seed, std, dtype, device);
  if (config.vision_language && config.vision) {
    impl->vision = std::make_unique<Qwen3_5Vision>(*config.vision);
    impl->vision->table().init(seed + 1, std, dtype, device);
  }
  impl->inv_freq = impl->inv_freq.to(device);
  return CausalLM(impl);
}

const ModelConfig& CausalLM::config() const { return impl_->config(); }
at::ScalarType CausalLM::dtype() const { return impl_->decoder->embed_tokens.scalar_type(); }
at::Device CausalLM::device() const { return impl_->decoder->embed_tokens.device(); }

std::vector<std::pair<std::string, at::Tensor>> CausalLM::named_parameters() const {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const WeightSpec* spec : impl_->specs()) out.emplace_back(spec->name, *spec->tensor);
  return out;
}

std::vector<int64_t> CausalLM::parameter_layers() const {
  std::vector<int64_t> out;
  for (const WeightSpec* spec : impl_->specs()) out.push_back(spec->layer);
  return out;
}

void CausalLM::set_requires_grad(bool requires_grad) {
  for (const WeightSpec* spec : impl_->specs()) spec->tensor->requires_grad_(requires_grad);
}

void CausalLM::set_gradient_checkpointing(bool enabled) { impl_->checkpointing = enabled; }

void CausalLM::set_layer_hooks(std::shared_ptr<LayerHooks> hooks) {
  impl_->hooks = std::move(hooks);
}

bool CausalLM::weights_pending() const { return impl_->pending != nullptr; }

at::Tensor CausalLM::checkpoint_rows(std::size_t index, int64_t begin, int64_t count) const {
  const WeightTable& text = impl_->decoder->weights();
  if (!impl_->pending || index >= text.specs().size()) {
    throw Error(fmt::format(
        "checkpoint_rows: parameter {} of the model has no deferred weights to read", index));
  }
  return text.read_rows(*impl_->pending, index, begin, count,
                        architecture_class(config().architecture));
}

void CausalLM::finish_loading() { impl_->pending.reset(); }

void CausalLM::to(at::ScalarType dtype, const at::Device& device) {
  impl_->require_weights("CausalLM::to");
  for (const WeightSpec* spec : impl_->specs()) {
    const bool grad = spec->tensor->requires_grad();
    *spec->tensor = spec->tensor->detach().to(device, dtype).requires_grad_(grad);
  }
  impl_->inv_freq = impl_->inv_freq.to(device);
}

void CausalLM::load_weights(const std::string& dir) {
  impl_->require_weights("load_weights");
  impl_->decoder->weights().copy_from(impl_->open(dir), architecture_class(config().architecture));
  if (impl_->vision) impl_->vision->table().copy_from(CheckpointReader(dir), "the vision tower");
}

at::Tensor CausalLM::forward_packed(const at::Tensor& input_ids, const at::Tensor& position_ids,
                                    const at::Tensor& cu_seqlens,
                                    std::vector<at::Tensor>* router_logits) const {
  if (input_ids.dim() != 1 || position_ids.sizes() != input_ids.sizes()) {
    throw Error(fmt::format(
        "forward_packed: input_ids and position_ids must both be [tokens], got {} and {}",
        shape_string(input_ids.sizes()), shape_string(position_ids.sizes())));
  }
  const at::Device dev = device();
  LayerContext ctx;
  ctx.layout = impl_->packed_layout("forward_packed", cu_seqlens, input_ids.size(0));
  ctx.rope = rope_tables(impl_->inv_freq, position_ids.to(dev), dtype());
  impl_->add_delta_rule_layout(ctx, input_ids.size(0));
  return impl_->run(input_ids.to(dev, at::kLong), ctx, router_logits);
}

bool CausalLM::has_vision() const { return impl_->vision != nullptr; }

at::Tensor CausalLM::forward_packed_images(const at::Tensor& input_ids,
                                           const at::Tensor& position_ids,
                                           const at::Tensor& cu_seqlens, const ImageInputs& images,
                                           std::vector<at::Tensor>* router_logits) const {
  impl_->check_image_inputs("forward_packed_images", input_ids, position_ids);
  const at::Device dev = device();
  LayerContext ctx;
  ctx.layout = impl_->packed_layout("forward_packed_images", cu_seqlens, input_ids.size(0));
  ctx.rope = rope_tables(impl_->inv_freq, position_ids.to(dev), dtype(), config().mrope_section);
  impl_->add_delta_rule_layout(ctx, input_ids.size(0));
  return impl_->run(input_ids.to(dev, at::kLong), ctx, router_logits, &images);
}

at::Tensor CausalLM::forward_padded(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                    const at::Tensor& position_ids,
                                    std::vector<at::Tensor>* router_logits) const {
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
  impl_->add_delta_rule_layout(ctx, B * L);
  const at::Tensor ids = input_ids.to(dev, at::kLong).reshape({B * L});
  return impl_->run(ids, ctx, router_logits).view({B, L, config().hidden_size});
}

std::vector<LayerStateSpec> CausalLM::generation_state() const {
  return impl_->decoder->generation_state();
}

bool CausalLM::decode_capturable() const { return impl_->decoder->decode_capturable(); }

at::Tensor CausalLM::prefill(const at::Tensor& input_ids, const at::Tensor& position_ids,
                             const at::Tensor& cu_seqlens, const std::vector<int64_t>& slots,
                             GenerationStateView& state, const ImageInputs* images) const {
  if (images != nullptr) impl_->check_image_inputs("prefill", input_ids, position_ids);
  if (images == nullptr && (input_ids.dim() != 1 || position_ids.sizes() != input_ids.sizes())) {
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
    if (slot < 0 || slot >= state.slots || len > state.capacity) {
      throw Error(
          fmt::format("prefill: sequence {} ({} tokens, slot {}) does not fit the cache "
                      "({} slots of {} entries)",
                      s, len, slot, state.slots, state.capacity));
    }
    for (int64_t i = 0; i < len; ++i) rows.push_back(slot * state.capacity + i);
  }
  if (static_cast<int64_t>(rows.size()) != input_ids.size(0)) {
    throw Error(fmt::format("prefill: cu_seqlens ends at {} but there are {} tokens", rows.size(),
                            input_ids.size(0)));
  }
  return prefill(input_ids, position_ids, cu_seqlens, at::tensor(rows, at::kLong),
                 at::tensor(slots, at::kLong), state, images);
}

at::Tensor CausalLM::prefill(const at::Tensor& input_ids, const at::Tensor& position_ids,
                             const at::Tensor& cu_seqlens, const at::Tensor& cache_rows,
                             const at::Tensor& state_slots, GenerationStateView& state,
                             const ImageInputs* images, const PrefillContext* context) const {
  const at::Device dev = device();
  LayerContext ctx;
  ctx.layout = SequenceLayout::packed(cu_seqlens, dev);
  const auto S = static_cast<int64_t>(ctx.layout.lengths.size());
  if (images != nullptr) impl_->check_image_inputs("prefill", input_ids, position_ids);
  const bool positions_ok = images != nullptr || position_ids.sizes() == input_ids.sizes();
  if (input_ids.dim() != 1 || !positions_ok || cache_rows.sizes() != input_ids.sizes() ||
      state_slots.dim() != 1 || state_slots.size(0) != S || S == 0 ||
      ctx.layout.starts.back() + ctx.layout.lengths.back() != input_ids.size(0)) {
    throw Error(fmt::format(
        "prefill: input_ids, position_ids and cache_rows must be [tokens] (where cu_seqlens "
        "ends) and state_slots [{}] (one per sequence), got {}, {}, {} and {}",
        S, shape_string(input_ids.sizes()), shape_string(position_ids.sizes()),
        shape_string(cache_rows.sizes()), shape_string(state_slots.sizes())));
  }
  ctx.state = &state;
  ctx.cache_rows = cache_rows.to(dev, at::kLong);
  ctx.rope = rope_tables(impl_->inv_freq, position_ids.to(dev), dtype(), config().mrope_section);
  ctx.sequence_slots = state_slots.to(dev, at::kLong);
  impl_->add_delta_rule_layout(ctx, input_ids.size(0));
  std::optional<ContextKeys> keys;
  if (context != nullptr) {
    const int64_t conv_window = ctx.delta_rule ? ctx.delta_rule->conv_window : 0;
    keys = context_keys(*context, ctx.layout, images != nullptr, conv_window, dev);
  }
  if (keys) ctx.context = &*keys;
  return impl_->run(input_ids.to(dev, at::kLong), ctx, nullptr, images);
}

at::Tensor CausalLM::decode(const at::Tensor& input_ids, const at::Tensor& position_ids,
                            const DecodeView& view, GenerationStateView& state) const {
  const int64_t N = input_ids.size(0);
  if (input_ids.dim() != 1 || position_ids.sizes() != input_ids.sizes() ||
      view.new_rows.sizes() != input_ids.sizes() || view.state_slots.sizes() != input_ids.sizes() ||
      view.lengths.sizes() != input_ids.sizes()) {
    throw Error(
        fmt::format("decode: input_ids, position_ids, new_rows, state_slots and lengths must all "
                    "be [N], got {}, {}, {}, {} and {}",
                    shape_string(input_ids.sizes()), shape_string(position_ids.sizes()),
                    shape_string(view.new_rows.sizes()), shape_string(view.state_slots.sizes()),
                    shape_string(view.lengths.sizes())));
  }
  LayerContext ctx;
  ctx.state = &state;
  ctx.decode = &view;
  ctx.cache_rows = view.new_rows;
  ctx.rope = rope_tables(impl_->inv_freq, position_ids, dtype());
  return impl_->run(input_ids.view({N}), ctx, nullptr);
}

at::Tensor CausalLM::lm_head_weight() const {
  return config().tie_word_embeddings ? impl_->decoder->embed_tokens : impl_->decoder->lm_head;
}

at::Tensor CausalLM::logits(const at::Tensor& hidden) const {
  if (!batch_invariant()) return at::matmul(hidden, lm_head_weight().t());
  std::vector<int64_t> shape = hidden.sizes().vec();
  shape.back() = lm_head_weight().size(0);
  return logits_fp32(hidden.reshape({-1, hidden.size(-1)}), lm_head_weight()).view(shape);
}

void CausalLM::save_pretrained(const std::string& dir, at::ScalarType dtype,
                               uint64_t max_shard_bytes) const {
  impl_->require_weights("save_pretrained");
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  for (const auto& [name, t] : impl_->decoder->weights().hub_tensors()) {
    // With the vision tower: the vision-language layout, the text model under
    // model.language_model.*.
    const bool nest = impl_->vision && name.starts_with("model.");
    tensors.emplace_back(nest ? "model.language_model." + name.substr(6) : name,
                         t.detach().to(at::kCPU, dtype));
  }
  if (impl_->vision) {
    for (const auto& [name, t] : impl_->vision->table().hub_tensors()) {
      tensors.emplace_back(name, t.detach().to(at::kCPU, dtype));
    }
  }
  write_checkpoint(dir, tensors, max_shard_bytes);
  ModelConfig config = this->config();
  config.torch_dtype = dtype_name(dtype);
  config.vision_language = impl_->vision != nullptr;
  write_file_atomically(std::filesystem::path(dir) / "config.json",
                        model_config_to_json(config).dump(2) + "\n");
}

}  // namespace verlpp::model
