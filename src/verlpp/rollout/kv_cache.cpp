#include "verlpp/rollout/kv_cache.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>

#include "verlpp/core/error.h"

namespace verlpp::rollout {

KVCache::KVCache(const std::vector<model::LayerStateSpec>& layers, int64_t slots, int64_t capacity,
                 at::ScalarType dtype, const at::Device& device) {
  if (slots < 1 || capacity < 1) {
    throw Error(
        fmt::format("KV cache: slots ({}) and capacity ({}) must be >= 1", slots, capacity));
  }
  view_.slots = slots;
  view_.capacity = capacity;
  const auto options = at::TensorOptions().dtype(dtype).device(device);
  for (const model::LayerStateSpec& spec : layers) {
    if (spec.kind == model::LayerStateKind::linear_attention) {
      view_.layers.emplace_back();
      view_.recurrent.push_back(
          {at::zeros({slots, spec.conv_dim, spec.conv_window}, options),
           at::zeros({slots, spec.value_heads, spec.key_head_dim, spec.value_head_dim},
                     options.dtype(at::kFloat))});
      continue;
    }
    // Zeros, not empty: the eager path multiplies entries beyond a sequence's length by a 0
    // weight, and 0 * (uninitialised NaN) would be NaN.
    view_.layers.push_back({at::zeros({slots * capacity, spec.kv_heads, spec.head_dim}, options),
                            at::zeros({slots * capacity, spec.kv_heads, spec.head_dim}, options)});
    view_.recurrent.emplace_back();
  }
}

void KVCache::copy_slots(const at::Tensor& src, const at::Tensor& dst, int64_t length) {
  if (src.numel() == 0) return;
  const int64_t n = std::min(length, view_.capacity);
  const auto copy = [&](const at::Tensor& state) {
    state.index_copy_(0, dst, state.index_select(0, src));
  };
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

}  // namespace verlpp::rollout
