#include "verlpp/model/master_weights.h"

#include <ATen/ATen.h>

#include "verlpp/core/error.h"

namespace verlpp::model {

MasterWeights::MasterWeights(const CausalLM& model) {
  for (const auto& [name, p] : model.named_parameters()) {
    params_.emplace_back(
        name,
        p.detach().to(at::kFloat, /*non_blocking=*/false, /*copy=*/true).requires_grad_(true));
  }
}

void MasterWeights::gradients_from(const CausalLM& model) {
  const auto model_params = model.named_parameters();
  if (model_params.size() != params_.size()) throw Error("master weights: model changed shape");
  for (size_t i = 0; i < params_.size(); ++i) {
    const at::Tensor& g = model_params[i].second.grad();
    params_[i].second.mutable_grad() = g.defined() ? g.to(at::kFloat, false, true) : at::Tensor();
  }
}

void MasterWeights::copy_to(CausalLM& model) const {
  const auto model_params = model.named_parameters();
  if (model_params.size() != params_.size()) throw Error("master weights: model changed shape");
  at::NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) model_params[i].second.copy_(params_[i].second);
}

}  // namespace verlpp::model
