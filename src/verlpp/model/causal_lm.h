// A decoder-only causal language model of any registered architecture (model_config.h) on ATen
// tensors, with Hugging Face parameter names: token embedding, the architecture's decoder layers
// (model/arch/), a final RMSNorm and lm_head (or the embedding matrix when tie_word_embeddings).
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "verlpp/model/generation_state.h"
#include "verlpp/model/layer_hooks.h"
#include "verlpp/model/model_config.h"

namespace verlpp::model {

// The images of a vision-language forward: pixel_values [patches, C T P P] (data/image_processor.h)
// and one (t, h, w) grid per image, in order of appearance in the token ids.
struct ImageInputs {
  at::Tensor pixel_values;
  std::vector<std::array<int64_t, 3>> grids;
};

// How from_pretrained fills the text model's parameters.
enum class WeightLoading {
  whole,     // every tensor read and copied to the device
  deferred,  // the same checks, but the tensors get their shape, dtype and device without storage
             // (core/tensor_storage.h): a sharded engine reads each rank's rows (checkpoint_rows)
             // and calls finish_loading(); until then the model refuses to run
};

class CausalLM {
 public:
  // Reads DIR/config.json and the safetensors weights (single or sharded; experts fused or per
  // expert), casting them to `dtype` on `device`. Throws verlpp::Error for an unsupported config,
  // a missing tensor, or a tensor whose shape differs from the config's (both named).
  // with_vision: a Qwen3.5 vision-language checkpoint's vision tower (model.visual.*) is read
  // too, its parameters listed after the text model's in named_parameters(), and
  // forward_packed_images becomes available; throws verlpp::Error when config.json has no
  // vision_config. Without it the tower is skipped (the text model alone).
  static CausalLM from_pretrained(const std::string& dir, at::ScalarType dtype,
                                  const at::Device& device, bool with_vision = false);
  // The same with `config` in place of DIR/config.json: a config read from elsewhere or with
  // overrides applied (verl's model.hf_config_path and override_config; load_model_config).
  // `loading` deferred leaves the text model's bytes in the checkpoint (the vision tower is read
  // whole), so that each rank of a sharded engine reads only its own rows.
  static CausalLM from_pretrained(const ModelConfig& config, const std::string& dir,
                                  at::ScalarType dtype, const at::Device& device,
                                  bool with_vision = false,
                                  WeightLoading loading = WeightLoading::whole);
  // Random weights as transformers' _init_weights: N(0, std^2) matrices and embeddings, RMSNorm
  // weights 1, biases 0, drawn on `device` from a generator seeded with `seed` (weight_table.h),
  // then cast to `dtype`. A vision-language config (vision_language with vision_config) gets a
  // vision tower too, drawn from seed + 1 (LayerNorm weights 1).
  static CausalLM random_init(const ModelConfig& config, uint64_t seed, double std,
                              at::ScalarType dtype,
                              const at::Device& device = at::Device(at::kCPU));

  const ModelConfig& config() const;
  at::ScalarType dtype() const;
  at::Device device() const;

  // (Hugging Face name as transformers 5 holds it in memory, tensor) in declaration order (the
  // weight table's); a tied model has no "lm_head.weight"; fused experts are one tensor each. The
  // tensors are the model's own (in-place changes and .grad() act on the model).
  std::vector<std::pair<std::string, at::Tensor>> named_parameters() const;
  // The decoder layer of each of named_parameters() (-1: embedding, final norm, lm_head).
  std::vector<int64_t> parameter_layers() const;
  void set_requires_grad(bool requires_grad);
  // actor_rollout_ref.model.enable_gradient_checkpointing: layer activations are recomputed in
  // backward instead of kept (needs a backward through torch::autograd; parameter gradients are
  // returned through the graph as usual).
  void set_gradient_checkpointing(bool enabled);
  // Calls `hooks` around every forward pass and decoder layer (engine/fsdp's sharded weights);
  // null removes them.
  void set_layer_hooks(std::shared_ptr<LayerHooks> hooks);
  // Deferred loading: whether the text model's parameters still wait for their bytes; rows
  // [begin, begin + count) of dim 0 of named_parameters()[index] (a text-model parameter) as the
  // checkpoint stores them (CPU, the stored dtype; experts for a fused expert tensor); the end of
  // the loading (the checkpoint is closed, the model runs). checkpoint_rows throws verlpp::Error
  // when the model has no deferred weights, for another index and for rows outside the tensor.
  // Every forward, to(), load_weights and save_pretrained throw verlpp::Error while pending.
  bool weights_pending() const;
  at::Tensor checkpoint_rows(std::size_t index, int64_t begin, int64_t count) const;
  void finish_loading();
  // Casts/moves every parameter (gradients are dropped; requires_grad kept).
  void to(at::ScalarType dtype, const at::Device& device);
  // Copies the weights of the checkpoint folder `dir` into this model's parameters (their dtype
  // and device; either expert layout; the vision tower's too when the model has one). Throws
  // verlpp::Error as from_pretrained for a missing or mis-shaped tensor.
  void load_weights(const std::string& dir);

  // Packed forward (verl's use_remove_padding). input_ids, position_ids: int64 [T];
  // cu_seqlens: [S+1] integer (0, cumulative lengths). Returns the final-norm hidden states
  // [T, hidden_size] in the model dtype. Attention never crosses sequence boundaries. With
  // `router_logits`, it receives the router logits [T, num_experts] (model dtype, differentiable)
  // of every sparse MoE layer in layer order (none for a dense model).
  at::Tensor forward_packed(const at::Tensor& input_ids, const at::Tensor& position_ids,
                            const at::Tensor& cu_seqlens,
                            std::vector<at::Tensor>* router_logits = nullptr) const;
  // Packed forward of sequences holding images (Qwen3.5 vision-language, from_pretrained with
  // with_vision): as forward_packed, with position_ids [3, T] int64, the M-RoPE streams
  // (mrope_positions.h), and the images' features (the vision tower on pixel_values
  // [patches, C T P P] with one (t, h, w) grid per image, in order of appearance) placed at the
  // image pad tokens in order. Throws verlpp::Error without a vision tower, on mismatched shapes,
  // or when the pad tokens and the features differ in number.
  at::Tensor forward_packed_images(const at::Tensor& input_ids, const at::Tensor& position_ids,
                                   const at::Tensor& cu_seqlens, const ImageInputs& images,
                                   std::vector<at::Tensor>* router_logits = nullptr) const;
  bool has_vision() const;
  // Padded forward. input_ids, attention_mask: [B, L] (mask nonzero = real token; any padding
  // side). position_ids [B, L] int64, or undefined for cumsum(mask) - 1 (0 at padding), as
  // transformers/verl compute them. Returns [B, L, hidden_size]; rows at padding are meaningless
  // (router logits, [B * L, num_experts] per sparse layer, include them).
  at::Tensor forward_padded(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                            const at::Tensor& position_ids = at::Tensor(),
                            std::vector<at::Tensor>* router_logits = nullptr) const;

  // The state each layer keeps during generation; the rollout allocates it (rollout/kv_cache.h).
  std::vector<LayerStateSpec> generation_state() const;
  // Whether the rollout may replay decode steps from CUDA graphs for this architecture.
  bool decode_capturable() const;
  // Prefill for incremental decoding: forward_packed that also stores every token's keys/values
  // in `state` (sequence s at slot slots[s], entries [0, length_s)). Inputs as forward_packed;
  // slots: one per sequence. Returns [T, hidden_size]. Throws verlpp::Error on mismatched shapes
  // or a sequence that does not fit its slot. Not differentiable (the rollout runs without grad).
  // With `images` (a model with a vision tower): position_ids [3, T] and the images' features at
  // the image pad tokens, as forward_packed_images; decode steps then continue every stream at
  // (index + rope_delta), one position per token (mrope_positions.h).
  at::Tensor prefill(const at::Tensor& input_ids, const at::Tensor& position_ids,
                     const at::Tensor& cu_seqlens, const std::vector<int64_t>& slots,
                     GenerationStateView& state, const ImageInputs* images = nullptr) const;
  // The same with the storage given row by row (a paged cache, rollout/kv_cache_manager.h): token
  // t's keys and values go to row cache_rows[t] of every attention layer, sequence s's conv window
  // and recurrent state to slot state_slots[s]. cache_rows [T], state_slots [S] int64. Throws
  // verlpp::Error on mismatched shapes. With `context`, sequences continue after tokens already in
  // the cache (chunked prefill, prefix-cache hits): sequence s's tokens sit at positions
  // context->lengths[s] onwards and attend to the cached ones too; Gated DeltaNet layers carry on
  // from the sequence's slot (its conv window and recurrent state; a sequence with no cached
  // tokens starts from zeros whatever its slot holds). Throws verlpp::Error when context's sizes
  // do not match, and when a sequence with cached tokens has images.
  at::Tensor prefill(const at::Tensor& input_ids, const at::Tensor& position_ids,
                     const at::Tensor& cu_seqlens, const at::Tensor& cache_rows,
                     const at::Tensor& state_slots, GenerationStateView& state,
                     const ImageInputs* images = nullptr,
                     const PrefillContext* context = nullptr) const;
  // One decode step: token n (input_ids, position_ids [N] int64 on the model's device) is stored at
  // cache entry view.lengths[n] - 1 of its slot and attends to entries [0, view.lengths[n]).
  // Returns [N, hidden_size]. Throws verlpp::Error on mismatched shapes.
  at::Tensor decode(const at::Tensor& input_ids, const at::Tensor& position_ids,
                    const DecodeView& view, GenerationStateView& state) const;

  // The output projection [vocab_size, hidden_size] (the embedding when tied).
  at::Tensor lm_head_weight() const;
  // hidden [..., hidden_size] -> logits [..., vocab_size] in the model dtype; fp32 in
  // batch-invariant mode (model/batch_invariant.h), from kernels::invariant_linear.
  at::Tensor logits(const at::Tensor& hidden) const;

  // Writes config.json (torch_dtype = dtype) and the weights cast to `dtype`, as save_pretrained
  // does (the hub layout: experts per expert; sharded into max_shard_bytes files when > 0). With a
  // vision tower: Qwen3.5's vision-language layout (text weights under model.language_model.*,
  // model.visual.*, config.json with text_config and vision_config), which from_pretrained reads
  // back with or without the tower. Without one, the text model alone.
  // Throws verlpp::Error on I/O failure.
  void save_pretrained(const std::string& dir, at::ScalarType dtype,
                       uint64_t max_shard_bytes = 0) const;

  struct Impl;  // opaque (causal_lm.cpp)
  explicit CausalLM(std::shared_ptr<Impl> impl);

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace verlpp::model
