// KL penalty estimators per token (verl: core_algos.py kl_penalty / kl_penalty_forward;
// verl.md §3.2), selected by algorithm.kl_penalty, actor.kl_loss_type and the distillation
// estimator loss modes. John Schulman's k1/k2/k3 (http://joschu.net/blog/kl-approx.html).
//
// logprob and ref_logprob: same shape (typically [batch, response_length]), floating point;
// the result has that shape and autograd flows to both inputs.
//   kl, k1          logprob - ref_logprob
//   abs             |logprob - ref_logprob|
//   mse, k2         0.5 * (logprob - ref_logprob)^2
//   low_var_kl, k3  x = clamp(ref_logprob - logprob, -20, 20); clamp(exp(x) - x - 1, -10, 10)
//   <name>+         straight-through: the value of <name>, the gradient of k2
//                   (k2 - k2.detach() + value.detach()); k2+ and mse+ are plain k2
//   full            verl raises NotImplementedError; verlpp throws verlpp::Error
// Any other name throws verlpp::Error listing the valid names.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace verlpp::algo {

at::Tensor kl_penalty(const at::Tensor& logprob, const at::Tensor& ref_logprob,
                      const std::string& kl_penalty);

// The forward estimator alone (a trailing '+' is ignored).
at::Tensor kl_penalty_forward(const at::Tensor& logprob, const at::Tensor& ref_logprob,
                              const std::string& kl_penalty);

// Names kl_penalty accepts, without the '+' variants: kl, k1, abs, mse, k2, low_var_kl, k3.
std::vector<std::string> kl_penalty_names();

// Throws verlpp::Error, naming `key`, unless kl_penalty would accept `name`.
void validate_kl_penalty_name(const std::string& name, const std::string& key);

}  // namespace verlpp::algo
