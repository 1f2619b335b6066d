#include "verlpp/rollout/kv_cache.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>

#include "verlpp/core/error.h"

namespace verlpp::rollout {

namespace {

// Every layer's storage: attention layers `rows` rows of keys and values, linear-attention layers
// `slots` conv windows and recurrent states.
model::GenerationStateView allocate(const std::vector<model::LayerStateSpec>& layers, int64_t rows,
                                    int64_t slots, at::ScalarType dtype, const at::Device& device) {
  model::GenerationStateView view;
  view.slots = slots;
  const auto options = at::TensorOptions().dtype(dtype).device(device);
  for (const model::LayerStateSpec& spec : layers) {
    if (spec.kind == model::LayerStateKind::linear_attention) {
      view.layers.emplace_back();
      view.recurrent.push_back(
          {at::zeros({slots, spec.conv_dim, spec.conv_window}, options),
           at::zeros({slots, spec.value_heads, spec.key_head_dim, spec.value_head_dim},
                     options.dtype(at::kFloat))});
      continue;
    }
    // Zeros, not empty: the eager path multiplies entries beyond a sequence's length by a 0
    // weight, and 0 * (uninitialised NaN) would be NaN.
    view.layers.push_back({at::zeros({rows, spec.kv_heads, spec.head_dim}, options),
                           at::zeros({rows, spec.kv_heads, spec.head_dim}, options)});
    view.recurrent.emplace_back();
  }
  return view;
}

void copy_rows(const at::Tensor& state, const at::Tensor& src, const at::Tensor& dst) {
  state.index_copy_(0, dst, state.index_select(0, src));
}

}  // namespace

KVCache::KVCache(const std::vector<model::LayerStateSpec>& layers, int64_t slots, int64_t capacity,
                 at::ScalarType dtype, const at::Device& device) {
  if (slots < 1 || capacity < 1) {
    throw Error(
        fmt::format("KV cache: slots ({}) and capacity ({}) must be >= 1", slots, capacity));
  }
  view_ = allocate(layers, slots * capacity, slots, dtype, device);
  view_.capacity = capacity;
}

void KVCache::copy_slots(const at::Tensor& src, const at::Tensor& dst, int64_t length) {
  if (src.numel() == 0) return;
  const int64_t n = std::min(length, view_.capacity);
  const auto copy = [&](const at::Tensor& state) { copy_rows(state, src, dst); };
  for (const model::KVCacheView& kv : view_.layers) {
    if (!kv.keys.defined()) continue;
    for (const at::Tensor& t : {kv.keys, kv.values}) {
      copy(t.view({view_.slots, view_.capacity, t.size(1), t.size(2)}).narrow(1, 0, n));
    }
  }
  for (const model::RecurrentStateView& r : view_.recurrent) {
    if (!r.conv.defined()) continue;
    copy(r.conv);
    copy(r.recurrent);
  }
}

PagedKVCache::PagedKVCache(const std::vector<model::LayerStateSpec>& layers, int64_t num_blocks,
                           int64_t block_size, int64_t state_slots, at::ScalarType dtype,
                           const at::Device& device)
    : block_size_(block_size) {
  if (num_blocks < 0 || block_size < 1 || state_slots < 0) {
    throw Error(fmt::format(
        "paged KV cache: num_blocks ({}) and state_slots ({}) must be >= 0, block_size ({}) >= 1",
        num_blocks, state_slots, block_size));
  }
  view_ = allocate(layers, num_blocks * block_size, state_slots, dtype, device);
}

void PagedKVCache::copy_blocks(const at::Tensor& src, const at::Tensor& dst) {
  if (src.numel() == 0) return;
  for (const model::KVCacheView& kv : view_.layers) {
    if (!kv.keys.defined()) continue;
    for (const at::Tensor& t : {kv.keys, kv.values}) {
      copy_rows(t.view({t.size(0) / block_size_, block_size_, t.size(1), t.size(2)}), src, dst);
    }
  }
}

void PagedKVCache::copy_state_slots(const at::Tensor& src, const at::Tensor& dst) {
  if (src.numel() == 0) return;
  for (const model::RecurrentStateView& r : view_.recurrent) {
    if (!r.conv.defined()) continue;
    copy_rows(r.conv, src, dst);
    copy_rows(r.recurrent, src, dst);
  }
}

}  // namespace verlpp::rollout
