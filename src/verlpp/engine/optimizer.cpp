#include "verlpp/engine/optimizer.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <string_view>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/engine/fsdp/shard_rows.h"
#include "verlpp/model/safetensors.h"

namespace verlpp::engine {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "verlpp-adamw-2";
constexpr const char* kLegacyFormat = "verlpp-adamw-1";  // one optimizer.bin, world size 1
constexpr const char* kLegacyFile = "optimizer.bin";

std::vector<at::Tensor> zeros_like_all(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> out;
  for (const auto& t : tensors) out.push_back(at::zeros_like(t));
  return out;
}

std::string shard_file_name(std::int64_t world, std::int64_t rank) {
  return "optim_world_size_" + std::to_string(world) + "_rank_" + std::to_string(rank) +
         ".safetensors";
}

std::int64_t metadata_int(const model::SafetensorsFile& file, const std::string& key) {
  const auto it = file.metadata().find(key);
  if (it == file.metadata().end()) {
    throw Error("optimizer state " + file.path() + ": metadata has no '" + key + "'");
  }
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    throw Error("optimizer state " + file.path() + ": metadata '" + key + "' is not an integer");
  }
}

}  // namespace

struct Optimizer::Impl {
  std::vector<at::Tensor> parameters;  // the model's, or this rank's shards of them
  std::vector<std::vector<std::int64_t>> full_shapes;
  std::vector<at::Tensor> masters;  // fp32 copies, optimised
  std::vector<at::Tensor> exp_avgs, exp_avg_sqs;
  std::vector<at::Tensor> state_steps;  // fp32 scalars on the masters' device (fused kernel)
  AdamWConfig config;
  LrSchedule schedule;
  std::int64_t scheduler_step = 0;
  std::vector<std::int64_t> steps;  // per parameter: updates applied (AdamW's bias-correction t)
  dist::Communicator dp;            // replicated: gradients all-reduced over it
  std::shared_ptr<fsdp::ShardedModel> sharded;

  Impl(std::vector<at::Tensor> params, const AdamWConfig& cfg, std::int64_t total_steps)
      : parameters(std::move(params)), config(cfg), schedule(cfg.schedule, total_steps) {}

  void init_state() {
    for (const auto& p : parameters) {
      const at::Device home = config.optimizer_offload ? at::Device(at::kCPU) : p.device();
      masters.push_back(p.detach().to(home, at::kFloat).clone());
    }
    exp_avgs = zeros_like_all(masters);
    exp_avg_sqs = zeros_like_all(masters);
    for (const auto& m : masters) state_steps.push_back(at::zeros({}, m.options()));
    steps.assign(masters.size(), 0);
  }

  std::int64_t shard_count() const { return sharded ? sharded->group().size() : 1; }
  std::int64_t shard_index() const { return sharded ? sharded->group().rank() : 0; }

  // The gradients in fp32 on the masters' device (the shard's reduced gradients, or the model's
  // converted in one multi-tensor copy and summed over the replicated ranks), zeros where a
  // parameter got none, and which parameters got one on any rank (`has_grad`).
  std::vector<at::Tensor> master_gradients(std::vector<bool>& has_grad) const {
    std::vector<at::Tensor> grads, converted, model_grads;
    const std::vector<at::Tensor> shards =
        sharded ? sharded->gradient_shards() : std::vector<at::Tensor>();
    has_grad.assign(parameters.size(), false);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const at::Tensor& grad = sharded ? shards[i] : parameters[i].grad();
      has_grad[i] = grad.defined();
      if (sharded && grad.defined()) {
        grads.push_back(grad);
        continue;
      }
      grads.push_back(grad.defined() ? at::empty_like(parameters[i], at::kFloat)
                                     : at::zeros_like(parameters[i], at::kFloat));
      if (!grad.defined()) continue;
      converted.push_back(grads.back());
      model_grads.push_back(grad.detach());
    }
    compat::foreach_copy(converted, model_grads);
    if (!sharded) sum_over_ranks(grads, has_grad);
    if (config.optimizer_offload) {
      for (auto& g : grads) g = g.to(at::kCPU);
    }
    return grads;
  }

  // The gradients summed over the data-parallel ranks, through one flat fp32 buffer that also
  // carries each parameter's has-a-gradient flag (so every rank updates the same parameters).
  void sum_over_ranks(std::vector<at::Tensor>& grads, std::vector<bool>& has_grad) const {
    if (dp.backend() == "none") return;
    std::vector<at::Tensor> flat;
    for (const auto& g : grads) flat.push_back(g.reshape(-1));
    std::vector<float> flags(has_grad.begin(), has_grad.end());
    flat.push_back(at::tensor(flags, grads.front().options()));
    at::Tensor buffer = at::cat(flat);
    dp.all_reduce(buffer, dist::ReduceOp::sum);
    std::int64_t offset = 0;
    for (auto& g : grads) {
      g.copy_(buffer.narrow(0, offset, g.numel()).view_as(g));
      offset += g.numel();
    }
    const at::Tensor any = buffer.narrow(0, offset, static_cast<std::int64_t>(flags.size())).cpu();
    for (std::size_t i = 0; i < has_grad.size(); ++i) {
      has_grad[i] = any[static_cast<std::int64_t>(i)].item<float>() > 0;
    }
  }

  // The L2 norm of all gradients (over every rank's shard when sharded), one host sync. Each
  // tensor's norm accumulates in fp64 (read as stored, no fp64 copy), so that the norm does not
  // depend on how the gradients are split over ranks beyond rounding at 1e-12.
  double global_norm(const std::vector<at::Tensor>& grads) const {
    std::vector<at::Tensor> each;
    for (const auto& g : grads) {
      each.push_back(at::linalg_vector_norm(g, 2, c10::nullopt, false, at::kDouble));
    }
    const at::Tensor norms = at::stack(each);
    if (!sharded) return norms.norm().item<double>();
    const double squares = norms.square().sum().item<double>();
    return std::sqrt(sharded->group().all_reduce(squares, dist::ReduceOp::sum));
  }

  // torch.optim.AdamW's update of the parameters that got a gradient (torch skips those whose grad
  // is None: no decay, no moment or step change), with _foreach kernels (CPU and LibTorch < 2) or
  // the fused CUDA kernel: t += 1; p *= 1 − lr·wd; m = β1·m + (1 − β1)·g; v = β2·v + (1 − β2)·g²;
  // p −= lr / (1 − β1^t) · m / (√v / √(1 − β2^t) + eps), with each parameter's own t.
  void adamw(const std::vector<at::Tensor>& all_grads, const std::vector<bool>& has_grad,
             double lr) {
    std::vector<at::Tensor> p, g, m, v, t;
    std::vector<c10::Scalar> sqrt_bc2, step_size;
    const AdamWConfig& c = config;
    for (std::size_t i = 0; i < masters.size(); ++i) {
      if (!has_grad[i]) continue;
      p.push_back(masters[i]);
      g.push_back(all_grads[i]);
      m.push_back(exp_avgs[i]);
      v.push_back(exp_avg_sqs[i]);
      t.push_back(state_steps[i]);
      const double step = static_cast<double>(++steps[i]);
      sqrt_bc2.emplace_back(std::sqrt(1.0 - std::pow(c.beta2, step)));
      step_size.emplace_back(-lr / (1.0 - std::pow(c.beta1, step)));
    }
    if (p.empty()) return;
    at::_foreach_add_(t, 1.0);
    if (compat::fused_adamw(p, g, m, v, t, lr, c.beta1, c.beta2, c.weight_decay, c.eps)) return;
    at::_foreach_mul_(p, 1.0 - lr * c.weight_decay);
    at::_foreach_mul_(m, c.beta1);
    at::_foreach_add_(m, g, 1.0 - c.beta1);
    at::_foreach_mul_(v, c.beta2);
    at::_foreach_addcmul_(v, g, g, 1.0 - c.beta2);
    std::vector<at::Tensor> denom = at::_foreach_sqrt(v);
    at::_foreach_div_(denom, sqrt_bc2);
    at::_foreach_add_(denom, c.eps);
    at::_foreach_addcdiv_(p, m, denom, step_size);
  }

  void copy_masters_to_parameters() { compat::foreach_copy(parameters, masters); }

  // This rank's rows of parameter i, read from the files of a state saved over `world` shards
  // (files[r] is shard r's) into `into` (the rows this rank holds, padding left as it is).
  void restore_rows(const std::vector<model::SafetensorsFile>& files, const std::string& name,
                    std::size_t i, at::Tensor& into) const {
    const std::vector<std::int64_t>& shape = full_shapes[i];
    const std::int64_t world = static_cast<std::int64_t>(files.size());
    const fsdp::ShardRows mine = fsdp::shard_rows(shape[0], shard_count(), shard_index());
    for (std::int64_t r = 0; r < world; ++r) {
      const fsdp::ShardRows theirs = fsdp::shard_rows(shape[0], world, r);
      const std::int64_t begin = std::max(mine.begin, theirs.begin);
      const std::int64_t end = std::min(mine.begin + mine.valid, theirs.begin + theirs.valid);
      if (begin >= end) continue;
      const model::SafetensorsFile& file = files[static_cast<std::size_t>(r)];
      const std::string key = name + "." + std::to_string(i);
      if (!file.contains(key)) {
        throw Error("optimizer state " + file.path() + " has no tensor '" + key +
                    "' (saved for a model with fewer parameters?)");
      }
      std::vector<std::int64_t> expected = shape;
      expected[0] = theirs.capacity;
      if (file.info(key).shape != expected) {
        throw Error("optimizer state " + file.path() + ": parameter " + std::to_string(i) +
                    " has a different shape than the model's");
      }
      into.narrow(0, begin - mine.begin, end - begin)
          .copy_(file.rows(key, begin - theirs.begin, end - begin));
    }
  }
};

Optimizer::Optimizer(std::vector<at::Tensor> parameters, const AdamWConfig& config,
                     std::int64_t total_training_steps, dist::Communicator dp) {
  if (config.beta1 < 0 || config.beta1 >= 1 || config.beta2 < 0 || config.beta2 >= 1) {
    throw Error("optim.betas: expected two values in [0, 1)");
  }
  if (config.schedule.lr < 0) throw Error("optim.lr: expected a non-negative learning rate");
  if (parameters.empty()) throw Error("optimizer: the model has no parameters to train");
  impl_ = std::make_unique<Impl>(std::move(parameters), config, total_training_steps);
  impl_->dp = std::move(dp);
  for (const auto& p : impl_->parameters) impl_->full_shapes.push_back(p.sizes().vec());
  impl_->init_state();
}

Optimizer::Optimizer(std::shared_ptr<fsdp::ShardedModel> sharded, const AdamWConfig& config,
                     std::int64_t total_training_steps)
    : Optimizer(sharded->shards(), config, total_training_steps) {
  impl_->sharded = std::move(sharded);
  impl_->full_shapes = impl_->sharded->full_shapes();
}

Optimizer::~Optimizer() = default;

StepResult Optimizer::step() {
  c10::AutoGradMode no_grad(false);
  StepResult result;
  std::vector<bool> has_grad;
  std::vector<at::Tensor> grads = impl_->master_gradients(has_grad);
  result.grad_norm = impl_->global_norm(grads);
  if (!std::isfinite(result.grad_norm)) {
    zero_grad();
    return result;
  }
  const double clip = impl_->config.clip_grad;
  const double clip_coef = clip / (result.grad_norm + 1e-6);  // torch's clip_grad_norm_
  if (clip > 0 && clip_coef < 1.0) at::_foreach_mul_(grads, clip_coef);
  impl_->adamw(grads, has_grad, lr());
  impl_->copy_masters_to_parameters();
  result.applied = true;
  return result;
}

void Optimizer::zero_grad() {
  if (impl_->sharded) impl_->sharded->zero_grad();
  for (auto& p : impl_->parameters) {
    if (p.grad().defined()) p.mutable_grad() = at::Tensor();
  }
}

void Optimizer::advance_lr() { ++impl_->scheduler_step; }

double Optimizer::lr() const { return impl_->schedule.lr_at(impl_->scheduler_step); }

std::int64_t Optimizer::state_bytes() const {
  std::int64_t bytes = 0;
  for (const auto& m : impl_->masters)
    bytes += 3 * m.numel() * static_cast<std::int64_t>(sizeof(float));
  return bytes;
}

std::int64_t Optimizer::shard_count() const { return impl_->shard_count(); }
std::int64_t Optimizer::shard_index() const { return impl_->shard_index(); }

bool Optimizer::writes_shard() const {
  return impl_->sharded && impl_->shard_count() > 1 && impl_->sharded->replicas().rank() == 0;
}

void Optimizer::save(const std::string& folder) const {
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  for (std::size_t i = 0; i < impl_->masters.size(); ++i) {
    const std::string n = std::to_string(i);
    tensors.emplace_back("master." + n, impl_->masters[i]);
    tensors.emplace_back("exp_avg." + n, impl_->exp_avgs[i]);
    tensors.emplace_back("exp_avg_sq." + n, impl_->exp_avg_sqs[i]);
  }
  tensors.emplace_back("adam_steps", at::tensor(impl_->steps, at::kLong));
  const std::int64_t last_step = *std::max_element(impl_->steps.begin(), impl_->steps.end());
  const std::map<std::string, std::string> metadata = {
      {"verlpp_format", kFormat},
      {"world_size", std::to_string(shard_count())},
      {"rank", std::to_string(shard_index())},
      {"adam_step", std::to_string(last_step)},
      {"scheduler_step", std::to_string(impl_->scheduler_step)}};
  const fs::path path = fs::path(folder) / shard_file_name(shard_count(), shard_index());
  write_atomically(path, [&](const fs::path& temporary) {
    model::write_safetensors(temporary.string(), tensors, metadata);
  });
}

namespace {

// W of a file named optim_world_size_W_rank_R.safetensors (R < W), else 0: any rank's file tells
// the world the state was saved over, so a missing rank 0 is named as such (bt12).
std::int64_t world_of_shard(const std::string& name) {
  const std::string prefix = "optim_world_size_", middle = "_rank_", suffix = ".safetensors";
  if (name.rfind(prefix, 0) != 0 || name.size() <= prefix.size() + suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return 0;
  }
  const char* last = name.data() + name.size() - suffix.size();
  std::int64_t world = 0, rank = -1;
  const auto [after_world, e1] = std::from_chars(name.data() + prefix.size(), last, world);
  if (e1 != std::errc() || !std::string_view(after_world, last - after_world).starts_with(middle)) {
    return 0;
  }
  const auto [end, e2] = std::from_chars(after_world + middle.size(), last, rank);
  return e2 == std::errc() && end == last && world > 0 && rank >= 0 && rank < world ? world : 0;
}

// The shard files of the state in `folder`: optim_world_size_W_rank_{0..W-1}, or optimizer.bin.
std::vector<model::SafetensorsFile> open_state(const fs::path& folder, bool legacy) {
  std::vector<model::SafetensorsFile> files;
  if (legacy) {
    files.emplace_back((folder / kLegacyFile).string());
    return files;
  }
  std::int64_t world = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (world == 0) world = world_of_shard(entry.path().filename().string());
  }
  if (world == 0) {
    throw Error("cannot read optimizer state " + (folder / shard_file_name(1, 0)).string() +
                ": no such file (nor optim_world_size_W_rank_0 of another world size W)");
  }
  for (std::int64_t r = 0; r < world; ++r) {
    const fs::path path = folder / shard_file_name(world, r);
    if (!fs::exists(fs::symlink_status(path, error))) {
      throw Error("cannot read optimizer state " + path.string() + ": no such file (the state " +
                  "was saved over " + std::to_string(world) + " ranks)");
    }
    files.emplace_back(path.string());
  }
  return files;
}

void check_format(const model::SafetensorsFile& file, bool legacy, std::int64_t world,
                  std::int64_t rank) {
  const auto format = file.metadata().find("verlpp_format");
  const std::string expected = legacy ? kLegacyFormat : kFormat;
  if (format == file.metadata().end() || format->second != expected) {
    throw Error("optimizer state " + file.path() + ": not a " + expected + " file");
  }
  if (legacy) return;
  if (metadata_int(file, "world_size") != world || metadata_int(file, "rank") != rank) {
    throw Error("optimizer state " + file.path() +
                ": its metadata says another world size or rank");
  }
}

// Each parameter's AdamW step: the "adam_steps" tensor, or (files of earlier verlpp versions, where
// every parameter stepped together) the metadata adam_step for all.
std::vector<std::int64_t> restore_steps(const model::SafetensorsFile& file, std::size_t count) {
  if (!file.contains("adam_steps")) {
    return std::vector<std::int64_t>(count, metadata_int(file, "adam_step"));
  }
  const at::Tensor saved = file.tensor("adam_steps").to(at::kLong).contiguous();
  if (saved.dim() != 1 || saved.size(0) != static_cast<std::int64_t>(count)) {
    throw Error("optimizer state " + file.path() + ": adam_steps has " +
                std::to_string(saved.numel()) + " entries, the model " + std::to_string(count) +
                " parameters");
  }
  const std::int64_t* data = saved.data_ptr<std::int64_t>();
  return std::vector<std::int64_t>(data, data + count);
}

}  // namespace

void Optimizer::load(const std::string& folder) {
  c10::AutoGradMode no_grad(false);
  const bool legacy = fs::is_regular_file(fs::path(folder) / kLegacyFile);
  const auto files = open_state(folder, legacy);
  const auto world = static_cast<std::int64_t>(files.size());
  for (std::int64_t r = 0; r < world; ++r)
    check_format(files[static_cast<std::size_t>(r)], legacy, world, r);
  Impl& s = *impl_;
  const model::SafetensorsFile& first = files.front();
  if (first.contains("master." + std::to_string(s.masters.size()))) {
    throw Error("optimizer state " + first.path() + " holds more parameters than the model has");
  }
  for (std::size_t i = 0; i < s.masters.size(); ++i) {
    s.restore_rows(files, "master", i, s.masters[i]);
    s.restore_rows(files, "exp_avg", i, s.exp_avgs[i]);
    s.restore_rows(files, "exp_avg_sq", i, s.exp_avg_sqs[i]);
  }
  s.steps = restore_steps(first, s.masters.size());
  s.scheduler_step = metadata_int(first, "scheduler_step");
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    s.state_steps[i].fill_(static_cast<double>(s.steps[i]));
  }
  s.copy_masters_to_parameters();
}

}  // namespace verlpp::engine
