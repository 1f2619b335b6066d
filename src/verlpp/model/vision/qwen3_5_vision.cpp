#include "verlpp/model/vision/qwen3_5_vision.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "verlpp/core/error.h"
#include "verlpp/model/checkpoint.h"

namespace verlpp::model {
namespace {

constexpr double kLayerNormEps = 1e-6;

// Where each patch row sits and what it reads from the learned position table.
struct PatchLayout {
  std::vector<float> rows, cols;     // full-resolution patch row and column
  std::vector<int64_t> table_index;  // [N, 4] bilinear taps into the side x side table
  std::vector<float> table_weight;   // [N, 4], fp32 as transformers' vision_utils computes them
  std::vector<int64_t> frames;       // patches per attention segment (one per image frame)
};

// One axis of transformers' align_corners bilinear resampling, in fp32: src = i (side - 1) /
// max(n - 1, 1); taps floor(src) and floor(src) + 1 (clamped), weights 1 - |src - tap|.
void axis_taps(int64_t i, int64_t n, int64_t side, int64_t taps[2], float weights[2]) {
  const float src = static_cast<float>(i) * static_cast<float>(side - 1) /
                    static_cast<float>(std::max<int64_t>(n - 1, 1));
  const float lo = std::floor(src);
  for (int o = 0; o < 2; ++o) {
    taps[o] = std::clamp<int64_t>(static_cast<int64_t>(lo) + o, 0, side - 1);
    weights[o] = std::max(1.0f - std::fabs(src - lo - static_cast<float>(o)), 0.0f);
  }
}

PatchLayout patch_layout(const std::vector<std::array<int64_t, 3>>& grids, int64_t merge,
                         int64_t side) {
  PatchLayout l;
  for (std::size_t image = 0; image < grids.size(); ++image) {
    const auto [t, h, w] = grids[image];
    if (t < 1 || h < 1 || w < 1 || h % merge != 0 || w % merge != 0) {
      throw Error(
          fmt::format("vision tower: image {} has grid ({}, {}, {}); expected positive "
                      "sides, h and w multiples of the merge size {}",
                      image, t, h, w, merge));
    }
    for (int64_t frame = 0; frame < t; ++frame) {
      l.frames.push_back(h * w);
      for (int64_t k = 0; k < h * w; ++k) {
        const int64_t block = k / (merge * merge), within = k % (merge * merge);
        const int64_t row = (block / (w / merge)) * merge + within / merge;
        const int64_t col = (block % (w / merge)) * merge + within % merge;
        l.rows.push_back(static_cast<float>(row));
        l.cols.push_back(static_cast<float>(col));
        int64_t ty[2], tx[2];
        float wy[2], wx[2];
        axis_taps(row, h, side, ty, wy);
        axis_taps(col, w, side, tx, wx);
        for (int a = 0; a < 2; ++a) {
          for (int b = 0; b < 2; ++b) {
            l.table_index.push_back(ty[a] * side + tx[b]);
            l.table_weight.push_back(wy[a] * wx[b]);
          }
        }
      }
    }
  }
  return l;
}

at::Tensor rotate_half(const at::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

// x [N, heads, d] -> x cos + rotate_half(x) sin in fp32 (cos/sin [N, d]), back to x's dtype.
at::Tensor apply_rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const at::Tensor f = x.to(at::kFloat);
  return (f * cos.unsqueeze(1) + rotate_half(f) * sin.unsqueeze(1)).to(x.scalar_type());
}

// Bidirectional attention within each segment: q, k, v [N, heads, d] -> [N, heads d].
at::Tensor segment_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const std::vector<int64_t>& frames, double scale) {
  std::vector<at::Tensor> outputs;
  int64_t start = 0;
  for (const int64_t n : frames) {
    const at::Tensor qs = q.narrow(0, start, n).transpose(0, 1);
    const at::Tensor ks = k.narrow(0, start, n).transpose(0, 1);
    const at::Tensor vs = v.narrow(0, start, n).transpose(0, 1);
    const at::Tensor p =
        at::softmax(at::matmul(qs, ks.transpose(1, 2)) * scale, -1, at::kFloat).to(q.scalar_type());
    outputs.push_back(at::matmul(p, vs).transpose(0, 1).reshape({n, -1}));
    start += n;
  }
  return at::cat(outputs);
}

}  // namespace

Qwen3_5Vision::Qwen3_5Vision(const VisionConfig& config) : config_(config) {
  blocks_.resize(static_cast<std::size_t>(config.depth));
  declare();
}

void Qwen3_5Vision::declare() {
  const VisionConfig& c = config_;
  const int64_t D = c.hidden_size, I = c.intermediate_size,
                merged = D * c.spatial_merge_size * c.spatial_merge_size;
  const auto add = [&](const std::string& name, std::vector<int64_t> shape, at::Tensor* tensor,
                       const char* from, WeightInit init = WeightInit::normal) {
    table_.add({"model.visual." + name, std::move(shape), init, -1, 0, from, {}, tensor});
  };
  add("patch_embed.proj.weight",
      {D, c.in_channels, c.temporal_patch_size, c.patch_size, c.patch_size}, &patch_weight,
      "vision_config: hidden_size, in_channels, temporal_patch_size, patch_size");
  add("patch_embed.proj.bias", {D}, &patch_bias, "vision_config: hidden_size", WeightInit::zeros);
  add("pos_embed.weight", {c.num_position_embeddings, D}, &pos_embed,
      "vision_config: num_position_embeddings, hidden_size");
  for (int64_t i = 0; i < c.depth; ++i) {
    Block& b = blocks_[static_cast<std::size_t>(i)];
    const std::string p = fmt::format("blocks.{}.", i);
    const char* hd = "vision_config: hidden_size";
    const char* hi = "vision_config: hidden_size, intermediate_size";
    add(p + "norm1.weight", {D}, &b.norm1_weight, hd, WeightInit::ones);
    add(p + "norm1.bias", {D}, &b.norm1_bias, hd, WeightInit::zeros);
    add(p + "attn.qkv.weight", {3 * D, D}, &b.qkv_weight, hd);
    add(p + "attn.qkv.bias", {3 * D}, &b.qkv_bias, hd, WeightInit::zeros);
    add(p + "attn.proj.weight", {D, D}, &b.proj_weight, hd);
    add(p + "attn.proj.bias", {D}, &b.proj_bias, hd, WeightInit::zeros);
    add(p + "norm2.weight", {D}, &b.norm2_weight, hd, WeightInit::ones);
    add(p + "norm2.bias", {D}, &b.norm2_bias, hd, WeightInit::zeros);
    add(p + "mlp.linear_fc1.weight", {I, D}, &b.fc1_weight, hi);
    add(p + "mlp.linear_fc1.bias", {I}, &b.fc1_bias, hi, WeightInit::zeros);
    add(p + "mlp.linear_fc2.weight", {D, I}, &b.fc2_weight, hi);
    add(p + "mlp.linear_fc2.bias", {D}, &b.fc2_bias, hi, WeightInit::zeros);
  }
  const char* mm = "vision_config: hidden_size, spatial_merge_size";
  add("merger.norm.weight", {D}, &merger_norm_weight, "vision_config: hidden_size",
      WeightInit::ones);
  add("merger.norm.bias", {D}, &merger_norm_bias, "vision_config: hidden_size", WeightInit::zeros);
  add("merger.linear_fc1.weight", {merged, merged}, &merger_fc1_weight, mm);
  add("merger.linear_fc1.bias", {merged}, &merger_fc1_bias, mm, WeightInit::zeros);
  add("merger.linear_fc2.weight", {c.out_hidden_size, merged}, &merger_fc2_weight,
      "vision_config: out_hidden_size, hidden_size, spatial_merge_size");
  add("merger.linear_fc2.bias", {c.out_hidden_size}, &merger_fc2_bias,
      "vision_config: out_hidden_size", WeightInit::zeros);
}

void Qwen3_5Vision::load(const CheckpointReader& reader, at::ScalarType dtype,
                         const at::Device& device) {
  table_.load(reader, dtype, device, "Qwen3_5VisionModel");
}

at::Tensor Qwen3_5Vision::block(const Block& b, const at::Tensor& x, const at::Tensor& cos,
                                const at::Tensor& sin, const std::vector<int64_t>& frames) const {
  const int64_t N = x.size(0), D = config_.hidden_size, heads = config_.num_heads;
  const at::Tensor h = at::layer_norm(x, {D}, b.norm1_weight, b.norm1_bias, kLayerNormEps);
  const at::Tensor qkv = at::linear(h, b.qkv_weight, b.qkv_bias).view({N, 3, heads, -1});
  const at::Tensor q = apply_rotary(qkv.select(1, 0), cos, sin);
  const at::Tensor k = apply_rotary(qkv.select(1, 1), cos, sin);
  const double scale = 1.0 / std::sqrt(static_cast<double>(config_.head_dim()));
  const at::Tensor attended = segment_attention(q, k, qkv.select(1, 2), frames, scale);
  const at::Tensor r = x + at::linear(attended, b.proj_weight, b.proj_bias);
  const at::Tensor m = at::layer_norm(r, {D}, b.norm2_weight, b.norm2_bias, kLayerNormEps);
  const at::Tensor up = at::gelu(at::linear(m, b.fc1_weight, b.fc1_bias), "tanh");
  return r + at::linear(up, b.fc2_weight, b.fc2_bias);
}

at::Tensor Qwen3_5Vision::forward(const at::Tensor& pixel_values,
                                  const std::vector<std::array<int64_t, 3>>& grids) const {
  const VisionConfig& c = config_;
  const PatchLayout l = patch_layout(grids, c.spatial_merge_size, c.grid_per_side());
  const auto N = static_cast<int64_t>(l.rows.size());
  if (pixel_values.dim() != 2 || pixel_values.size(0) != N ||
      pixel_values.size(1) != c.patch_dim()) {
    throw Error(fmt::format("vision tower: pixel_values must be [{}, {}] for these grids; got [{}]",
                            N, c.patch_dim(), fmt::join(pixel_values.sizes(), ", ")));
  }
  const at::Device device = patch_weight.device();
  const auto dtype = patch_weight.scalar_type();
  const auto cpu_long = at::TensorOptions().dtype(at::kLong);
  const auto cpu_float = at::TensorOptions().dtype(at::kFloat);
  at::Tensor x = at::linear(pixel_values.to(device, dtype), patch_weight.view({c.hidden_size, -1}),
                            patch_bias);
  const at::Tensor index = at::tensor(l.table_index, cpu_long).to(device);
  const at::Tensor weight = at::tensor(l.table_weight, cpu_float).to(device).view({N, 4, 1});
  x = x + (pos_embed.index_select(0, index).view({N, 4, -1}) * weight).sum(1).to(dtype);
  // Axial 2-D rotary: inv_freq_k = theta^(-2k / (d/2)), k < d/4; angles (rows | columns), twice.
  const int64_t half = c.head_dim() / 2;
  const at::Tensor inv_freq =
      at::pow(c.rope_theta, at::arange(0, half, 2, cpu_float) / static_cast<double>(half))
          .reciprocal()
          .to(device);
  const at::Tensor rows = at::tensor(l.rows, cpu_float).to(device).unsqueeze(1) * inv_freq;
  const at::Tensor cols = at::tensor(l.cols, cpu_float).to(device).unsqueeze(1) * inv_freq;
  const at::Tensor angles = at::cat({rows, cols}, -1);
  const at::Tensor cos = at::cat({angles.cos(), angles.cos()}, -1);
  const at::Tensor sin = at::cat({angles.sin(), angles.sin()}, -1);
  for (const Block& b : blocks_) x = block(b, x, cos, sin, l.frames);
  const int64_t merged = c.hidden_size * c.spatial_merge_size * c.spatial_merge_size;
  const at::Tensor normed =
      at::layer_norm(x, {c.hidden_size}, merger_norm_weight, merger_norm_bias, kLayerNormEps)
          .view({-1, merged});
  const at::Tensor hidden = at::gelu(at::linear(normed, merger_fc1_weight, merger_fc1_bias));
  return at::linear(hidden, merger_fc2_weight, merger_fc2_bias);
}

}  // namespace verlpp::model
