// An architecture's parameters, each declared once (llama.cpp's tensor lists): its Hugging Face
// name as transformers 5 holds it in memory, its shape, how random init fills it, the dimension a
// sharded engine splits, the layer it belongs to and where the model keeps it. Loading, random
// init, saving and export all read this one table.
//
// Fused experts: a [E, rows, cols] tensor such as `mlp.experts.gate_up_proj` that the hub's
// checkpoints store per expert (`mlp.experts.{e}.gate_proj.weight` and `...up_proj.weight`, each
// [rows / 2, cols], concatenated along dim 0 into expert e's rows). Loading accepts either layout;
// saving writes the per-expert (hub) one, as transformers' save_pretrained does (models.md §5).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace verlpp::model {

class CheckpointReader;

// How random init fills a tensor: N(0, std^2), ones, zeros, or log U(0.01, 16) (Gated DeltaNet's
// A_log, models.md §3).
enum class WeightInit { normal, ones, zeros, log_uniform };

// How a fused expert tensor is stored per expert: PREFIX{e}.PART.weight for each part, in order.
struct PerExpertLayout {
  std::string prefix;              // "model.layers.3.mlp.experts."
  std::vector<std::string> parts;  // {"gate_proj", "up_proj"} or {"down_proj"}
};

struct WeightSpec {
  std::string name;
  std::vector<int64_t> shape;
  WeightInit init = WeightInit::normal;
  int64_t layer = -1;      // decoder layer, -1 for embeddings, final norm and lm_head
  int64_t shard_dim = 0;   // the dimension FSDP-style sharding splits
  std::string shape_from;  // the config.json fields that give the shape (for errors)
  std::optional<PerExpertLayout> per_expert;
  at::Tensor* tensor = nullptr;  // the model's storage
};

class WeightTable {
 public:
  // Declares a parameter; `tensor` must outlive the table.
  void add(WeightSpec spec);
  const std::vector<WeightSpec>& specs() const { return specs_; }
  // Layer i's tensors that are defined, in declaration order (gradient checkpointing's inputs).
  std::vector<at::Tensor> layer_tensors(int64_t layer) const;

  // Fills every tensor from `reader` (either expert layout), cast to dtype on device. Throws
  // verlpp::Error naming the checkpoint and the tensor when one is missing, when a shape differs
  // from the config's (naming the fields it comes from), or when the checkpoint holds experts the
  // config does not have. `needed_by` (the architecture class) ends the missing-tensor message.
  void load(const CheckpointReader& reader, at::ScalarType dtype, const at::Device& device,
            const std::string& needed_by) const;
  // Deferred loading: the checks of load (reading nothing but the checkpoint's headers), then
  // every tensor made with its shape, `dtype` and `device` but no storage
  // (core/tensor_storage.h), for a sharded engine to fill from read_rows.
  void defer(const CheckpointReader& reader, at::ScalarType dtype, const at::Device& device,
             const std::string& needed_by) const;
  // Rows [begin, begin + count) of dim 0 of specs()[index] as `reader` stores them (CPU, the
  // stored dtype; for a fused expert tensor stored per expert, experts begin.. stacked; only
  // those rows' bytes of the file are touched). Throws verlpp::Error as load does, and for rows
  // outside the tensor.
  at::Tensor read_rows(const CheckpointReader& reader, std::size_t index, int64_t begin,
                       int64_t count, const std::string& needed_by) const;
  // As load, but copies into the existing tensors (their dtype and device; no autograd).
  void copy_from(const CheckpointReader& reader, const std::string& needed_by) const;
  // Random init as transformers' _init_weights: N(0, std^2) for `normal`, ones, zeros, drawn in
  // declaration order in fp32 on `device` from a generator of that device seeded with `seed` (the
  // same weights for a seed on a kind of device), then cast to dtype.
  void init(uint64_t seed, double std, at::ScalarType dtype, const at::Device& device) const;
  // (name, tensor) in the hub layout, declaration order (fused experts split per expert).
  std::vector<std::pair<std::string, at::Tensor>> hub_tensors() const;

 private:
  std::vector<WeightSpec> specs_;
};

}  // namespace verlpp::model
