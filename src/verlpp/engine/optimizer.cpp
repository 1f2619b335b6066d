#include "verlpp/engine/optimizer.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/model/safetensors.h"

namespace verlpp::engine {

namespace {

constexpr const char* kFormat = "verlpp-adamw-1";

std::vector<at::Tensor> zeros_like_all(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> out;
  for (const auto& t : tensors) out.push_back(at::zeros_like(t));
  return out;
}

}  // namespace

struct Optimizer::Impl {
  std::vector<at::Tensor> parameters;  // the model's
  std::vector<at::Tensor> masters;     // fp32 copies, optimised
  std::vector<at::Tensor> exp_avgs, exp_avg_sqs;
  std::vector<at::Tensor> state_steps;  // fp32 scalars on the masters' device (fused kernel)
  AdamWConfig config;
  LrSchedule schedule;
  std::int64_t scheduler_step = 0;
  std::int64_t adam_step = 0;  // updates applied: AdamW's bias-correction step
  dist::Communicator dp;

  Impl(std::vector<at::Tensor> params, const AdamWConfig& cfg, std::int64_t total_steps,
       dist::Communicator group)
      : parameters(std::move(params)),
        config(cfg),
        schedule(cfg.schedule, total_steps),
        dp(std::move(group)) {
    for (const auto& p : parameters) masters.push_back(p.detach().to(at::kFloat).clone());
    exp_avgs = zeros_like_all(masters);
    exp_avg_sqs = zeros_like_all(masters);
    for (const auto& m : masters) state_steps.push_back(at::zeros({}, m.options()));
  }

  // The parameters' gradients in fp32 (zeros where a parameter got none), converted in one
  // multi-tensor copy.
  std::vector<at::Tensor> master_gradients() const {
    std::vector<at::Tensor> grads, converted, model_grads;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const at::Tensor& grad = parameters[i].grad();
      if (!grad.defined()) {
        grads.push_back(at::zeros_like(masters[i]));
        continue;
      }
      grads.push_back(at::empty_like(masters[i]));
      converted.push_back(grads.back());
      model_grads.push_back(grad.detach());
    }
    compat::foreach_copy(converted, model_grads);
    sum_over_ranks(grads);
    return grads;
  }

  // The gradients summed over the data-parallel ranks, through one flat fp32 buffer.
  void sum_over_ranks(std::vector<at::Tensor>& grads) const {
    if (dp.backend() == "none") return;
    std::vector<at::Tensor> flat;
    for (const auto& g : grads) flat.push_back(g.reshape(-1));
    at::Tensor buffer = at::cat(flat);
    dp.all_reduce(buffer, dist::ReduceOp::sum);
    std::int64_t offset = 0;
    for (auto& g : grads) {
      g.copy_(buffer.narrow(0, offset, g.numel()).view_as(g));
      offset += g.numel();
    }
  }

  // torch.optim.AdamW's update with _foreach kernels (CPU and LibTorch < 2), or the fused CUDA
  // kernel: p *= 1 − lr·wd; m = β1·m + (1 − β1)·g; v = β2·v + (1 − β2)·g²;
  // p −= lr / (1 − β1^t) · m / (√v / √(1 − β2^t) + eps).
  void adamw(const std::vector<at::Tensor>& grads, double lr) {
    ++adam_step;
    at::_foreach_add_(state_steps, 1.0);
    const AdamWConfig& c = config;
    if (compat::fused_adamw(masters, grads, exp_avgs, exp_avg_sqs, state_steps, lr, c.beta1,
                            c.beta2, c.weight_decay, c.eps)) {
      return;
    }
    const double t = static_cast<double>(adam_step);
    const double bias_correction1 = 1.0 - std::pow(c.beta1, t);
    const double bias_correction2 = 1.0 - std::pow(c.beta2, t);
    at::_foreach_mul_(masters, 1.0 - lr * c.weight_decay);
    at::_foreach_mul_(exp_avgs, c.beta1);
    at::_foreach_add_(exp_avgs, grads, 1.0 - c.beta1);
    at::_foreach_mul_(exp_avg_sqs, c.beta2);
    at::_foreach_addcmul_(exp_avg_sqs, grads, grads, 1.0 - c.beta2);
    std::vector<at::Tensor> denom = at::_foreach_sqrt(exp_avg_sqs);
    at::_foreach_div_(denom, std::sqrt(bias_correction2));
    at::_foreach_add_(denom, c.eps);
    at::_foreach_addcdiv_(masters, exp_avgs, denom, -lr / bias_correction1);
  }

  void copy_masters_to_parameters() { compat::foreach_copy(parameters, masters); }
};

Optimizer::Optimizer(std::vector<at::Tensor> parameters, const AdamWConfig& config,
                     std::int64_t total_training_steps, dist::Communicator dp) {
  if (config.beta1 < 0 || config.beta1 >= 1 || config.beta2 < 0 || config.beta2 >= 1) {
    throw Error("optim.betas: expected two values in [0, 1)");
  }
  if (config.schedule.lr < 0) throw Error("optim.lr: expected a non-negative learning rate");
  if (parameters.empty()) throw Error("optimizer: the model has no parameters to train");
  impl_ =
      std::make_unique<Impl>(std::move(parameters), config, total_training_steps, std::move(dp));
}

Optimizer::~Optimizer() = default;

StepResult Optimizer::step() {
  c10::AutoGradMode no_grad(false);
  StepResult result;
  std::vector<at::Tensor> grads = impl_->master_gradients();
  // Global L2 norm of all gradients, one host sync.
  result.grad_norm = at::stack(at::_foreach_norm(grads)).to(at::kDouble).norm().item<double>();
  if (!std::isfinite(result.grad_norm)) {
    zero_grad();
    return result;
  }
  const double clip = impl_->config.clip_grad;
  const double clip_coef = clip / (result.grad_norm + 1e-6);  // torch's clip_grad_norm_
  if (clip > 0 && clip_coef < 1.0) at::_foreach_mul_(grads, clip_coef);
  impl_->adamw(grads, lr());
  impl_->copy_masters_to_parameters();
  result.applied = true;
  return result;
}

void Optimizer::zero_grad() {
  for (auto& p : impl_->parameters) {
    if (p.grad().defined()) p.mutable_grad() = at::Tensor();
  }
}

void Optimizer::advance_lr() { ++impl_->scheduler_step; }

double Optimizer::lr() const { return impl_->schedule.lr_at(impl_->scheduler_step); }

void Optimizer::save(const std::string& path) const {
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  for (std::size_t i = 0; i < impl_->masters.size(); ++i) {
    const std::string n = std::to_string(i);
    tensors.emplace_back("master." + n, impl_->masters[i]);
    tensors.emplace_back("exp_avg." + n, impl_->exp_avgs[i]);
    tensors.emplace_back("exp_avg_sq." + n, impl_->exp_avg_sqs[i]);
  }
  const std::map<std::string, std::string> metadata = {
      {"verlpp_format", kFormat},
      {"adam_step", std::to_string(impl_->adam_step)},
      {"scheduler_step", std::to_string(impl_->scheduler_step)}};
  write_atomically(path, [&](const std::filesystem::path& temporary) {
    model::write_safetensors(temporary.string(), tensors, metadata);
  });
}

namespace {

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

void Optimizer::load(const std::string& path) {
  c10::AutoGradMode no_grad(false);
  if (!std::filesystem::is_regular_file(path)) {
    throw Error("cannot read optimizer state " + path + ": no such file");
  }
  const model::SafetensorsFile file(path);
  const auto format = file.metadata().find("verlpp_format");
  if (format == file.metadata().end() || format->second != kFormat) {
    throw Error("optimizer state " + path + ": not a " + kFormat + " file");
  }
  Impl& s = *impl_;
  const auto restore = [&](const std::string& name, std::size_t i, at::Tensor& into) {
    if (!file.contains(name)) {
      throw Error("optimizer state " + path + " has no tensor '" + name +
                  "' (saved for a model "
                  "with fewer parameters?)");
    }
    const at::Tensor saved = file.tensor(name);
    if (!saved.sizes().equals(s.masters[i].sizes())) {
      throw Error("optimizer state " + path + ": parameter " + std::to_string(i) +
                  " has a different shape than the model's");
    }
    into.copy_(saved);
  };
  if (file.contains("master." + std::to_string(s.masters.size()))) {
    throw Error("optimizer state " + path + " holds more parameters than the model has");
  }
  for (std::size_t i = 0; i < s.masters.size(); ++i) {
    const std::string n = std::to_string(i);
    restore("master." + n, i, s.masters[i]);
    restore("exp_avg." + n, i, s.exp_avgs[i]);
    restore("exp_avg_sq." + n, i, s.exp_avg_sqs[i]);
  }
  s.adam_step = metadata_int(file, "adam_step");
  s.scheduler_step = metadata_int(file, "scheduler_step");
  for (auto& step : s.state_steps) step.fill_(static_cast<double>(s.adam_step));
  s.copy_masters_to_parameters();
}

}  // namespace verlpp::engine
