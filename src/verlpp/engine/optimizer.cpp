#include "verlpp/engine/optimizer.h"

#include <torch/torch.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"

namespace verlpp::engine {

struct Optimizer::Impl {
  std::vector<at::Tensor> parameters;  // the model's
  std::vector<at::Tensor> masters;     // fp32 copies, optimised
  AdamWConfig config;
  LrSchedule schedule;
  std::int64_t scheduler_step = 0;
  std::unique_ptr<torch::optim::AdamW> adamw;

  Impl(std::vector<at::Tensor> params, const AdamWConfig& cfg, std::int64_t total_steps)
      : parameters(std::move(params)), config(cfg), schedule(cfg.schedule, total_steps) {
    for (const auto& p : parameters) {
      masters.push_back(p.detach().to(at::kFloat).clone().set_requires_grad(true));
    }
    auto options = torch::optim::AdamWOptions(schedule.lr_at(0))
                       .betas({cfg.beta1, cfg.beta2})
                       .eps(cfg.eps)
                       .weight_decay(cfg.weight_decay);
    adamw = std::make_unique<torch::optim::AdamW>(masters, options);
  }

  void set_lr(double lr) {
    for (auto& group : adamw->param_groups()) {
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    }
  }

  // Copies the gradients into the masters and returns their global L2 norm (one host sync).
  double gather_gradients() {
    at::Tensor squared = at::zeros({}, masters.front().options().dtype(at::kDouble));
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const at::Tensor& grad = parameters[i].grad();
      at::Tensor master_grad =
          grad.defined() ? grad.detach().to(at::kFloat).clone() : at::zeros_like(masters[i]);
      squared += master_grad.pow(2).sum().to(at::kDouble);
      masters[i].mutable_grad() = master_grad;
    }
    return std::sqrt(squared.item<double>());
  }
};

Optimizer::Optimizer(std::vector<at::Tensor> parameters, const AdamWConfig& config,
                     std::int64_t total_training_steps) {
  if (config.beta1 < 0 || config.beta1 >= 1 || config.beta2 < 0 || config.beta2 >= 1) {
    throw Error("optim.betas: expected two values in [0, 1)");
  }
  if (config.schedule.lr < 0) throw Error("optim.lr: expected a non-negative learning rate");
  if (parameters.empty()) throw Error("optimizer: the model has no parameters to train");
  impl_ = std::make_unique<Impl>(std::move(parameters), config, total_training_steps);
}

Optimizer::~Optimizer() = default;

StepResult Optimizer::step() {
  torch::NoGradGuard no_grad;
  StepResult result;
  result.grad_norm = impl_->gather_gradients();
  if (!std::isfinite(result.grad_norm)) {
    zero_grad();
    return result;
  }
  const double clip = impl_->config.clip_grad;
  const double clip_coef = clip / (result.grad_norm + 1e-6);  // torch's clip_grad_norm_
  if (clip > 0 && clip_coef < 1.0) {
    for (auto& master : impl_->masters) master.mutable_grad().mul_(clip_coef);
  }
  impl_->adamw->step();
  for (std::size_t i = 0; i < impl_->parameters.size(); ++i) {
    impl_->parameters[i].copy_(impl_->masters[i]);
  }
  result.applied = true;
  return result;
}

void Optimizer::zero_grad() {
  for (auto& p : impl_->parameters) {
    if (p.grad().defined()) p.mutable_grad() = at::Tensor();
  }
  for (auto& m : impl_->masters) m.mutable_grad() = at::Tensor();
}

void Optimizer::advance_lr() {
  ++impl_->scheduler_step;
  impl_->set_lr(impl_->schedule.lr_at(impl_->scheduler_step));
}

double Optimizer::lr() const { return impl_->schedule.lr_at(impl_->scheduler_step); }

void Optimizer::save(const std::string& path) const {
  torch::serialize::OutputArchive archive;
  impl_->adamw->save(archive);
  for (std::size_t i = 0; i < impl_->masters.size(); ++i) {
    archive.write("master/" + std::to_string(i), impl_->masters[i].detach());
  }
  archive.write("scheduler_step", torch::tensor(impl_->scheduler_step));
  write_atomically(path, [&](const std::filesystem::path& temporary) {
    // LibTorch's zip writer throws from its destructor when a write comes up short (a full disk),
    // which terminates the process; so the bytes go through a writer that records the failure,
    // keeps accepting data, and is checked once the archive is complete.
    std::FILE* file = std::fopen(temporary.c_str(), "wb");
    if (file == nullptr) throw Error("cannot write optimizer state " + path + ": cannot open");
    int write_errno = 0;
    archive.save_to([&](const void* data, std::size_t size) -> std::size_t {
      if (write_errno == 0 && std::fwrite(data, 1, size, file) != size) write_errno = errno;
      return size;
    });
    if (std::fflush(file) != 0 && write_errno == 0) write_errno = errno;
    if (std::fclose(file) != 0 && write_errno == 0) write_errno = errno;
    if (write_errno != 0) {
      throw Error("cannot write optimizer state " + path + ": " + std::strerror(write_errno));
    }
  });
}

void Optimizer::load(const std::string& path) {
  torch::NoGradGuard no_grad;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    impl_->adamw->load(archive);
    for (std::size_t i = 0; i < impl_->masters.size(); ++i) {
      at::Tensor saved;
      archive.read("master/" + std::to_string(i), saved);
      if (!saved.sizes().equals(impl_->masters[i].sizes())) {
        throw Error("optimizer state " + path + ": parameter " + std::to_string(i) +
                    " has a different shape than the model's");
      }
      impl_->masters[i].copy_(saved);
      impl_->parameters[i].copy_(saved);
    }
    at::Tensor step;
    archive.read("scheduler_step", step);
    impl_->scheduler_step = step.item<std::int64_t>();
    impl_->set_lr(impl_->schedule.lr_at(impl_->scheduler_step));
  } catch (const c10::Error& e) {
    throw Error("cannot read optimizer state " + path + ": " + e.what_without_backtrace());
  }
}

}  // namespace verlpp::engine
