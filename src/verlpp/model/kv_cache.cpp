#include "verlpp/model/kv_cache.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <limits>

#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/kernels/decode_attention.h"

namespace verlpp::model {

KVCache::KVCache(const ModelConfig& config, int64_t slots, int64_t capacity, at::ScalarType dtype,
                 const at::Device& device)
    : slots_(slots), capacity_(capacity) {
  if (slots < 1 || capacity < 1) {
    throw Error(
        fmt::format("KV cache: slots ({}) and capacity ({}) must be >= 1", slots, capacity));
  }
  const auto options = at::TensorOptions().dtype(dtype).device(device);
  for (int64_t l = 0; l < config.num_hidden_layers; ++l) {
    // Zeros, not empty: the eager path multiplies entries beyond a sequence's length by a 0
    // weight, and 0 * (uninitialised NaN) would be NaN.
    keys_.push_back(
        at::zeros({slots * capacity, config.num_key_value_heads, config.head_dim}, options));
    values_.push_back(
        at::zeros({slots * capacity, config.num_key_value_heads, config.head_dim}, options));
  }
}

void KVCache::store(int64_t layer, const at::Tensor& k, const at::Tensor& v,
                    const at::Tensor& rows) {
  keys_.at(static_cast<size_t>(layer)).index_copy_(0, rows, k);
  values_.at(static_cast<size_t>(layer)).index_copy_(0, rows, v);
}

namespace {

// Gathers each sequence's first max_length entries: [N, max_length, kv_heads, d].
at::Tensor gather_prefix(const at::Tensor& flat, const DecodeView& view) {
  const at::Tensor offsets = at::arange(view.max_length, view.slot_starts.options());
  const at::Tensor rows = (view.slot_starts.unsqueeze(1) + offsets.unsqueeze(0)).reshape({-1});
  return flat.index_select(0, rows).view(
      {view.slot_starts.size(0), view.max_length, flat.size(1), flat.size(2)});
}

at::Tensor eager_decode(const at::Tensor& q, const KVCache& cache, int64_t layer,
                        const DecodeView& view, double scale) {
  const int64_t N = q.size(0);
  const int64_t H = q.size(1);
  const int64_t d = q.size(2);
  const at::Tensor k = gather_prefix(cache.keys(layer), view);    // [N, L, KV, d]
  const at::Tensor v = gather_prefix(cache.values(layer), view);  // [N, L, KV, d]
  const int64_t KV = k.size(2);
  const at::Tensor qg = q.view({N, KV, H / KV, d});                     // [N, KV, G, d]
  at::Tensor scores = at::matmul(qg, k.permute({0, 2, 3, 1})) * scale;  // [N, KV, G, L]
  const at::Tensor positions = at::arange(view.max_length, view.lengths.options());
  const at::Tensor beyond = positions.unsqueeze(0).ge(view.lengths.unsqueeze(1));  // [N, L]
  scores = scores.masked_fill(beyond.view({N, 1, 1, view.max_length}),
                              -std::numeric_limits<double>::infinity());
  const at::Tensor probs = at::softmax(scores, -1, at::kFloat).to(q.scalar_type());
  return at::matmul(probs, v.permute({0, 2, 1, 3})).reshape({N, H, d});  // [N, KV, G, d]
}

}  // namespace

at::Tensor decode_attention(const at::Tensor& q, const KVCache& cache, int64_t layer,
                            const DecodeView& view, double scale) {
  if (view.max_length < 1 || view.max_length > cache.capacity()) {
    throw Error(fmt::format("decode attention: max_length {} outside [1, capacity {}]",
                            view.max_length, cache.capacity()));
  }
  const at::Tensor& keys = cache.keys(layer);
  const at::Tensor& values = cache.values(layer);
  if (view.cu_starts_i32.defined()) {
    if (kernels::can_decode_attention(q, keys)) {
      return kernels::decode_attention(q, keys, values, view.cu_starts_i32, view.lengths_i32,
                                       view.max_length, scale);
    }
    const bool half = q.scalar_type() == at::kBFloat16 || q.scalar_type() == at::kHalf;
    if (q.is_cuda() && half && compat::has_flash_attention_kvcache()) {
      return compat::flash_attention_kvcache(q, keys, values, view.cu_starts_i32, view.lengths_i32,
                                             view.max_length, scale);
    }
  }
  return eager_decode(q, cache, layer, view, scale);
}

}  // namespace verlpp::model
