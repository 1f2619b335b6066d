#include "verlpp/engine/response_forward.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "verlpp/core/error.h"
#include "verlpp/model/mrope_positions.h"

namespace verlpp::engine {
namespace {

at::Tensor positions_of(const data::Batch& batch, const at::Tensor& mask) {
  if (batch.has_tensor("position_ids")) return batch.tensor("position_ids");
  return (mask.cumsum(1) - 1).clamp_min(0);
}

// Hidden states of every [row, column] of the padded grid, flattened to [B * L, H] indices through
// `grid_index` ([B, L] -> row of the returned tensor).
struct GridHidden {
  at::Tensor hidden;
  at::Tensor grid_index;
};

// Whether any row holds an image (per-row tensors pixel_values and image_grid_thw).
bool has_images(const data::Batch& batch) {
  if (!batch.has_row_tensors("image_grid_thw")) return false;
  for (const at::Tensor& grids : batch.row_tensors("image_grid_thw")) {
    if (grids.size(0) > 0) return true;
  }
  return false;
}

// The packed forward's inputs for rows with images: every row's real tokens with their M-RoPE
// streams [3, T] (get_rope_index over prompt and response, as verl recomputes them for training;
// the response continues all three streams), and the rows' images in order.
struct PackedImages {
  at::Tensor positions;
  model::ImageInputs images;
};

PackedImages packed_images(const model::CausalLM& model, const data::Batch& batch,
                           const at::Tensor& ids, const at::Tensor& mask) {
  if (!model.has_vision()) {
    throw Error(
        "actor forward: the batch holds images but the model has no vision tower (a Qwen3.5 "
        "vision-language checkpoint is needed)");
  }
  const model::VisionConfig& vision = *model.config().vision;
  const at::Tensor host_ids = ids.to(at::kCPU, at::kLong).contiguous();
  const at::Tensor host_mask = mask.to(at::kCPU).ne(0).contiguous();
  const auto& pixels = batch.row_tensors("pixel_values");
  const auto& grids = batch.row_tensors("image_grid_thw");
  PackedImages out;
  std::vector<at::Tensor> positions, pixel_parts;
  for (int64_t b = 0; b < ids.size(0); ++b) {
    const at::Tensor real = host_ids[b].masked_select(host_mask[b]).contiguous();
    const std::vector<int64_t> row(real.data_ptr<int64_t>(),
                                   real.data_ptr<int64_t>() + real.numel());
    try {
      const auto row_grids = model::image_grids(grids[static_cast<size_t>(b)]);
      if (!row_grids.empty()) pixel_parts.push_back(pixels[static_cast<size_t>(b)]);
      out.images.grids.insert(out.images.grids.end(), row_grids.begin(), row_grids.end());
      positions.push_back(
          model::mrope_positions(row, row_grids, vision.image_token_id, vision.spatial_merge_size)
              .positions);
    } catch (const Error& e) {
      throw Error(fmt::format("actor forward: row {}: {}", b, e.what()));
    }
  }
  out.positions = at::cat(positions, 1);
  out.images.pixel_values = at::cat(pixel_parts, 0).to(model.device());
  return out;
}

GridHidden packed_hidden(const model::CausalLM& model, const data::Batch& batch,
                         const at::Tensor& ids, const at::Tensor& mask, const at::Tensor& positions,
                         std::vector<at::Tensor>* router_logits) {
  const at::Tensor flat_mask = mask.reshape({-1}).to(at::kLong);
  const at::Tensor tokens = flat_mask.nonzero().reshape({-1});
  const at::Tensor seqlens = mask.to(at::kLong).sum(1);
  const at::Tensor cu_seqlens =
      at::cat({at::zeros({1}, seqlens.options()), seqlens.cumsum(0)}).to(at::kInt);
  const at::Tensor packed_ids = ids.reshape({-1}).index_select(0, tokens);
  at::Tensor hidden;
  if (has_images(batch)) {
    const PackedImages in = packed_images(model, batch, ids, mask);
    hidden =
        model.forward_packed_images(packed_ids, in.positions, cu_seqlens, in.images, router_logits);
  } else {
    hidden = model.forward_packed(packed_ids, positions.reshape({-1}).index_select(0, tokens),
                                  cu_seqlens, router_logits);
  }
  return {hidden, (flat_mask.cumsum(0) - 1).view(mask.sizes())};
}

GridHidden padded_hidden(const model::CausalLM& model, const at::Tensor& ids,
                         const at::Tensor& mask, const at::Tensor& positions,
                         std::vector<at::Tensor>* router_logits) {
  const at::Tensor hidden = model.forward_padded(ids, mask, positions, router_logits);
  if (router_logits != nullptr) {
    const at::Tensor real = mask.reshape({-1}).ne(0).nonzero().reshape({-1});
    for (at::Tensor& r : *router_logits) r = r.index_select(0, real);
  }
  const auto rows = ids.size(0), width = ids.size(1);
  const at::Tensor index =
      at::arange(rows * width, ids.options().dtype(at::kLong)).view({rows, width});
  return {hidden.reshape({rows * width, hidden.size(2)}), index};
}

}  // namespace

ResponseHidden response_hidden(const model::CausalLM& model, const data::Batch& batch,
                               bool remove_padding, bool router_logits) {
  const at::Tensor& ids = batch.tensor("input_ids");
  const at::Tensor& mask = batch.tensor("attention_mask");
  const at::Tensor& responses = batch.tensor("responses");
  if (ids.dim() != 2 || mask.sizes() != ids.sizes() || responses.dim() != 2 ||
      responses.size(1) >= ids.size(1)) {
    throw Error(
        "actor forward: expected input_ids and attention_mask [B, P + R] and responses "
        "[B, R] with P >= 1");
  }
  const auto device = model.device();
  const at::Tensor d_ids = ids.to(device), d_mask = mask.to(device);
  const at::Tensor positions = positions_of(batch, mask).to(device);
  const std::int64_t rows = ids.size(0), R = responses.size(1), P = ids.size(1) - R;

  ResponseHidden out;
  std::vector<at::Tensor>* router = router_logits ? &out.router_logits : nullptr;
  const GridHidden grid = remove_padding || has_images(batch)
                              ? packed_hidden(model, batch, d_ids, d_mask, positions, router)
                              : padded_hidden(model, d_ids, d_mask, positions, router);
  const at::Tensor scored = d_mask.slice(1, P).reshape({-1}).ne(0);
  const at::Tensor flat_index = scored.nonzero().reshape({-1});
  const at::Tensor row = flat_index.div(R, "floor"), col = flat_index.remainder(R);
  const at::Tensor source = grid.grid_index.index({row, col + (P - 1)});
  out.hidden = grid.hidden.index_select(0, source);
  out.flat_index = flat_index;
  out.targets = d_ids.index({row, col + P});
  out.rows = rows;
  out.response_length = R;
  return out;
}

at::Tensor scatter_to_grid(const at::Tensor& values, const ResponseHidden& where) {
  std::vector<int64_t> flat = values.sizes().vec();
  flat[0] = where.rows * where.response_length;
  std::vector<int64_t> grid = {where.rows, where.response_length};
  grid.insert(grid.end(), flat.begin() + 1, flat.end());
  return at::zeros(flat, values.options()).index_copy(0, where.flat_index, values).view(grid);
}

}  // namespace verlpp::engine
