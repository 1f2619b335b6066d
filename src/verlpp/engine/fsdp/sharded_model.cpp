#include "verlpp/engine/fsdp/sharded_model.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>
#include <utility>

#include "verlpp/core/error.h"
#include "verlpp/core/tensor_storage.h"
#include "verlpp/engine/fsdp/shard_rows.h"

namespace verlpp::engine::fsdp {
namespace {

// A second tensor on the full tensor's storage: writing through it does not bump the
// parameter's version counter (the parameter's values are restored, not modified).
at::Tensor storage_alias(const at::Tensor& full) {
  at::Tensor alias = at::empty({0}, full.options().requires_grad(false));
  alias.set_(full.storage(), 0, full.sizes(), full.strides());
  return alias;
}

struct Param {
  at::Tensor full;  // the model's tensor (storage present only while its unit is gathered)
  std::vector<std::int64_t> shape;
  ShardRows rows;
  std::int64_t row_numel = 1;  // elements per dim-0 row
  at::Tensor shard;            // [capacity, ...] model dtype
  at::Tensor grad_shard;       // [capacity, ...] fp32, undefined until a gradient arrives
  at::Tensor grad_seen;        // [1] fp32: the ranks whose backward gave this parameter a gradient

  std::int64_t shard_numel() const { return rows.capacity * row_numel; }
};

struct Unit {
  std::vector<std::size_t> params;
  bool gathered = false;
  bool in_graph = false;          // a grad-enabled forward used it; its gradients are pending
  bool backward_started = false;  // its pre-backward hook ran in this backward
};

}  // namespace

struct ShardedModel::Impl {
  std::vector<Param> params;
  std::vector<Unit> units;      // [0] the root, [i + 1] decoder layer i
  dist::Communicator group;     // the ranks this copy is sharded over
  dist::Communicator replicas;  // the ranks holding this shard in the other copies (hybrid)
  FsdpSettings settings;
  bool pinned = false;  // gather_all(): keep everything gathered until reshard()

  std::int64_t world() const { return group.size(); }
  Unit& layer_unit(std::int64_t layer) { return units[static_cast<std::size_t>(layer + 1)]; }

  void gather(Unit& unit) {
    if (unit.gathered) return;
    std::vector<at::Tensor> pieces;
    std::int64_t total = 0;
    for (std::size_t i : unit.params) {
      const Param& p = params[i];
      pieces.push_back(p.shard.to(p.full.device()).reshape({-1}));
      total += p.shard_numel();
    }
    const at::Tensor all = group.all_gather(at::cat(pieces)).view({world(), total});
    std::int64_t offset = 0;
    for (std::size_t i : unit.params) {
      const Param& p = params[i];
      const std::int64_t rows = p.shape[0];
      const at::Tensor block = all.narrow(1, offset, p.shard_numel())
                                   .reshape({world() * p.rows.capacity, p.row_numel})
                                   .narrow(0, 0, rows);
      allocate_storage(p.full);
      storage_alias(p.full).view({rows, p.row_numel}).copy_(block);
      offset += p.shard_numel();
    }
    unit.gathered = true;
  }

  void free(Unit& unit) {
    if (!unit.gathered || pinned) return;
    for (std::size_t i : unit.params) release_storage(params[i].full);
    unit.gathered = false;
  }

  // Sums the unit's gradients over the ranks (the shard group's, then the replicas') into the
  // gradient shards (fp32) and drops the full gradients; every rank must call it for the same units
  // in the same order. Each parameter's block carries one more column, 1 where this rank had a
  // gradient for it: summed, it tells every rank whether any rank did (a parameter no rank's
  // backward reached gets no gradient shard).
  void reduce_scatter(Unit& unit) {
    std::vector<at::Tensor> blocks;
    for (std::size_t i : unit.params) {
      Param& p = params[i];
      const std::int64_t rows = p.shape[0];
      const auto options = p.full.options().dtype(at::kFloat).requires_grad(false);
      at::Tensor block = at::zeros({world() * p.rows.capacity, p.row_numel}, options);
      const bool has_grad = p.full.grad().defined();
      if (has_grad) {
        block.narrow(0, 0, rows).copy_(p.full.grad().reshape({rows, p.row_numel}));
        p.full.mutable_grad() = at::Tensor();
      }
      blocks.push_back(block.view({world(), p.shard_numel()}));
      blocks.push_back(at::full({world(), 1}, has_grad ? 1.0 : 0.0, options));
    }
    at::Tensor mine = group.reduce_scatter(at::cat(blocks, 1).reshape({-1}), dist::ReduceOp::sum);
    replicas.all_reduce(mine, dist::ReduceOp::sum);
    std::int64_t offset = 0;
    for (std::size_t i : unit.params) {
      Param& p = params[i];
      const at::Tensor piece =
          mine.narrow(0, offset, p.shard_numel()).view(p.shard.sizes()).to(p.shard.device());
      const at::Tensor seen = mine.narrow(0, offset + p.shard_numel(), 1);
      if (p.grad_shard.defined()) {
        p.grad_shard.add_(piece);
        p.grad_seen.add_(seen);
      } else {
        p.grad_shard = piece.clone();
        p.grad_seen = seen.clone();
      }
      offset += p.shard_numel() + 1;
    }
    unit.in_graph = false;
    unit.backward_started = false;
    free(unit);
  }

  // Layer `layer`'s backward is about to run: layer + 1's is complete.
  void pre_backward(std::int64_t layer) {
    Unit& unit = layer_unit(layer);
    if (unit.backward_started) return;
    unit.backward_started = true;
    if (layer + 2 < static_cast<std::int64_t>(units.size())) {
      Unit& next = layer_unit(layer + 1);
      if (next.in_graph) reduce_scatter(next);
    }
    gather(unit);
  }
};

namespace {

// Rows [begin, begin + count) of a tensor's dim 0, in any dtype, on any device.
using RowSource = std::function<at::Tensor(std::int64_t begin, std::int64_t count)>;

RowSource own_rows(const at::Tensor& full) {
  return [full](std::int64_t begin, std::int64_t count) {
    return full.detach().narrow(0, begin, count);
  };
}

// Parameter `index` of `model`: its own rows, or (deferred loading: it has no storage yet) the
// checkpoint's.
RowSource rows_of(const model::CausalLM& model, std::size_t index, const at::Tensor& full) {
  if (has_storage(full)) return own_rows(full);
  return [&model, index](std::int64_t begin, std::int64_t count) {
    return model.checkpoint_rows(index, begin, count);
  };
}

Param make_param(const std::string& name, const at::Tensor& full, const RowSource& source,
                 const dist::Communicator& group, const FsdpSettings& settings) {
  const std::size_t bytes = static_cast<size_t>(full.numel()) * full.element_size();
  const std::size_t held = full.storage().nbytes();
  if (full.dim() == 0 || !full.is_contiguous() || full.storage_offset() != 0 ||
      (held != bytes && held != 0)) {
    throw Error("fsdp: parameter " + name +
                " must be a contiguous tensor of at least one dimension with storage of its own");
  }
  Param p;
  p.full = full;
  p.shape = full.sizes().vec();
  p.row_numel = full.numel() / std::max<std::int64_t>(full.size(0), 1);
  p.rows = shard_rows(full.size(0), group.size(), group.rank());
  std::vector<std::int64_t> shard_shape = p.shape;
  shard_shape[0] = p.rows.capacity;
  const at::Device home = settings.param_offload ? at::Device(at::kCPU) : full.device();
  p.shard = at::zeros(shard_shape, full.options().device(home).requires_grad(false));
  if (p.rows.valid > 0) {
    c10::AutoGradMode no_grad(false);
    p.shard.narrow(0, 0, p.rows.valid).copy_(source(p.rows.begin, p.rows.valid));
  }
  return p;
}

// A parameter left whole (frozen) of a deferred model gets its bytes from the checkpoint.
void load_whole(const at::Tensor& full, const RowSource& source) {
  if (has_storage(full)) return;
  allocate_storage(full);
  c10::AutoGradMode no_grad(false);
  storage_alias(full).copy_(source(0, full.size(0)));
}

// The shard and replica groups of `world` under hybrid sharding (verl's (ddp, fsdp) mesh: shard
// groups are consecutive ranks); the whole world and a world of one otherwise.
std::pair<dist::Communicator, dist::Communicator> mesh_groups(const dist::Communicator& world,
                                                              std::int64_t fsdp_size) {
  const int size = world.size();
  if (fsdp_size <= 0 || fsdp_size >= size) return {world, dist::Communicator{}};
  if (size % fsdp_size != 0) {
    throw Error("fsdp: fsdp_size " + std::to_string(fsdp_size) + " does not divide the " +
                std::to_string(size) + " ranks (hybrid sharding needs whole copies)");
  }
  const int f = static_cast<int>(fsdp_size), copies = size / f;
  std::vector<std::vector<int>> shard_groups(static_cast<std::size_t>(copies)),
      replica_groups(static_cast<std::size_t>(f));
  for (int r = 0; r < size; ++r) {
    shard_groups[static_cast<std::size_t>(r / f)].push_back(r);
    replica_groups[static_cast<std::size_t>(r % f)].push_back(r);
  }
  dist::Communicator shards = world.split(shard_groups);
  return {std::move(shards), world.split(replica_groups)};
}

}  // namespace

ShardedModel::ShardedModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ShardedModel::~ShardedModel() = default;

std::shared_ptr<ShardedModel> ShardedModel::shard(
    model::CausalLM& model, const std::vector<std::pair<std::string, at::Tensor>>& extra_root,
    const std::vector<std::string>& frozen, dist::Communicator group, FsdpSettings settings) {
  auto impl = std::make_unique<Impl>();
  std::tie(impl->group, impl->replicas) = mesh_groups(group, settings.fsdp_size);
  impl->settings = settings;
  impl->units.resize(static_cast<std::size_t>(model.config().num_hidden_layers + 1));
  const auto named = model.named_parameters();
  const auto layers = model.parameter_layers();
  for (std::size_t i = 0; i < named.size(); ++i) {
    const auto& [name, full] = named[i];
    const RowSource source = rows_of(model, i, full);
    if (std::find(frozen.begin(), frozen.end(), name) != frozen.end()) {
      load_whole(full, source);
      continue;
    }
    impl->units[static_cast<std::size_t>(layers[i] + 1)].params.push_back(impl->params.size());
    impl->params.push_back(make_param(name, full, source, impl->group, settings));
  }
  model.finish_loading();
  for (const auto& [name, tensor] : extra_root) {
    impl->units[0].params.push_back(impl->params.size());
    impl->params.push_back(make_param(name, tensor, own_rows(tensor), impl->group, settings));
  }
  for (Unit& unit : impl->units) {
    unit.gathered = true;
    impl->free(unit);
  }
  auto sharded = std::make_shared<ShardedModel>(std::move(impl));
  model.set_layer_hooks(sharded);
  return sharded;
}

void ShardedModel::before_forward() {
  Impl& s = *impl_;
  if (c10::GradMode::is_enabled()) {
    for (const Unit& unit : s.units) {
      if (unit.in_graph) {
        throw Error(
            "fsdp: a forward pass with gradients began before finish_backward() of the "
            "previous one");
      }
    }
    s.units[0].in_graph = true;
  }
  s.gather(s.units[0]);
}

void ShardedModel::before_layer(std::int64_t layer) { impl_->gather(impl_->layer_unit(layer)); }

void ShardedModel::after_layer(std::int64_t layer, const at::Tensor& hidden,
                               const at::Tensor& router_logits) {
  Impl& s = *impl_;
  Unit& unit = s.layer_unit(layer);
  if (!c10::GradMode::is_enabled() || !hidden.requires_grad()) {
    s.free(unit);
    return;
  }
  unit.in_graph = true;
  Impl* impl = impl_.get();
  const auto hook = [impl, layer](const at::Tensor&) { impl->pre_backward(layer); };
  hidden.register_hook(hook);
  if (router_logits.defined() && router_logits.requires_grad()) router_logits.register_hook(hook);
  if (s.settings.reshard_after_forward) s.free(unit);
}

void ShardedModel::finish_backward() {
  Impl& s = *impl_;
  for (std::size_t u = s.units.size(); u-- > 0;) {
    if (s.units[u].in_graph) s.reduce_scatter(s.units[u]);
  }
}

void ShardedModel::reshard() {
  Impl& s = *impl_;
  s.pinned = false;
  for (Unit& unit : s.units) {
    if (!unit.in_graph) s.free(unit);
  }
}

void ShardedModel::gather_all() {
  Impl& s = *impl_;
  for (Unit& unit : s.units) s.gather(unit);
  s.pinned = true;
}

std::vector<at::Tensor> ShardedModel::shards() const {
  std::vector<at::Tensor> out;
  for (const Param& p : impl_->params) out.push_back(p.shard);
  return out;
}

std::vector<at::Tensor> ShardedModel::gradient_shards() const {
  std::vector<at::Tensor> seen;  // read to the host at once: one sync per optimizer step
  for (const Param& p : impl_->params) {
    if (p.grad_seen.defined()) seen.push_back(p.grad_seen);
  }
  const at::Tensor on_host = seen.empty() ? at::Tensor() : at::cat(seen).to(at::kCPU);
  std::vector<at::Tensor> out;
  std::int64_t k = 0;
  for (const Param& p : impl_->params) {
    const bool any = p.grad_seen.defined() && on_host[k++].item<float>() > 0;
    out.push_back(any ? p.grad_shard : at::Tensor());
  }
  return out;
}

void ShardedModel::zero_grad() {
  for (Param& p : impl_->params) {
    p.grad_shard = at::Tensor();
    p.grad_seen = at::Tensor();
  }
}

std::vector<std::vector<std::int64_t>> ShardedModel::full_shapes() const {
  std::vector<std::vector<std::int64_t>> out;
  for (const Param& p : impl_->params) out.push_back(p.shape);
  return out;
}

const dist::Communicator& ShardedModel::group() const { return impl_->group; }

const dist::Communicator& ShardedModel::replicas() const { return impl_->replicas; }

std::string ShardedModel::layout() const {
  const int copies = impl_->replicas.size();
  if (copies == 1) return "sharded";
  return "sharded over " + std::to_string(impl_->group.size()) + " ranks, " +
         std::to_string(copies) + " copies";
}

TrainingStateBytes ShardedModel::state_bytes() const {
  TrainingStateBytes out;
  for (const Param& p : impl_->params) {
    out.parameters += p.shard.numel() * static_cast<std::int64_t>(p.shard.element_size());
    out.gradients += p.shard.numel() * static_cast<std::int64_t>(sizeof(float));
  }
  return out;
}

}  // namespace verlpp::engine::fsdp
